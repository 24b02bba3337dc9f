// `npm run build`, second half: the files tsc does not emit but the code reads at run time beside its module
// (the payer page's script and style), copied to the same place under the output directory (dist/ by default).
import { cpSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ASSET = /\.(css|js|html)$/;
function copy(dir, outDir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) copy(path, outDir);
    else if (ASSET.test(name)) cpSync(path, join(outDir, path));
  }
}

/** Copies the assets of core, adapters and hosts (paths relative to the working directory) into `outDir`. */
export function copyBuildAssets(outDir = 'dist') {
  for (const root of ['core', 'adapters', 'hosts']) copy(root, outDir);
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) copyBuildAssets(process.argv[2]);
