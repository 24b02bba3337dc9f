// `npm test [-- <vitest arguments>]` and `npm run test:deep`: the typecheck (and build) and the whole vitest run
// side by side rather than one after the other. The tests wait on devnet blocks, child processes and browsers for much
// of their time, and tsc fills those gaps. It keeps the tests' CPU priority: at a lower one, a busy machine starved it
// until long after the tests had ended.
// Both always run to the end; the exit code is non-zero when either fails, and tsc's errors are printed last, after
// the tests' closing line, so they are not lost in the test output.
//
// `--deep` (npm run test:deep) sets TEST_DEPTH=1 unless TEST_DEPTH is already set: the property and crash tests at the
// full depth written in them (contracts-tests/support/depth.ts); `TEST_DEPTH=4 npm run test:deep` goes deeper.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildTestJsTree } from './test-js-tree.mjs';

const require = createRequire(import.meta.url);
const args = process.argv.slice(2);
const deep = args.includes('--deep');
const vitestArgs = args.filter((arg) => arg !== '--deep');
const env = { ...process.env };
if (deep && (env.TEST_DEPTH === undefined || env.TEST_DEPTH === '')) env.TEST_DEPTH = '1';

const started = Date.now();
const seconds = () => `${Math.round((Date.now() - started) / 1000)} s`;

/** Runs `node <script> <args>`; resolves with its exit code (1 when it died by a signal). */
function run(script, scriptArgs, options, onSpawn) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [script, ...scriptArgs], { env, ...options });
    onSpawn?.(child);
    child.on('error', (error) => {
      process.stderr.write(`${script}: ${error.message}\n`);
      resolve(1);
    });
    child.on('close', (code) => resolve(code ?? 1));
  });
}

// One TypeScript compile for the run: the typecheck, and the build into dist/ that hosts/production-entry.test.ts runs
// (it waits for TEST_SHARED_BUILD instead of compiling again; scripts/typecheck-build.mjs).
const work = mkdtempSync(join(tmpdir(), 'custody-hub-test-'));
env.TEST_SHARED_BUILD = join(work, 'build.json');
let tscOutput = '';
const typecheck = run(join(dirname(fileURLToPath(import.meta.url)), 'typecheck-build.mjs'), [], { stdio: ['ignore', 'pipe', 'pipe'] }, (child) => {
  child.stdout.on('data', (chunk) => (tscOutput += chunk));
  child.stderr.on('data', (chunk) => (tscOutput += chunk));
}).then((code) => {
  // A compile that died before its build still answers the test that waits for it.
  if (!existsSync(env.TEST_SHARED_BUILD)) writeFileSync(env.TEST_SHARED_BUILD, JSON.stringify({ ok: false, errors: `the typecheck ended (${code}) before the build:\n${tscOutput}` }));
  process.stdout.write(`\ntypecheck: ${code === 0 ? 'passed' : 'FAILED (errors below, after the tests)'} in ${seconds()}\n`);
  return code;
});
// The child processes the tests start (workers, API nodes, operator tools) run from a JavaScript tree of the same
// modules, transpiled in about half a second, instead of through tsx (scripts/test-js-tree.mjs).
try {
  env.TEST_JS_TREE = await buildTestJsTree();
} catch (error) {
  process.stdout.write(`test-js-tree: not built (${error instanceof Error ? error.message : String(error)}); child processes run through tsx\n`);
}
const vitest = join(dirname(require.resolve('vitest/package.json')), 'vitest.mjs');
const tests = run(vitest, ['run', '--config', '.config/vitest.config.ts', ...vitestArgs], { stdio: 'inherit' });

const [tscCode, testCode] = await Promise.all([typecheck, tests]);
rmSync(work, { recursive: true, force: true });
if (tscCode !== 0) process.stdout.write(`\n${tscOutput}\ntypecheck: FAILED\n`);
process.stdout.write(`npm test: typecheck ${tscCode === 0 ? 'passed' : 'FAILED'}, tests ${testCode === 0 ? 'passed' : 'FAILED'}, ${seconds()} in all${env.TEST_DEPTH ? ` (TEST_DEPTH=${env.TEST_DEPTH})` : ''}\n`);
process.exit(tscCode !== 0 ? tscCode : testCode);
