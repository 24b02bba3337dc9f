import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Reporter } from 'vitest/node';
import { cpuMs } from './cpu-ms.js';

/**
 * With TEST_CPU_PROFILE=<dir> (.config/cpu-profile.setup.ts): the CPU time of vitest's own process (transforms, the
 * module server, reporters, globalSetup) and of the children it waited for (the workers, PostgreSQL, Redis) at the end
 * of the run, in <dir>/main.json.
 */
export default class CpuProfileReporter implements Reporter {
  onTestRunEnd(): void {
    const dir = process.env['TEST_CPU_PROFILE'];
    if (dir === undefined || dir === '') return;
    const usage = process.cpuUsage();
    writeFileSync(join(dir, 'main.json'), JSON.stringify({ ownCpuMs: Math.round((usage.user + usage.system) / 1000), withWaitedChildrenMs: cpuMs() }));
  }
}
