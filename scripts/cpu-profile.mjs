// `node scripts/cpu-profile.mjs <dir> [count]`: sums what `TEST_CPU_PROFILE=<dir> npm test` wrote
// (.config/cpu-profile.setup.ts): the CPU seconds of the test files by project and in all, and the `count` (10) most
// expensive files. CPU, not wall time: on a shared machine the wall time measures the neighbours.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const [dir, count = '10'] = process.argv.slice(2);
if (dir === undefined) throw new Error('usage: node scripts/cpu-profile.mjs <dir> [count]');
const rows = readdirSync(dir).filter((name) => name.endsWith('.jsonl'))
  .flatMap((name) => readFileSync(join(dir, name), 'utf8').split('\n').filter((line) => line !== '').map((line) => JSON.parse(line)));
const seconds = (ms) => (ms / 1000).toFixed(1);
const byProject = new Map();
// The kind of a file is in its name (one vitest project since issue #39 item 9).
const kindOf = (file) => file.endsWith('.integration.test.ts') ? 'integration' : file.endsWith('.browser.test.ts') ? 'browser' : 'unit';
for (const row of rows) byProject.set(kindOf(row.file), (byProject.get(kindOf(row.file)) ?? 0) + row.cpuMs);
const total = rows.reduce((sum, row) => sum + row.cpuMs, 0);
console.log(`${rows.length} files, ${seconds(total)} CPU s in the test workers (${[...byProject].map(([p, ms]) => `${p || '?'} ${seconds(ms)}`).join(', ')})`);
console.log('CPU s  wall s  file');
for (const row of rows.sort((a, b) => b.cpuMs - a.cpuMs).slice(0, Number(count))) {
  console.log(`${seconds(row.cpuMs).padStart(5)}  ${seconds(row.wallMs).padStart(6)}  ${relative(process.cwd(), row.file)}`);
}
