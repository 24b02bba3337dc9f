import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import * as suites from './index.js';

const here = dirname(fileURLToPath(import.meta.url));

describe('contracts-tests public entry point', () => {
  const files = readdirSync(here).filter((f) => f.endsWith('.contract.ts'));

  it('exports every describe*Contract factory of every suite file', () => {
    const declared = files.flatMap((f) =>
      [...readFileSync(join(here, f), 'utf8').matchAll(/^export function (describe\w+Contract)\(/gm)].map((m) => m[1]!),
    );
    expect(declared.length).toBeGreaterThanOrEqual(files.length);
    const exported = suites as Record<string, unknown>;
    for (const name of declared) expect(typeof exported[name], name).toBe('function');
  });
});
