/**
 * BlockReceipts (the workflows' evidence from the scanner's blocks, issue #27) against a reference model: random
 * blocks on a chain with forks, rollbacks, redone passes, gaps, blocks without receipts and a clock that runs past
 * the staleness bound. Whatever the sequence, find(txid):
 * - says `included` exactly when a block of the model's current run holds it, with that block's receipt and the
 *   depth counted to the newest block held (never more than a node would say), and never claims solidification;
 * - says `absent` only for a transaction no block of the current run holds, while the reader is live and current;
 * - says nothing (null) once the reader's last pass is older than staleAfterMs, or while it runs behind its tip.
 * newestHead(maxAgeMs) is the newest block held, with its id and time, only while the last pass saw it as the tip and
 * ended less than maxAgeMs ago.
 */
import { runs } from '../../../contracts-tests/support/depth.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { BlockReceipt, ChainBlock } from '../../ports/block-source.port.js';
import { ManualClock } from '../../../adapters/memory/index.js';
import { BlockReceipts } from './block-receipts.js';

const TXIDS = ['aa', 'bb', 'cc', 'dd', 'ee', 'ff'].map((t) => t.repeat(32));

type Op =
  | { readonly kind: 'next'; readonly txs: readonly number[]; readonly fail: readonly boolean[]; readonly branch: number }
  | { readonly kind: 'reorg'; readonly depth: number }
  | { readonly kind: 'redo'; readonly back: number }
  | { readonly kind: 'gap' }
  | { readonly kind: 'no-receipts' }
  | { readonly kind: 'pass'; readonly behind: number }
  | { readonly kind: 'wait'; readonly ms: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('next' as const), txs: fc.uniqueArray(fc.integer({ min: 0, max: 5 }), { maxLength: 3 }), fail: fc.array(fc.boolean(), { minLength: 3, maxLength: 3 }), branch: fc.integer({ min: 0, max: 3 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('reorg' as const), depth: fc.integer({ min: 1, max: 3 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('redo' as const), back: fc.integer({ min: 0, max: 2 }) }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'gap' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'no-receipts' as const }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('pass' as const), behind: fc.constantFrom(0, 0, 1, 3) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('wait' as const), ms: fc.constantFrom(1_000, 3_000, 12_000) }) },
);

const receipt = (txid: string, failed: boolean, n: number): BlockReceipt => ({
  txid, success: !failed, reason: failed ? 'REVERT' : null, feeSun: BigInt(n * 10), netFeeSun: BigInt(n), energyFeeSun: BigInt(n * 9), energyUsed: failed ? 0 : n,
});

describe('BlockReceipts against a reference model', () => {
  it('answers included/absent/null exactly as the blocks of its current run say', () => {
    fc.assert(fc.property(fc.array(opArb, { minLength: 1, maxLength: 40 }), (ops) => {
      const clock = new ManualClock();
      const receipts = new BlockReceipts(clock, { staleAfterMs: 10_000, keepBlocks: 8 });
      // The model: the run of blocks the reader holds (consecutive, each the child of the one before), its last pass.
      let run: ChainBlock[] = [];
      let lastPass: { at: number; tip: number } | null = null;
      // The chain the "scanner" reads: block n on branch b has hash `n-b`.
      let chain: ChainBlock[] = [];
      const make = (number: number, branch: number, parentHash: string, txs: readonly number[], fail: readonly boolean[], withReceipts = true): ChainBlock => ({
        number, hash: `${number}-${branch}`, parentHash, timestamp: number * 3_000, transfers: [], changes: [], uncertain: [],
        ...(withReceipts ? { receipts: txs.map((t, i) => receipt(TXIDS[t]!, fail[i] ?? false, number)) } : {}),
      });
      const feed = (block: ChainBlock): void => {
        receipts.onBlock(block);
        if (block.receipts === undefined) run = [];
        else if (run.some((b) => b.number === block.number && b.hash === block.hash)) return;
        else {
          const kept = run.filter((b) => b.number < block.number);
          const last = kept.at(-1);
          run = last !== undefined && last.number === block.number - 1 && last.hash === block.parentHash ? [...kept, block] : [block];
        }
        run = run.filter((b) => b.number > block.number - 8);
      };
      for (const op of ops) {
        switch (op.kind) {
          case 'next': {
            const top = chain.at(-1);
            const block = make((top?.number ?? 99) + 1, op.branch, top?.hash ?? 'genesis', op.txs, op.fail);
            chain = [...chain, block];
            feed(block);
            break;
          }
          case 'reorg': {
            const fork = Math.max(0, chain.length - op.depth);
            const forkNumber = chain[fork - 1]?.number ?? 99;
            chain = chain.slice(0, fork);
            receipts.rollback(forkNumber);
            // Blocks the reader holds above the fork are replaced; one it holds at the fork is kept with those
            // below, and a run that does not reach the fork loses nothing (a run ending below the fork is kept).
            if ((run.at(-1)?.number ?? -1) > forkNumber) {
              run = run.filter((b) => b.number <= forkNumber);
              if (run.at(-1)?.number !== forkNumber) run = [];
            }
            break;
          }
          case 'redo': {
            const block = chain.at(-1 - op.back);
            if (block !== undefined) feed(block);
            break;
          }
          case 'gap': {
            const top = chain.at(-1);
            const block = make((top?.number ?? 99) + 2, 9, 'elsewhere', [], []);
            chain = [...chain, block];
            feed(block);
            break;
          }
          case 'no-receipts': {
            const top = chain.at(-1);
            const block = make((top?.number ?? 99) + 1, 0, top?.hash ?? 'genesis', [0], [false], false);
            chain = [...chain, block];
            feed(block);
            break;
          }
          case 'pass': {
            const tip = (run.at(-1)?.number ?? 0) + op.behind;
            receipts.onPass(tip);
            lastPass = { at: clock.now(), tip };
            break;
          }
          case 'wait':
            clock.advance(op.ms);
            break;
        }
        const newest = run.at(-1);
        expect(receipts.newestBlock()).toBe(newest?.number ?? null);
        // The newest block serves as a head read only while it is the tip of a pass younger than the age asked.
        const head = newest !== undefined && lastPass !== null && lastPass.tip === newest.number && clock.now() - lastPass.at < 3_000
          ? { number: newest.number, id: newest.hash, timestamp: newest.timestamp } : null;
        expect(receipts.newestHead(3_000)).toEqual(head);
        const live = newest !== undefined && lastPass !== null && clock.now() - lastPass.at <= 10_000;
        for (const txid of TXIDS) {
          const answer = receipts.find(txid);
          if (!live) {
            expect(answer).toBeNull();
            continue;
          }
          const holder = [...run].reverse().find((b) => b.receipts!.some((r) => r.txid === txid));
          if (holder !== undefined) {
            const r = holder.receipts!.find((x) => x.txid === txid)!;
            expect(answer?.kind).toBe('included');
            const state = (answer as Extract<typeof answer, { kind: 'included' }>).state;
            expect(state.blockNumber).toBe(holder.number);
            expect(state.feeSun).toBe(r.feeSun);
            if (r.success) expect(state).toMatchObject({ state: 'confirmed', confirmations: newest.number - holder.number + 1, solidified: false });
            else expect(state).toMatchObject({ state: 'failed', reason: 'REVERT' });
          } else if (lastPass!.tip - newest.number > 1) {
            expect(answer).toBeNull();
          } else {
            expect(answer).toMatchObject({ kind: 'absent', throughBlock: newest.number });
          }
        }
      }
    }), { numRuns: runs(1_000), seed: 27 });
  });

  it('counts the blocks read since a transaction was first asked about', () => {
    const clock = new ManualClock();
    const receipts = new BlockReceipts(clock);
    const block = (n: number, txs: string[] = []): ChainBlock => ({
      number: n, hash: `h${n}`, parentHash: `h${n - 1}`, timestamp: 0, transfers: [], changes: [], uncertain: [], receipts: txs.map((t) => receipt(t, false, n)),
    });
    receipts.onBlock(block(10));
    receipts.onPass(10);
    expect(receipts.find(TXIDS[0]!)).toEqual({ kind: 'absent', blocksWatched: 0, throughBlock: 10 });
    receipts.onBlock(block(11));
    receipts.onBlock(block(12));
    receipts.onPass(12);
    expect(receipts.find(TXIDS[0]!)).toEqual({ kind: 'absent', blocksWatched: 2, throughBlock: 12 });
    // Another transaction asked now starts its own count.
    expect(receipts.find(TXIDS[1]!)).toEqual({ kind: 'absent', blocksWatched: 0, throughBlock: 12 });
    receipts.onBlock(block(13, [TXIDS[0]!]));
    receipts.onPass(13);
    expect(receipts.find(TXIDS[0]!)).toMatchObject({ kind: 'included', state: { state: 'confirmed', blockNumber: 13, confirmations: 1 } });
  });

  it('newestSolidified: the highest solidified block the scanner read, with the time of its last read; never an older one', () => {
    fc.assert(fc.property(fc.array(fc.record({ number: fc.integer({ min: 0, max: 8 }), waitMs: fc.constantFrom(0, 1_000, 3_000) }), { maxLength: 20 }), (reads) => {
      const clock = new ManualClock();
      const receipts = new BlockReceipts(clock);
      let model: { number: number; id: string; at: number } | null = null;
      for (const { number, waitMs } of reads) {
        clock.advance(waitMs);
        receipts.onSolidified({ number, hash: `s${number}` });
        if (model === null || number >= model.number) model = { number, id: `s${number}`, at: clock.now() };
        expect(receipts.newestSolidified()).toEqual(model);
      }
      expect(receipts.newestSolidified()).toEqual(model);
    }), { numRuns: runs(200), seed: 39 });
  });
});
