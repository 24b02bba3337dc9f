import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/**
 * README and the guides a reader follows. docs/decisions.md is left out: it is the decision log, written against the
 * contract it records decisions on, and edited only by its owner.
 */
const DOCS = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md') && f !== 'decisions.md').map((f) => `docs/${f}`)];
/** Files that live beside the repository, not in it: a reader of the repository alone cannot open them. */
const OUTSIDE = /\.\.\/shared|spec\/interface-M1\.md|\bDESIGN\.md|\bSTYLE\.md|shared folder/;
/** A backticked path into the repository; placeholders (`*`, `<…>`, `{…}`, `NNNN`) are not files. */
const REPO_PATH = /`((?:core|adapters|hosts|contracts-tests|docs|scripts|bench|packages|\.ci|\.config)\/[^`\s*<{…]+?)(?:[:#][^`]*)?`/g;

/** What a doc points at that a reader of the repository alone cannot open. */
export function unreachable(name: string, text: string, exists: (path: string) => boolean): string[] {
  const problems = text.split('\n').flatMap((line, i) => (OUTSIDE.test(line) ? [`${name}:${i + 1}: ${line.trim()}`] : []));
  for (const [, path] of text.matchAll(REPO_PATH)) {
    if (!/NNNN/.test(path!) && !exists(path!)) problems.push(`${name}: \`${path}\` does not exist`);
  }
  return problems;
}

describe('README and docs are self-contained', () => {
  it('point at nothing outside the repository, and every repository path they name exists', () => {
    expect(DOCS).toEqual(expect.arrayContaining(['README.md', 'docs/integration.md', 'docs/architecture.md']));
    const problems = DOCS.flatMap((name) => unreachable(name, readFileSync(join(ROOT, name), 'utf8'), (path) => existsSync(join(ROOT, path))));
    expect(problems).toEqual([]);
  });

  it('the API reference they send readers to is the served document and its page', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    expect(readme).toContain('`GET /api/openapi.json`');
    expect(readme).toContain('`GET /api/docs`');
  });

  it('the check catches a shared-folder reference and a missing path', () => {
    const text = 'The contract is `spec/interface-M1.md` in the shared folder.\nSee `hosts/api/gone.ts` and `core/index.ts`.';
    expect(unreachable('x.md', text, (path) => path === 'core/index.ts')).toEqual([
      'x.md:1: The contract is `spec/interface-M1.md` in the shared folder.', 'x.md: `hosts/api/gone.ts` does not exist',
    ]);
  });
});
