import { existsSync } from 'node:fs';
import { isAbsolute, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * The node arguments that run a TypeScript entry of this repository (`entry`, absolute or from the repository root) in a
 * child process: from `npm test`'s JavaScript tree when TEST_JS_TREE names it and the module is there
 * (scripts/test-js-tree.mjs: the same modules, transpiled one to one as tsx does, at half the start-up CPU), else
 * through tsx, as `npm run` does. Either way the child runs the same code with the same environment.
 */
export function nodeArgsFor(entry: string): string[] {
  const tree = process.env['TEST_JS_TREE'];
  if (tree !== undefined && tree !== '') {
    const compiled = join(tree, (isAbsolute(entry) ? relative(ROOT, entry) : entry).replace(/\.ts$/, '.js'));
    if (existsSync(compiled)) return [compiled];
  }
  return ['--import', 'tsx', entry];
}
