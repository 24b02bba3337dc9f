// `npm run build`, second half: the files tsc does not emit but the code reads at run time beside its module
// (the payer page's script and style), copied to the same place under dist/.
import { cpSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const ASSET = /\.(css|js|html)$/;
function copy(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) copy(path);
    else if (ASSET.test(name)) cpSync(path, join('dist', path));
  }
}
for (const root of ['core', 'adapters', 'hosts']) copy(root);
