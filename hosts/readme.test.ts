import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** What a newcomer sees before scrolling: issue #39 item 10 puts what it is, the two commands and the links there. */
const FIRST_SCREEN = 40;

describe('README.md reads in a minute', () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const firstScreen = readme.split('\n').slice(0, FIRST_SCREEN).join('\n');

  it('has the two commands and the links to every guide on its first screen', () => {
    expect(firstScreen).toContain('npm ci && npm start');
    expect(firstScreen).toMatch(/^ {4}npm test\b/m);
    for (const guide of ['docs/integration.md', 'docs/development.md', 'docs/configuration.md', 'docs/operations.md', 'docs/architecture.md']) {
      expect(firstScreen, guide).toContain(`\`${guide}\``);
    }
  });

  it('the two commands do what it says: npm start runs the embedded default, npm test the typecheck and every suite', () => {
    const { scripts } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(scripts['start']).toBe('tsx hosts/dev/main.ts');
    // scripts/test.mjs runs the typecheck and the whole vitest run side by side (issue #39 item 9), every project.
    expect(scripts['test']).toBe('node scripts/test.mjs');
    const runner = readFileSync(join(ROOT, 'scripts', 'test.mjs'), 'utf8');
    // The typecheck of tsconfig.json, in one compile with the build the production-entry test runs.
    expect(runner).toContain("'typecheck-build.mjs'");
    expect(readFileSync(join(ROOT, 'scripts', 'typecheck-build.mjs'), 'utf8')).toContain("parse('tsconfig.json')");
    expect(runner).toContain("['run', '--config', '.config/vitest.config.ts', ...vitestArgs]");
    expect(runner).not.toContain('--project');
  });

  it('keeps the configuration table out: it is generated into docs/configuration.md', () => {
    expect(readme).not.toMatch(/^\| variable \|/m);
  });
});
