import { runs } from './support/depth.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ScanCheckpoint, ScanClaim, ScanCursorStore } from '../core/ports/scan-cursor-store.port.js';
import { type Closable, type ContractOptions, type MakeSubject, useFreshSubject, withSubject } from './support/contract-options.js';

/** What the scan cursor contract needs: an empty store. */
export interface ScanCursorStoreSubject extends Closable {
  readonly cursors: ScanCursorStore;
}

const hash = (n: number): string => n.toString(16).padStart(16, '0') + 'ab'.repeat(24);

/** A checkpoint with every field in use: big amounts, a null contract, deposits and anchors. */
export function sampleCheckpoint(block = 1_000): ScanCheckpoint {
  return {
    genesis: hash(0),
    block: { number: block, hash: hash(block) },
    recent: [{ number: block - 1, hash: hash(block - 1) }, { number: block, hash: hash(block) }],
    final: block - 1,
    unfinal: [{
      number: block,
      hash: hash(block),
      changes: [
        { address: 'TNm1Ns5BCMsW7Aj3cpEr9dVjgTWA6FYUxe', contract: null, delta: -1_234_567n },
        { address: 'TNm1Ns5BCMsW7Aj3cpEr9dVjgTWA6FYUxe', contract: 'TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf', delta: 2n ** 70n },
      ],
      deposits: [{
        id: `${hash(7)}:log:0`, txid: hash(7), contract: 'TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf', internal: false,
        from: 'TQn9Y2khEsLJW1ChVWFMSMeRDow5KcbLSE', to: 'TNm1Ns5BCMsW7Aj3cpEr9dVjgTWA6FYUxe', amount: 2n ** 70n,
      }],
      uncertain: ['TNm1Ns5BCMsW7Aj3cpEr9dVjgTWA6FYUxe'],
    }],
    anchors: [{
      address: 'TNm1Ns5BCMsW7Aj3cpEr9dVjgTWA6FYUxe',
      at: block - 19,
      balances: [{ contract: null, amount: 9_007_199_254_740_993n }, { contract: 'TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf', amount: 0n }],
    }],
  };
}

const held = (claim: ScanClaim): number => {
  if (!claim.held) throw new Error(`expected the lease, ${claim.owner} holds it until ${claim.until}`);
  return claim.version;
};

/** The ScanCursorStore contract (core/ports/scan-cursor-store.port.ts). */
export function describeScanCursorStoreContract(
  name: string,
  makeSubject: MakeSubject<ScanCursorStoreSubject>,
  options: ContractOptions<ScanCursorStoreSubject> = {},
): void {
  describe(`ScanCursorStore contract: ${name}`, () => {
    const subject = useFreshSubject(makeSubject);

    it('a first claim holds the lease with no checkpoint; another owner is told who holds it until when', async () => {
      const { cursors } = subject();
      const first = await cursors.claim('balance-scan:head', 'w1', 1_000, 61_000);
      expect(first).toMatchObject({ held: true, checkpoint: null });
      expect(await cursors.claim('balance-scan:head', 'w2', 2_000, 62_000)).toEqual({ held: false, owner: 'w1', until: 61_000 });
      expect(await cursors.claim('balance-scan:solidified', 'w2', 2_000, 62_000)).toMatchObject({ held: true, checkpoint: null });
    });

    it('saves and returns the checkpoint exactly (bigints beyond 2^64, null contracts), each step raising the version', async () => {
      const { cursors } = subject();
      const v1 = held(await cursors.claim('s', 'w1', 0, 60_000));
      const v2 = await cursors.save('s', 'w1', v1, sampleCheckpoint(), 60_000);
      expect(v2).toBeGreaterThan(v1);
      const again = await cursors.claim('s', 'w1', 1, 60_001);
      expect(held(again)).toBeGreaterThan(v2!);
      expect(again).toMatchObject({ checkpoint: sampleCheckpoint() });
    });

    it('keeps the chain\'s genesis with the cursor; a checkpoint saved without one (before it was recorded) comes back without one', async () => {
      const { cursors } = subject();
      const v = held(await cursors.claim('s', 'w', 0, 60_000));
      const { genesis, ...legacy } = sampleCheckpoint(7);
      const v2 = (await cursors.save('s', 'w', v, legacy, 60_000))!;
      const before = await cursors.claim('s', 'w', 1, 60_000);
      expect(before).toMatchObject({ checkpoint: legacy });
      expect(before.held ? before.checkpoint?.genesis : 'not held').toBeUndefined();
      await cursors.save('s', 'w', held(before), sampleCheckpoint(8), 60_000);
      expect(v2).toBeGreaterThan(v);
      expect(await cursors.claim('s', 'w', 2, 60_000)).toMatchObject({ checkpoint: { genesis, block: { number: 8 } } });
    });

    it('genesisIds lists each genesis the stored checkpoints name once, without a lease; none before a save or without one', async () => {
      const { cursors } = subject();
      expect(await cursors.genesisIds()).toEqual([]);
      const { genesis: _none, ...legacy } = sampleCheckpoint(3);
      await cursors.save('legacy', 'w', held(await cursors.claim('legacy', 'w', 0, 60_000)), legacy, 60_000);
      expect(await cursors.genesisIds()).toEqual([]);
      await cursors.save('a', 'w', held(await cursors.claim('a', 'w', 0, 60_000)), sampleCheckpoint(4), 60_000);
      await cursors.save('b', 'x', held(await cursors.claim('b', 'x', 0, 60_000)), { ...sampleCheckpoint(5), genesis: 'ff'.repeat(32) }, 60_000);
      await cursors.save('c', 'y', held(await cursors.claim('c', 'y', 0, 60_000)), sampleCheckpoint(6), 60_000);
      expect([...await cursors.genesisIds()].sort()).toEqual([sampleCheckpoint().genesis, 'ff'.repeat(32)].sort());
    });

    it('refuses a save at a stale version or by an owner without the lease, storing nothing', async () => {
      const { cursors } = subject();
      const v1 = held(await cursors.claim('s', 'w1', 0, 60_000));
      const v2 = (await cursors.save('s', 'w1', v1, sampleCheckpoint(10), 60_000))!;
      expect(await cursors.save('s', 'w1', v1, sampleCheckpoint(11), 60_000)).toBeNull();
      expect(await cursors.save('s', 'w2', v2, sampleCheckpoint(12), 60_000)).toBeNull();
      expect(await cursors.claim('s', 'w1', 1, 60_000)).toMatchObject({ held: true, checkpoint: sampleCheckpoint(10) });
    });

    it('an expired lease is taken over; the previous owner can then neither save nor claim', async () => {
      const { cursors } = subject();
      const a = held(await cursors.claim('s', 'a', 0, 10_000));
      const b = await cursors.claim('s', 'b', 10_000, 70_000);
      expect(b).toMatchObject({ held: true, checkpoint: null });
      expect(await cursors.save('s', 'a', a, sampleCheckpoint(), 80_000)).toBeNull();
      expect(await cursors.claim('s', 'a', 20_000, 80_000)).toEqual({ held: false, owner: 'b', until: 70_000 });
      expect(await cursors.save('s', 'b', held(b), sampleCheckpoint(5), 70_000)).not.toBeNull();
    });

    it('what a claim returns is a copy: changing it changes nothing stored', async () => {
      const { cursors } = subject();
      const v = held(await cursors.claim('s', 'w', 0, 60_000));
      await cursors.save('s', 'w', v, sampleCheckpoint(), 60_000);
      const got = await cursors.claim('s', 'w', 0, 60_000);
      if (got.held && got.checkpoint !== null) (got.checkpoint.recent as { number: number; hash: string }[]).push({ number: 1, hash: 'x' });
      expect(await cursors.claim('s', 'w', 0, 60_000)).toMatchObject({ checkpoint: sampleCheckpoint() });
    });

    it('concurrent first claims by many owners: exactly one holds the lease', async () => {
      const { cursors } = subject();
      const owners = Array.from({ length: options.concurrency ?? 50 }, (_, i) => `w${i}`);
      const claims = await Promise.all(owners.map((o) => cursors.claim('race', o, 0, 60_000)));
      expect(claims.filter((c) => c.held)).toHaveLength(1);
    });

    it('concurrent saves at one version: exactly one is stored', async () => {
      const { cursors } = subject();
      const v = held(await cursors.claim('race', 'w', 0, 60_000));
      const blocks = Array.from({ length: Math.min(options.concurrency ?? 50, 20) }, (_, i) => 100 + i);
      const results = await Promise.all(blocks.map((b) => cursors.save('race', 'w', v, sampleCheckpoint(b), 60_000)));
      const won = results.flatMap((r, i) => (r === null ? [] : [blocks[i]!]));
      expect(won).toHaveLength(1);
      expect(await cursors.claim('race', 'w', 0, 60_000)).toMatchObject({ checkpoint: sampleCheckpoint(won[0]) });
    });

    it('property: any sequence of claims and saves by two owners behaves like the reference model', async () => {
      const op = fc.oneof(
        fc.record({ kind: fc.constant('claim' as const), owner: fc.constantFrom('a', 'b'), at: fc.nat({ max: 100 }), lease: fc.nat({ max: 60 }) }),
        fc.record({ kind: fc.constant('save' as const), owner: fc.constantFrom('a', 'b'), stale: fc.boolean(), block: fc.nat({ max: 1_000_000 }), lease: fc.nat({ max: 60 }) }),
      );
      await fc.assert(fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 14 }), async (ops) => {
        await withSubject(makeSubject, async ({ cursors }) => {
          const model = { owner: null as string | null, until: 0, block: null as number | null };
          const versions = new Map<string, number>();
          let now = 0;
          for (const o of ops) {
            if (o.kind === 'claim') {
              now += o.at;
              const got = await cursors.claim('p', o.owner, now, now + o.lease);
              const free = model.owner === null || model.owner === o.owner || model.until <= now;
              expect(got.held).toBe(free);
              if (got.held) {
                expect(got.checkpoint?.block.number ?? null).toBe(model.block);
                model.owner = o.owner;
                model.until = now + o.lease;
                versions.set(o.owner, got.version);
              } else expect(got).toEqual({ held: false, owner: model.owner, until: model.until });
            } else {
              const known = versions.get(o.owner);
              if (known === undefined) continue;
              const version = o.stale ? known - 1 : known;
              const saved = await cursors.save('p', o.owner, version, sampleCheckpoint(o.block), now + o.lease);
              const ok = !o.stale && model.owner === o.owner;
              expect(saved !== null).toBe(ok);
              if (saved !== null) {
                model.block = o.block;
                model.until = now + o.lease;
                versions.set(o.owner, saved);
              }
            }
          }
        });
      }), { numRuns: options.numRuns ?? runs(50) });
    });

    options.extraTestsFn?.(makeSubject);
  });
}
