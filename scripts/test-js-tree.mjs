// `npm test`'s JavaScript tree for the child processes the tests start (issue #39 item 9): every TypeScript module of
// core, adapters, hosts and contracts-tests (test files aside) transpiled one to one by esbuild, the transform tsx
// makes of each module when it loads it, with the run-time assets and the SQL migrations beside them as in dist/.
// A test that starts a TypeScript entry (a worker, an API node, keys:import, db:migrate, the audit check) runs it from
// this tree when TEST_JS_TREE names it (contracts-tests/harness/ts-entry.ts), else through tsx as before: a start then
// costs about 0.8 CPU-seconds instead of 1.6 (`node --import tsx`) or 2.1 (the tsx command), and a run starts about
// 60 of them. No types are checked here: the typecheck beside the tests does that.
//
// The tree lives under node_modules/.cache, so a module in it finds the packages of node_modules as one in the
// repository does.
import { readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { copyBuildAssets } from './copy-build-assets.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const TEST_JS_TREE = join(ROOT, 'node_modules', '.cache', 'custody-hub-test-js');

function sources(dir, into) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (name === 'node_modules') continue;
    if (statSync(path).isDirectory()) sources(path, into);
    else if (name.endsWith('.ts') && !name.endsWith('.test.ts') && !name.endsWith('.d.ts')) into.push(path);
  }
  return into;
}

/** Writes the tree afresh; resolves with its directory. */
export async function buildTestJsTree(outDir = TEST_JS_TREE) {
  rmSync(outDir, { recursive: true, force: true });
  const entryPoints = ['core', 'adapters', 'hosts', 'contracts-tests'].flatMap((dir) => sources(join(ROOT, dir), []));
  await build({
    entryPoints, outdir: outDir, outbase: ROOT, bundle: false, format: 'esm', platform: 'node', target: 'node20',
    tsconfig: join(ROOT, 'tsconfig.json'), sourcemap: false, logLevel: 'silent',
  });
  copyBuildAssets(outDir);
  return outDir;
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const started = Date.now();
  const dir = await buildTestJsTree(process.argv[2]);
  console.log(`${dir} in ${Date.now() - started} ms`);
}
