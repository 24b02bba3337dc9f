import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { announceSkipped } from './skipped.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SCANNED = ['core', 'adapters', 'hosts', 'contracts-tests', 'bench', 'scripts'];

/** A vitest skip: `.skip`, `.skipIf`, `.runIf`, `.todo` on it/test/describe, or a skip from inside a test. */
const SKIP = /\b(?:it|test|describe)\s*\.\s*(?:skip|skipIf|runIf|todo)\b|\b(?:ctx|context|task)\.skip\(/;
/** What prints the loud line: the literal, the shared helpers, or the MongoDB harness's message. */
const LOUD = /SKIPPED:|announceSkipped\(|describeUnless\(|itUnless\(|MONGO_SKIP_MESSAGE/;

/** Test code under the scanned folders: files that import vitest. */
function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : testFiles(path);
    return entry.name.endsWith('.ts') && /from 'vitest'/.test(readFileSync(path, 'utf8')) ? [path] : [];
  });
}

/**
 * The files that can skip a test without printing why. File-level on purpose: a file that prints for one skip and
 * stays silent for another passes, which review catches; what this guards is the silent kind coming back.
 */
export function silentSkips(files: ReadonlyArray<{ readonly name: string; readonly text: string }>): string[] {
  return files.filter(({ text }) => SKIP.test(text) && !LOUD.test(text)).map(({ name }) => name);
}

describe('every skip prints SKIPPED with its reason', () => {
  afterEach(() => { vi.restoreAllMocks(); });

  it('no test file skips silently: each one that can skip prints a SKIPPED line (contracts-tests/support/skipped.ts)', () => {
    const files = SCANNED.flatMap((dir) => testFiles(join(ROOT, dir)))
      .map((path) => ({ name: relative(ROOT, path), text: readFileSync(path, 'utf8') }));
    expect(files.length).toBeGreaterThan(100);
    expect(silentSkips(files)).toEqual([]);
  });

  it('the scan catches a silent skip and accepts a loud one', () => {
    expect(silentSkips([
      { name: 'silent-if.test.ts', text: "it.skipIf(!caps.reorg)('reorg', () => {});" },
      { name: 'silent-ternary.test.ts', text: "(ok ? it : it.skip)('title', () => {});" },
      { name: 'silent-describe.test.ts', text: "describe.skipIf(missing)('suite', () => {});" },
      { name: 'loud.test.ts', text: "if (missing) console.warn('SKIPPED: suite: no go');\ndescribe.skipIf(missing)('suite', () => {});" },
      { name: 'helper.test.ts', text: "itUnless(reason, suite)('title', () => {});\nit.skip('x', () => {});" },
      { name: 'none.test.ts', text: "it('runs', () => {});" },
    ])).toEqual(['silent-if.test.ts', 'silent-ternary.test.ts', 'silent-describe.test.ts']);
  });

  it('the line names what was skipped and why', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    announceSkipped('EnergyProvider contract: X › the margin', 'option weightGrowthBps not given');
    expect(warn).toHaveBeenCalledWith('SKIPPED: EnergyProvider contract: X › the margin: option weightGrowthBps not given');
  });
});
