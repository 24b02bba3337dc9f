import { existsSync, readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/**
 * What `npm run build` compiles into dist/ (tsconfig.build.json): the production entry points and the modules they
 * import, never test support. Issue #39 item 8: the `testing/` folders, fixtures, harnesses, `fault-injection.ts` and
 * `worker-drive.ts` used to compile into dist/ because the build took whole folders.
 */

/** The build's root files, as tsc reads tsconfig.build.json (its `files` and whatever an `include` would add). */
function buildRoots(config = 'tsconfig.build.json'): string[] {
  const parsed = ts.getParsedCommandLineOfConfigFile(join(ROOT, config), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d) => { throw new Error(String(d.messageText)); } });
  if (parsed === undefined) throw new Error(`cannot read ${config}`);
  return parsed.fileNames.map((file) => posix.relative(ROOT.split('\\').join('/'), file.split('\\').join('/'))).sort();
}

/** Source of the production entries: package.json's exports, and the file each production npm script runs. */
function productionEntries(): string[] {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { exports: Record<string, string | { import?: string }>; scripts: Record<string, string> };
  const entries = new Set<string>();
  for (const target of Object.values(pkg.exports)) {
    const path = typeof target === 'string' ? target : target.import;
    if (path?.startsWith('./dist/')) entries.add(path.slice('./dist/'.length).replace(/\.js$/, '.ts'));
  }
  for (const [name, script] of Object.entries(pkg.scripts)) {
    // bench:*, the client's type generator, docs:config and the build itself run from source as development tools.
    if (/^(bench|client|docs|build|prepack|test|typecheck)\b/.test(name)) continue;
    for (const [, file] of script.matchAll(/\b(?:tsx|node) (\S+\.(?:ts|js))\b/g)) entries.add(file!.replace(/^dist\//, '').replace(/\.js$/, '.ts'));
  }
  return [...entries].sort();
}

/** Every relative module specifier of static imports, re-exports and dynamic imports. */
function relativeImports(source: string): string[] {
  const found: string[] = [];
  for (const pattern of [/\bfrom\s+['"](\.[^'"]*)['"]/g, /\bimport\s+['"](\.[^'"]*)['"]/g, /\bimport\(\s*['"](\.[^'"]*)['"]\s*\)/g]) {
    for (const match of source.matchAll(pattern)) found.push(match[1]!);
  }
  return found;
}

/** The roots and every module they import, transitively (what tsc compiles: an excluded file still compiles when imported). */
function closure(roots: readonly string[]): string[] {
  const seen = new Set<string>();
  const queue = [...roots];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (seen.has(file) || !file.endsWith('.ts')) continue;
    seen.add(file);
    for (const spec of relativeImports(readFileSync(join(ROOT, file), 'utf8'))) {
      const target = posix.join(posix.dirname(file), spec);
      const source = target.replace(/\.js$/, '.ts');
      if (existsSync(join(ROOT, source))) queue.push(source);
    }
  }
  return [...seen].sort();
}

/**
 * Test support, by its place or name, or by using the test tools. contracts-tests/ (but its harness/) is the exported
 * contract kit (package.json "./contracts-tests": suites and their fixtures, which other teams run with vitest).
 */
function isTestSupport(file: string): boolean {
  const parts = file.split('/');
  const name = parts.at(-1)!;
  if (parts.includes('testing') || parts.includes('harness')) return true;
  if (parts[0] === 'contracts-tests') return name.endsWith('.test.ts');
  if (/\.test\.ts$|\.checks\.ts$|fixture|test-harness|test-helpers|test-certificate|fault-injection|worker-drive/.test(name)) return true;
  return /\bfrom\s+['"](vitest|fast-check)['"]/.test(readFileSync(join(ROOT, file), 'utf8'));
}

describe('the build compiles production code only (tsconfig.build.json)', () => {
  const roots = buildRoots();

  it('its roots are exactly the production entries: package.json exports and the files its production scripts run', () => {
    expect(roots).toEqual(productionEntries());
  });

  it('no module in its input is test support (testing/ folders, fixtures, harnesses, fault injection, worker-drive)', () => {
    expect(closure(roots).filter(isTestSupport)).toEqual([]);
  });

  it('the check sees test support: a testing module as a root, or imported by production code, is found', () => {
    expect(closure([...roots, 'core/application/testing/index.ts']).filter(isTestSupport)).toContain('core/application/testing/index.ts');
    // hosts/worker/webhook-e2e-fixture.ts imports worker-test-fixture.ts: reached through an import, not listed.
    expect(closure(['hosts/worker/webhook-e2e-fixture.ts']).filter(isTestSupport)).toContain('hosts/worker/worker-test-fixture.ts');
    for (const file of ['hosts/worker/fault-injection.ts', 'hosts/worker/worker-drive.ts', 'adapters/memory/testing/memory-test-core.ts',
      'hosts/api/test-harness.ts', 'contracts-tests/harness/postgres.ts', 'adapters/records/testing/record-arbitraries.ts']) {
      expect(isTestSupport(file), file).toBe(true);
    }
    expect(closure(roots).length).toBeGreaterThan(roots.length * 5);
  });
});
