import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { BlockSource, ChainBlock } from '../core/ports/block-source.port.js';
import { type Closable, type MakeSubject, useFreshSubject } from './support/contract-options.js';
import { itUnless } from './support/skipped.js';

/** Drives the chain behind a BlockSource under test: funded payer, payments, blocks. */
export interface BlockSourceChainDriver {
  /** A fresh address with no history (deterministic per label). */
  address(label: string): string;
  /** Sends TRX from the funded payer (a transaction of its own); returns the txid. */
  payTrx(to: string, sun: number): Promise<string>;
  /** Sends tokens of the subject's `token` from the payer. */
  payToken(to: string, amount: bigint): Promise<string>;
  /** A token transfer that reverts (e.g. more than the payer holds): mined, fee charged, nothing moved. */
  failingTokenPayment(to: string): Promise<string>;
  /** TRX paid from inside a contract call (internal transactions); capability `internal`. */
  payInternal?(to: string | readonly [string, string], sun: number): Promise<string>;
  /** Produces blocks; returns the new head number. */
  mine(blocks: number): Promise<number>;
  /** Produces blocks until everything so far is solidified. */
  solidify(): Promise<void>;
  /** Replaces the last `depth` blocks with a longer branch that leaves their transactions out; capability `reorg`. */
  reorg?(depth: number): Promise<void>;
}

/** What the BlockSource contract needs. */
export interface BlockSourceSubject extends Closable {
  readonly source: BlockSource;
  /** A TRC20 token the payer holds. */
  readonly token: string;
  readonly chain: BlockSourceChainDriver;
}

/** Switches for what the chain behind the subject can do. */
export interface BlockSourceCapabilities {
  /** Contract-internal TRX transfers can be made on demand. */
  readonly internal: boolean;
  /** Reorgs can be made on demand. */
  readonly reorg: boolean;
  /** fast-check runs of the property (default 6). */
  readonly numRuns?: number;
}

async function blocks(source: BlockSource, from: number, to: number): Promise<ChainBlock[]> {
  const out: ChainBlock[] = [];
  for (let n = from; n <= to; n += 1) {
    const b = await source.block(n, 'head');
    if (b === null) throw new Error(`block ${n} missing`);
    out.push(b);
  }
  return out;
}

/** Σ of the blocks' changes for one (address, asset). */
const sum = (bs: readonly ChainBlock[], address: string, contract: string | null): bigint =>
  bs.flatMap((b) => b.changes).filter((c) => c.address === address && c.contract === contract).reduce((n, c) => n + c.delta, 0n);

/** The BlockSource contract (core/ports/block-source.port.ts): the blocks' changes add up to the final balances. */
export function describeBlockSourceContract(name: string, makeSubject: MakeSubject<BlockSourceSubject>, caps: BlockSourceCapabilities): void {
  const suite = `BlockSource contract: ${name}`;
  describe(suite, () => {
    const subject = useFreshSubject(makeSubject);
    const itWithInternal = itUnless(caps.internal ? null : 'capability internal is off: the subject cannot make contract-internal TRX transfers', suite);
    const itWithReorg = itUnless(caps.reorg ? null : 'capability reorg is off: the subject cannot make a reorg', suite);

    it('heads move with blocks, the solidified head trails, blocks link by parent hash, a future block is null', async () => {
      const { source, chain } = subject();
      const before = await source.head('head');
      const mined = await chain.mine(3);
      const head = await source.head('head');
      expect(head.number).toBe(mined);
      expect(head.number).toBeGreaterThan(before.number);
      expect((await source.head('solidified')).number).toBeLessThanOrEqual(head.number);
      const [a, b] = await blocks(source, head.number - 1, head.number);
      expect(b!.parentHash).toBe(a!.hash);
      expect(b!.hash).toBe(head.hash);
      expect(await source.block(head.number + 5, 'head')).toBeNull();
      expect(await source.block(head.number, 'solidified')).toBeNull();
    });

    it('the genesis is block 0, the same at every ask and as blocks move, the parent of block 1', async () => {
      const { source, chain } = subject();
      const genesis = await source.genesis();
      expect(genesis.number).toBe(0);
      expect(genesis.hash).toMatch(/^[0-9a-f]{64}$/);
      await chain.mine(2);
      expect(await source.genesis()).toEqual(genesis);
      expect((await source.block(1, 'head'))?.parentHash).toBe(genesis.hash);
    });

    it('lists TRX and token transfers with stable ids, and changes that equal the final balances moved', async () => {
      const { source, chain, token } = subject();
      const [alice, bob] = [chain.address('bs-alice'), chain.address('bs-bob')];
      await chain.solidify();
      const start = await source.finalBalances([alice, bob], [null, token]);
      const trx = await chain.payTrx(alice, 7_000_000);
      const usdt = await chain.payToken(bob, 2_500_000n);
      const failed = await chain.failingTokenPayment(alice);
      const n = await chain.mine(1);
      const block = (await source.block(n, 'head'))!;
      expect(block.transfers).toEqual(expect.arrayContaining([
        { id: trx, txid: trx, contract: null, internal: false, from: expect.any(String), to: alice, amount: 7_000_000n },
        { id: `${usdt}:log:0`, txid: usdt, contract: token, internal: false, from: expect.any(String), to: bob, amount: 2_500_000n },
      ]));
      expect(block.transfers.some((t) => t.txid === failed)).toBe(false);
      await chain.solidify();
      const end = await source.finalBalances([alice, bob], [null, token]);
      const moved = await blocks(source, start.at.number + 1, end.at.number);
      for (const who of [alice, bob]) {
        for (const asset of [null, token]) expect(end.balances.get(who)!.get(asset)! - start.balances.get(who)!.get(asset)!).toBe(sum(moved, who, asset));
      }
      expect(end.balances.get(alice)!.get(null)).toBe(7_000_000n);
      expect(end.balances.get(bob)!.get(token)).toBe(2_500_000n);
    });

    it('final balances leave out unsolidified blocks and name the solidified block they are at', async () => {
      const { source, chain } = subject();
      const carol = chain.address('bs-carol');
      await chain.payTrx(carol, 1_000_000);
      await chain.mine(1);
      const early = await source.finalBalances([carol], [null]);
      expect(early.balances.get(carol)!.get(null)).toBe(0n);
      expect(early.at).toEqual(await source.head('solidified'));
      await chain.solidify();
      expect((await source.finalBalances([carol], [null])).balances.get(carol)!.get(null)).toBe(1_000_000n);
    });

    itWithInternal('counts TRX paid from inside a contract call as internal transfers', async () => {
      const { source, chain } = subject();
      const [dan, eve] = [chain.address('bs-dan'), chain.address('bs-eve')];
      const txid = await chain.payInternal!([dan, eve], 9);
      const n = await chain.mine(1);
      const block = (await source.block(n, 'head'))!;
      expect(block.transfers.filter((t) => t.txid === txid).map((t) => [t.id, t.to, t.amount, t.internal]))
        .toEqual([[`${txid}:internal:0`, dan, 4n, true], [`${txid}:internal:1`, eve, 5n, true]]);
      expect(sum([block], dan, null)).toBe(4n);
      expect(sum([block], eve, null)).toBe(5n);
    });

    itWithReorg('after a reorg the same number reads the new branch', async () => {
      const { source, chain } = subject();
      const fay = chain.address('bs-fay');
      await chain.payTrx(fay, 3_000_000);
      const n = await chain.mine(1);
      const old = (await source.block(n, 'head'))!;
      await chain.reorg!(1);
      const fresh = (await source.block(n, 'head'))!;
      expect(fresh.hash).not.toBe(old.hash);
      expect(fresh.parentHash).toBe(old.parentHash);
      expect(fresh.transfers).toEqual([]);
    });

    it('property: for random payments, the changes of the blocks between two final reads add up to their difference', async () => {
      const { source, chain, token } = subject();
      const people = [chain.address('bs-p0'), chain.address('bs-p1'), chain.address('bs-p2')];
      const pay = fc.record({ to: fc.nat({ max: 2 }), kind: fc.constantFrom(...(caps.internal ? ['trx', 'token', 'internal'] as const : ['trx', 'token'] as const)), amount: fc.integer({ min: 1, max: 5_000_000 }), mine: fc.boolean() });
      await fc.assert(fc.asyncProperty(fc.array(pay, { minLength: 1, maxLength: 6 }), async (pays) => {
        await chain.solidify();
        const start = await source.finalBalances(people, [null, token]);
        for (const p of pays) {
          const to = people[p.to]!;
          if (p.kind === 'trx') await chain.payTrx(to, p.amount);
          else if (p.kind === 'token') await chain.payToken(to, BigInt(p.amount));
          else await chain.payInternal!(to, p.amount);
          if (p.mine) await chain.mine(1);
        }
        await chain.solidify();
        const end = await source.finalBalances(people, [null, token]);
        const moved = await blocks(source, start.at.number + 1, end.at.number);
        for (const who of people) {
          for (const asset of [null, token]) expect(end.balances.get(who)!.get(asset)! - start.balances.get(who)!.get(asset)!).toBe(sum(moved, who, asset));
        }
      }), { numRuns: caps.numRuns ?? 6 });
    });
  });
}
