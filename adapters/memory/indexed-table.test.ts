/**
 * Adapter-only: the owner indexes of the memory tables against the scans they replace, over random inserts, updates
 * (an owner or order field changing), deletes and clears. The contract suites check the listings through the
 * repositories; this drives the indexes through histories those suites do not reach (rows changing owner, deletes).
 */
import { runs } from '../../contracts-tests/support/depth.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { GroupIndex, IndexedTable, OrderedGroupIndex } from './indexed-table.js';

interface Row {
  readonly owner: number | null;
  readonly at: number;
}

type Op = { readonly kind: 'write'; readonly key: number; readonly row: Row } | { readonly kind: 'delete'; readonly key: number } | { readonly kind: 'clear' };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 8, arbitrary: fc.record({
    kind: fc.constant('write' as const), key: fc.integer({ min: 0, max: 25 }),
    row: fc.record({ owner: fc.option(fc.integer({ min: 0, max: 3 }), { nil: null, freq: 5 }), at: fc.integer({ min: 0, max: 6 }) }),
  }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('delete' as const), key: fc.integer({ min: 0, max: 25 }) }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'clear' as const }) },
);

describe('owner indexes against scans', () => {
  it('group keys and ordered lists (newest first and ascending) match a sort of the scan', () => {
    fc.assert(fc.property(fc.array(opArb, { minLength: 10, maxLength: 200, size: 'max' }), (ops) => {
      const table = new IndexedTable<string, Row>();
      const groups = table.index(new GroupIndex<string, Row, number>((r) => r.owner ?? undefined));
      const newest = table.index(new OrderedGroupIndex<string, Row, number>((r) => r.owner ?? undefined, (r) => r.at, true));
      const oldest = table.index(new OrderedGroupIndex<string, Row, number>((r) => r.owner ?? undefined, (r) => r.at, false));
      for (const op of ops) {
        if (op.kind === 'write') table.set(`k${op.key}`, op.row);
        else if (op.kind === 'delete') table.delete(`k${op.key}`);
        else table.clear();
        for (let owner = 0; owner <= 3; owner++) {
          const mine = [...table.entries()].filter(([, r]) => r.owner === owner);
          expect([...groups.keys(owner)]).toEqual(mine.map(([k]) => k));
          // The scans the repositories did: newest first = reverse insertion order, stable sort by `at` descending.
          expect(newest.keys(owner)).toEqual([...mine].reverse().sort((a, b) => b[1].at - a[1].at).map(([k]) => k));
          expect(oldest.keys(owner)).toEqual([...mine].sort((a, b) => a[1].at - b[1].at).map(([k]) => k));
          expect(newest.slice(owner, 1, 2)).toEqual({ keys: newest.keys(owner).slice(1, 3), total: mine.length });
        }
      }
    }), { numRuns: runs(200) });
  });
});
