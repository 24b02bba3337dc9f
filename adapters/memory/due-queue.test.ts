/**
 * Adapter-only: the due-time index behind the memory claims, checked against a naive scan (the contract suites pin
 * the claim semantics through the repositories; this drives the index itself through long random histories:
 * inserts, updates that move the due time or the lease, deletes, claims at times that mostly move forward and
 * sometimes step back, and enough churn to trigger its compaction).
 */
import { runs } from '../../contracts-tests/support/depth.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DueQueue, type DueKey } from './due-queue.js';
import { ClaimIndex, IndexedTable } from './indexed-table.js';

interface Row {
  readonly due: number;
  readonly leaseUntil: number | null;
  readonly rank: number;
  readonly claimable: boolean;
}

/** What a first-match scan of the table (in insertion order) would claim. */
function naiveFirst(rows: ReadonlyMap<string, Row>, now: number, limit: number): string[] {
  return [...rows.entries()]
    .filter(([, r]) => r.claimable && r.due <= now && (r.leaseUntil === null || r.leaseUntil <= now))
    .map(([key, r], seq) => ({ key, r, seq }))
    .sort((a, b) => a.r.due - b.r.due || a.r.rank - b.r.rank || a.seq - b.seq)
    .slice(0, limit)
    .map((x) => x.key);
}

const position = (r: Row): DueKey | null => r.claimable ? { due: r.due, leaseUntil: r.leaseUntil, rank: r.rank } : null;

const rowArb: fc.Arbitrary<Row> = fc.record({
  due: fc.integer({ min: 0, max: 60 }),
  leaseUntil: fc.option(fc.integer({ min: 0, max: 80 }), { nil: null, freq: 2 }),
  rank: fc.integer({ min: 0, max: 3 }),
  claimable: fc.boolean(),
});

type Op =
  | { readonly kind: 'write'; readonly key: number; readonly row: Row }
  | { readonly kind: 'delete'; readonly key: number }
  | { readonly kind: 'claim'; readonly dt: number; readonly limit: number; readonly leaseMs: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('write' as const), key: fc.integer({ min: 0, max: 30 }), row: rowArb }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('delete' as const), key: fc.integer({ min: 0, max: 30 }) }) },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('claim' as const), dt: fc.integer({ min: -10, max: 15 }), limit: fc.integer({ min: 1, max: 4 }), leaseMs: fc.integer({ min: 1, max: 20 }),
    }),
  },
);

describe('DueQueue against a naive scan', () => {
  it('claims in due order, honours leases, follows updates and deletes (through an indexed table)', () => {
    fc.assert(fc.property(fc.array(opArb, { minLength: 20, maxLength: 300, size: 'max' }), (ops) => {
      const table = new IndexedTable<string, Row>();
      const index = table.index(new ClaimIndex<string, Row>(position));
      let now = 0;
      for (const op of ops) {
        if (op.kind === 'write') table.set(`k${op.key}`, op.row);
        else if (op.kind === 'delete') table.delete(`k${op.key}`);
        else {
          now = Math.max(0, now + op.dt);
          const expected = naiveFirst(table, now, op.limit);
          expect(index.queue.first(now, op.limit).map((e) => e.key)).toEqual(expected);
          // Claim the first as a repository does: a lease written back into the table.
          const [claimed] = expected;
          if (claimed !== undefined) table.set(claimed, { ...table.get(claimed)!, leaseUntil: now + op.leaseMs });
        }
      }
      expect(index.queue.size).toBe([...table.values()].filter((r) => r.claimable).length);
    }), { numRuns: runs(200) });
  });

  it('stays bounded under churn: dead entries are compacted away', () => {
    const queue = new DueQueue<string>();
    for (let round = 0; round < 50; round++) {
      for (let i = 0; i < 1_000; i++) queue.set(`k${i}`, i, { due: round * 10 + i, leaseUntil: null, rank: 0 });
    }
    expect(queue.size).toBe(1_000);
    expect(queue.slots).toBeLessThanOrEqual(2 * 1_000 + 1_025);
    expect(queue.first(Number.MAX_SAFE_INTEGER, 2).map((e) => e.key)).toEqual(['k0', 'k1']);
  });

  it('clear drops every entry', () => {
    const table = new IndexedTable<string, Row>();
    const index = table.index(new ClaimIndex<string, Row>(position));
    table.set('a', { due: 0, leaseUntil: null, rank: 0, claimable: true });
    table.clear();
    expect(index.queue.first(100)).toEqual([]);
  });
});
