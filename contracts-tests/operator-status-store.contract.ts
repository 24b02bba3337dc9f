import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { OperatorStatusKind, OperatorStatusRecord, OperatorStatusStore } from '../core/ports/operator-status-store.port.js';
import { type Closable, type ContractOptions, type MakeSubject, useFreshSubject, withSubject } from './support/contract-options.js';

/** What the operator status contract needs: an empty store. */
export interface OperatorStatusStoreSubject extends Closable {
  readonly status: OperatorStatusStore;
}

/** A health body with every JSON shape in use: nesting, arrays, null, an integer string beyond 2^64, non-ASCII keys. */
const sampleBody = (lag: number): OperatorStatusRecord['body'] => ({
  scanner: { head: 1_000 + lag, cursor: 1_000, lagBlocks: lag, lagSeconds: lag * 3 },
  nodes: [{ url: 'http://node-a', calls: 12, paused: false, pausedUntil: null }, { url: 'http://node-b', calls: 0, paused: true, pausedUntil: 99 }],
  feesSun: (2n ** 70n).toString(),
  'note.$with dots': '节点',
});

const kinds: readonly OperatorStatusKind[] = ['health', 'daily-summary'];

/** The OperatorStatusStore contract (core/ports/operator-status-store.port.ts). */
export function describeOperatorStatusStoreContract(
  name: string,
  makeSubject: MakeSubject<OperatorStatusStoreSubject>,
  options: ContractOptions<OperatorStatusStoreSubject> = {},
): void {
  describe(`OperatorStatusStore contract: ${name}`, () => {
    const subject = useFreshSubject(makeSubject);

    it('nothing before the first write; a write comes back exactly, each kind on its own', async () => {
      const { status } = subject();
      expect(await status.get('health')).toBeNull();
      expect(await status.put('health', sampleBody(4), 1_000)).toBe(true);
      expect(await status.get('health')).toEqual({ kind: 'health', body: sampleBody(4), at: 1_000 });
      expect(await status.get('daily-summary')).toBeNull();
      expect(await status.put('daily-summary', { collections: 3 }, 500)).toBe(true);
      expect(await status.get('daily-summary')).toEqual({ kind: 'daily-summary', body: { collections: 3 }, at: 500 });
      expect(await status.get('health')).toEqual({ kind: 'health', body: sampleBody(4), at: 1_000 });
    });

    it('a newer write replaces the record; an older one arriving late changes nothing', async () => {
      const { status } = subject();
      await status.put('health', sampleBody(1), 2_000);
      expect(await status.put('health', sampleBody(2), 3_000)).toBe(true);
      expect(await status.put('health', sampleBody(9), 2_500)).toBe(false);
      expect(await status.get('health')).toEqual({ kind: 'health', body: sampleBody(2), at: 3_000 });
    });

    it('property: after any writes in any order, each kind holds the body of its newest write', async () => {
      const write = fc.record({ kind: fc.constantFrom(...kinds), lag: fc.nat(50), at: fc.nat(1_000_000) });
      await fc.assert(fc.asyncProperty(fc.array(write, { maxLength: 8 }), async (writes) => withSubject(makeSubject, async ({ status }) => {
        // Distinct times per kind, so "the newest" is one write (equal times: the later of them wins, also allowed).
        const seen = new Set<string>();
        const unique = writes.filter((w) => !seen.has(`${w.kind}:${w.at}`) && seen.add(`${w.kind}:${w.at}`));
        for (const w of unique) await status.put(w.kind, sampleBody(w.lag), w.at);
        for (const kind of kinds) {
          const mine = unique.filter((w) => w.kind === kind);
          const newest = mine.reduce<(typeof mine)[number] | null>((a, w) => (a === null || w.at > a.at ? w : a), null);
          expect(await status.get(kind)).toEqual(newest === null ? null : { kind, body: sampleBody(newest.lag), at: newest.at });
        }
      })), { numRuns: options.numRuns ?? 50 });
    });

    it('writers racing: the newest of them stands', async () => {
      const { status } = subject();
      const n = options.concurrency ?? 50;
      await Promise.all(Array.from({ length: n }, (_, i) => status.put('health', sampleBody(i), 10_000 + i)));
      expect(await status.get('health')).toEqual({ kind: 'health', body: sampleBody(n - 1), at: 10_000 + n - 1 });
    });

    it('replace is a compare-and-set on the body read (issue #36: the reconciliation\'s state between passes)', async () => {
      const { status } = subject();
      const state = (pass: number): OperatorStatusRecord['body'] => ({ pass, previous: { 'TRON|T1|TRX': '-5' }, reported: pass > 1 ? { 'TRON|T1|TRX': '-5' } : {} });
      expect(await status.replace('ledger-reconciliation', state(1), 1_000, null)).toBe(true);
      // A second first write, and a write from a stale read, change nothing.
      expect(await status.replace('ledger-reconciliation', state(9), 1_001, null)).toBe(false);
      const read = (await status.get('ledger-reconciliation'))!;
      expect(read).toEqual({ kind: 'ledger-reconciliation', body: state(1), at: 1_000 });
      expect(await status.replace('ledger-reconciliation', state(2), 2_000, read.body)).toBe(true);
      expect(await status.replace('ledger-reconciliation', state(3), 3_000, read.body)).toBe(false);
      expect(await status.get('ledger-reconciliation')).toEqual({ kind: 'ledger-reconciliation', body: state(2), at: 2_000 });
      // Other kinds are untouched; a put of the kind still writes.
      expect(await status.get('health')).toBeNull();
    });

    it('replace: of writers racing from one read, exactly one wins (and from no record yet, too)', async () => {
      const { status } = subject();
      const n = options.concurrency ?? 20;
      const first = await Promise.all(Array.from({ length: n }, (_, i) => status.replace('ledger-reconciliation', { pass: 1, by: i }, 1_000 + i, null)));
      expect(first.filter(Boolean)).toHaveLength(1);
      const read = (await status.get('ledger-reconciliation'))!;
      expect(read.body['by']).toBe(first.indexOf(true));
      const second = await Promise.all(Array.from({ length: n }, (_, i) => status.replace('ledger-reconciliation', { pass: 2, by: i }, 2_000 + i, read.body)));
      expect(second.filter(Boolean)).toHaveLength(1);
      expect((await status.get('ledger-reconciliation'))!.body).toEqual({ pass: 2, by: second.indexOf(true) });
    });

    options.extraTestsFn?.(makeSubject);
  });
}
