// The files tsc does not emit but the code reads at run time beside its module, copied to the same place under an
// output directory (dist/ by default): the pages' scripts and styles (.css, .js, .html under core, adapters and hosts)
// and the PostgreSQL store's SQL migrations (read beside adapters/postgres/pg-migrations.js at start and by
// `db:migrate`). Used by `npm run build`, npm test's one compile (scripts/typecheck-build.mjs) and its JavaScript tree
// for child processes (scripts/test-js-tree.mjs).
import { cpSync, readdirSync, statSync } from 'node:fs';
import { isAbsolute, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const ASSET = /\.(css|js|html)$/;
const MIGRATIONS = join('adapters', 'postgres', 'migrations');

function copy(dir, outDir) {
  for (const name of readdirSync(join(ROOT, dir))) {
    const path = join(dir, name);
    if (statSync(join(ROOT, path)).isDirectory()) copy(path, outDir);
    else if (ASSET.test(name)) cpSync(join(ROOT, path), join(outDir, path));
  }
}

/** Copies the run-time assets and the migrations into `outDir` (relative to the working directory, or absolute). */
export function copyBuildAssets(outDir = 'dist') {
  const out = isAbsolute(outDir) ? outDir : join(process.cwd(), outDir);
  for (const root of ['core', 'adapters', 'hosts']) copy(root, out);
  cpSync(join(ROOT, MIGRATIONS), join(out, MIGRATIONS), { recursive: true });
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) copyBuildAssets(process.argv[2]);
