import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { cpuMs } from './cpu-ms.js';

/**
 * Opt-in, `TEST_CPU_PROFILE=<dir> npm test`: the CPU time each test file costs, for finding the slow files on a shared
 * machine, where wall time says more about the neighbours than about the file. vitest evaluates this setup file again
 * before each test file, so the reading starts before the file's own imports; it ends after the file's last hook. It
 * counts the worker process and the child processes it waited for (tsc, npm, a spawned API), from /proc/self/stat, in
 * milliseconds, with the file's start (epoch ms) for the run's timeline; one JSON line per file in <dir>/<worker pid>.jsonl. With shared workers (`isolate: false`) the first
 * file of a worker also pays the imports the next files reuse. Summarize with `node scripts/cpu-profile.mjs <dir>`.
 */
const dir = process.env['TEST_CPU_PROFILE'];

if (dir !== undefined && dir !== '') {
  const cpuStart = cpuMs();
  const wallStart = Date.now();
  // eslint-disable-next-line no-empty-pattern -- vitest reads the hook's first parameter as a fixture pattern.
  afterAll(({}, suite) => {
    const line = { file: suite.file.filepath, project: suite.file.projectName ?? '', cpuMs: cpuMs() - cpuStart, wallMs: Date.now() - wallStart, startedAt: wallStart, pid: process.pid };
    appendFileSync(join(dir, `${process.pid}.jsonl`), `${JSON.stringify(line)}\n`);
  });
}
