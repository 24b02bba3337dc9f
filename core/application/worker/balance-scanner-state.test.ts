/**
 * The scanner's bookkeeping against a model of the chain: whatever blocks, final reads, settles and reorgs happen,
 * an anchored address shows exactly its balance at the cursor, and the checkpoint round trip loses nothing.
 */
import { runs } from '../../../contracts-tests/support/depth.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { BalanceChange, ChainBlock } from '../../ports/block-source.port.js';
import { anchor, applyBlock, dueForFinalRead, freshState, fromCheckpoint, rollback, settle, shown, toCheckpoint } from './balance-scanner-state.js';

const PEOPLE = ['TA', 'TB', 'TC'] as const;
const TOKEN = 'TUSDT';

type Op =
  | { kind: 'block'; changes: Array<{ who: number; token: boolean; delta: number }> }
  | { kind: 'read'; who: number; back: number }
  | { kind: 'settle'; back: number }
  | { kind: 'reorg'; back: number }
  | { kind: 'persist' };

const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('block' as const), changes: fc.array(fc.record({ who: fc.nat({ max: 2 }), token: fc.boolean(), delta: fc.integer({ min: -50, max: 50 }) }), { maxLength: 3 }) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('read' as const), who: fc.nat({ max: 2 }), back: fc.nat({ max: 6 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('settle' as const), back: fc.nat({ max: 4 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('reorg' as const), back: fc.integer({ min: 1, max: 4 }) }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'persist' as const }) },
);

describe('balance scanner bookkeeping', () => {
  it('property: an anchored address shows its balance at the cursor, through reads, settles, reorgs and restarts', () => {
    fc.assert(fc.property(fc.array(op, { minLength: 1, maxLength: 40 }), (ops) => {
      let s = freshState(1);
      // The chain as the model knows it: changes per block number (index), block 0 empty.
      let chain: BalanceChange[][] = [[]];
      let solid = 0;
      let branch = 0;
      const truth = (who: string, contract: string | null, at: number): bigint =>
        chain.slice(0, at + 1).flat().filter((c) => c.address === who && c.contract === contract).reduce((n, c) => n + c.delta, 0n);
      for (const o of ops) {
        const cursor = s.block.number;
        if (o.kind === 'block') {
          const n = cursor + 1;
          const changes = o.changes.map((c) => ({ address: PEOPLE[c.who]!, contract: c.token ? TOKEN : null, delta: BigInt(c.delta) }));
          chain = [...chain.slice(0, n), changes];
          const block: ChainBlock = { number: n, hash: `h${n}-${branch}`, parentHash: s.block.hash, timestamp: 0, transfers: [], changes, uncertain: [] };
          applyBlock(s, block, changes, []);
        } else if (o.kind === 'read') {
          // The scanner reads at the node's solidified block, which is no older than `final` (else it refuses the read)
          // and may be any later block up to the cursor: from then on that block is final.
          if (cursor < s.final || cursor < 0) continue;
          const at = Math.max(0, cursor - o.back, s.final);
          solid = Math.max(solid, at);
          const who = PEOPLE[o.who]!;
          anchor(s, who, at, new Map([[null, truth(who, null, at)], [TOKEN, truth(who, TOKEN, at)]]));
        } else if (o.kind === 'settle') {
          solid = Math.max(solid, cursor - o.back);
          // What the scanner does before settling: read every address the newly final blocks changed.
          for (const who of dueForFinalRead(s, [], solid)) anchor(s, who, solid, new Map([[null, truth(who, null, solid)], [TOKEN, truth(who, TOKEN, solid)]]));
          settle(s, solid);
        } else if (o.kind === 'reorg') {
          const fork = Math.max(cursor - o.back, solid, s.final);
          if (fork >= cursor) continue;
          rollback(s, fork);
          chain = chain.slice(0, fork + 1);
          branch += 1;
          expect(s.block.number).toBe(fork);
        } else {
          s = fromCheckpoint(structuredClone(toCheckpoint(s, 64, 1_000)));
        }
        for (const who of PEOPLE) {
          const got = shown(s, who, [null, TOKEN]);
          if (got === null) continue;
          expect([...got.values()], `${who} at ${s.block.number}`).toEqual([truth(who, null, s.block.number), truth(who, TOKEN, s.block.number)]);
        }
      }
    }), { numRuns: runs(400), seed: 7 });
  });

  it('a reorg returns the replaced blocks with their deposits, and forgets anchors read past the fork', () => {
    const s = freshState(10);
    const deposit = { id: 't1', txid: 't1', contract: null, internal: false, from: 'TX', to: 'TA', amount: 5n };
    applyBlock(s, { number: 10, hash: 'a', parentHash: '', timestamp: 0, transfers: [], changes: [], uncertain: [] }, [{ address: 'TA', contract: null, delta: 5n }], [deposit]);
    applyBlock(s, { number: 11, hash: 'b', parentHash: 'a', timestamp: 0, transfers: [], changes: [], uncertain: [] }, [], []);
    anchor(s, 'TB', 11, new Map([[null, 1n]]));
    const undone = rollback(s, 9);
    expect(undone.replaced.map((u) => u.deposits)).toEqual([[deposit]]);
    expect([...undone.addresses].sort()).toEqual(['TA', 'TB']);
    expect(s.anchors.has('TB')).toBe(false);
    expect(s.block).toEqual({ number: 9, hash: '' });
  });

  it('carries exact final changes into anchors without a read; an uncertain change waits for a read', () => {
    const s = freshState(1);
    anchor(s, 'TA', 0, new Map([[null, 100n]]));
    anchor(s, 'TB', 0, new Map([[null, 7n]]));
    const block = { number: 1, hash: 'a', parentHash: '', timestamp: 0, transfers: [], changes: [], uncertain: [] };
    applyBlock(s, block, [{ address: 'TA', contract: null, delta: -30n }, { address: 'TB', contract: null, delta: 1n }], [], ['TB']);
    expect(dueForFinalRead(s, [], 0)).toEqual([]);
    expect(dueForFinalRead(s, [], 1)).toEqual(['TB']);
    settle(s, 1);
    expect(s.anchors.get('TA')).toEqual({ address: 'TA', at: 1, balances: [{ contract: null, amount: 70n }] });
    expect(s.unfinal.map((u) => u.number)).toEqual([1]);
    anchor(s, 'TB', 1, new Map([[null, 9n]]));
    settle(s, 1);
    expect(s.unfinal).toEqual([]);
    expect(s.final).toBe(1);
    expect(shown(s, 'TB', [null])).toEqual(new Map([[null, 9n]]));
  });

  it('keeps only blocks that changed a managed address, and at most the newest anchors not bridging a change', () => {
    const s = freshState(1);
    applyBlock(s, { number: 1, hash: 'a', parentHash: '', timestamp: 0, transfers: [], changes: [], uncertain: [] }, [], []);
    expect(s.unfinal).toEqual([]);
    for (const [i, who] of ['TA', 'TB', 'TC'].entries()) anchor(s, who, i, new Map());
    expect(toCheckpoint(s, 64, 2).anchors.map((a) => a.address)).toEqual(['TC', 'TB']);
  });
});
