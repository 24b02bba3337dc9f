// `npm run build [-- --out-dir <dir>]`: JavaScript and `.d.ts` of the production entry points that tsconfig.build.json
// lists and of what they import (never test support: hosts/build-input.test.ts), then the run-time assets tsc does
// not emit (scripts/copy-build-assets.mjs) and the PostgreSQL store's SQL migrations (read beside
// adapters/postgres/pg-migrations.js at start and by `db:migrate`). The output goes to dist/ unless --out-dir names
// another directory (the package test builds into a temporary one, so it never races a test that runs the
// repository's own dist/).
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { copyBuildAssets } from './copy-build-assets.mjs';

const flag = process.argv.indexOf('--out-dir');
const outDir = flag === -1 ? 'dist' : process.argv[flag + 1];
if (outDir === undefined || outDir === '') throw new Error('--out-dir needs a directory');
rmSync(outDir, { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
try {
  execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json', '--outDir', outDir], { stdio: 'inherit' });
} catch {
  process.exit(1);
}
copyBuildAssets(outDir);
