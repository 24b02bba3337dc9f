import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ScanCursorStore } from '../core/ports/scan-cursor-store.port.js';
import { type Closable, type ContractOptions, type MakeSubject, useFreshSubject, withSubject } from './support/contract-options.js';

/** What the scan cursor contract needs: an empty store. */
export interface ScanCursorStoreSubject extends Closable {
  readonly cursors: ScanCursorStore;
}

/** The ScanCursorStore contract (core/ports/scan-cursor-store.port.ts). */
export function describeScanCursorStoreContract(
  name: string,
  makeSubject: MakeSubject<ScanCursorStoreSubject>,
  options: ContractOptions<ScanCursorStoreSubject> = {},
): void {
  describe(`ScanCursorStore contract: ${name}`, () => {
    const subject = useFreshSubject(makeSubject);

    it('is null before the first advance, and keeps one cursor per scanner name', async () => {
      const { cursors } = subject();
      expect(await cursors.get('balance-scan:head')).toBeNull();
      await cursors.advance('balance-scan:head', 0);
      await cursors.advance('balance-scan:solidified', 41);
      expect(await cursors.get('balance-scan:head')).toBe(0);
      expect(await cursors.get('balance-scan:solidified')).toBe(41);
      expect(await cursors.get('other')).toBeNull();
    });

    it('only moves forward: an equal or smaller block is ignored', async () => {
      const { cursors } = subject();
      await cursors.advance('s', 100);
      await cursors.advance('s', 99);
      await cursors.advance('s', 100);
      expect(await cursors.get('s')).toBe(100);
      await cursors.advance('s', 101);
      expect(await cursors.get('s')).toBe(101);
    });

    it('concurrent advances, the first ones included, end at the highest block', async () => {
      const { cursors } = subject();
      const blocks = Array.from({ length: options.concurrency ?? 50 }, (_, i) => (i * 7919) % 1_000);
      await Promise.all(blocks.map((b) => cursors.advance('race', b)));
      expect(await cursors.get('race')).toBe(Math.max(...blocks));
    });

    it('property: after any sequence of advances the cursor is the maximum advanced so far', async () => {
      await fc.assert(fc.asyncProperty(fc.array(fc.nat({ max: 50_000_000 }), { minLength: 1, maxLength: 12 }), async (blocks) => {
        await withSubject(makeSubject, async ({ cursors }) => {
          for (const b of blocks) await cursors.advance('p', b);
          expect(await cursors.get('p')).toBe(Math.max(...blocks));
        });
      }), { numRuns: options.numRuns ?? 50 });
    });

    options.extraTestsFn?.(makeSubject);
  });
}
