import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const coreDir = dirname(fileURLToPath(import.meta.url));

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return tsFiles(path);
    return name.endsWith('.ts') && !name.endsWith('.test.ts') ? [path] : [];
  });
}

/** Every module specifier in static imports, re-exports and dynamic imports. */
export function importSpecifiers(source: string): string[] {
  const found: string[] = [];
  const patterns = [/\bfrom\s+['"]([^'"]+)['"]/g, /\bimport\s+['"]([^'"]+)['"]/g, /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g];
  for (const pattern of patterns) for (const match of source.matchAll(pattern)) found.push(match[1]!);
  return found;
}

describe('architecture: core/ is framework-free', () => {
  const files = tsFiles(coreDir);

  it('has source files to check', () => {
    expect(files.length).toBeGreaterThan(0);
  });

  it('imports only core/ and node: built-ins', () => {
    const offenders: string[] = [];
    for (const file of files) {
      for (const spec of importSpecifiers(readFileSync(file, 'utf8'))) {
        if (spec.startsWith('node:')) continue;
        if (spec.startsWith('.')) {
          const target = resolve(dirname(file), spec);
          if (!relative(coreDir, target).startsWith('..')) continue;
        }
        offenders.push(`${relative(coreDir, file)} -> ${spec}`);
      }
    }
    expect(offenders).toEqual([]);
  });

  it('the import scanner sees every import form (so the check above can fail)', () => {
    const sample = `import a from 'h3';\nexport { b } from "../adapters/x.js";\nimport 'reflect-metadata';\nconst c = await import('ioredis');`;
    expect(importSpecifiers(sample)).toEqual(['h3', '../adapters/x.js', 'reflect-metadata', 'ioredis']);
  });
});
