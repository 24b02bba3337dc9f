import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Devnet } from './index.js';
import { pay, startTestDevnet, trx, wallet, type Wallet } from './test-helpers.js';

describe('reorg: the last N blocks replaced by a longer branch', () => {
  let devnet: Devnet;
  let payer: Wallet;
  beforeAll(async () => {
    devnet = await startTestDevnet();
    payer = wallet(devnet, 'reorg-payer');
    devnet.fund(payer.address, trx(10_000));
    devnet.mine(25);
  });
  afterAll(() => devnet.close());

  const balance = (address: string) => payer.tw.trx.getUnconfirmedBalance(address);
  const blockId = async (n: number) => (await payer.tw.trx.getBlockByNumber(n)).blockID as string;

  it('re-includes the replaced transactions in new blocks with new ids, parent-linked to the fork point', async () => {
    const to = wallet(devnet, 'reorg-to').address;
    const txid = pay.trx(devnet, payer.key, to, trx(2));
    const included = devnet.mine(1);
    devnet.mine(1);
    const head = devnet.info().head_number;
    const oldIds = [await blockId(head - 1), await blockId(head)];
    const result = devnet.chain.reorg(2);
    expect(result.fork).toBe(head - 2);
    expect(result.replaced.map((b) => b.number)).toEqual([head - 1, head]);
    expect(result.dropped).toEqual([]);
    expect(devnet.info().head_number).toBe(head + 1);
    const newIds = [await blockId(head - 1), await blockId(head)];
    expect(newIds[0]).not.toBe(oldIds[0]);
    expect(newIds[1]).not.toBe(oldIds[1]);
    const first = await payer.tw.trx.getBlockByNumber(head - 1);
    expect(first.block_header.raw_data.parentHash).toBe(await blockId(head - 2));
    expect(first.transactions?.map((t: { txID: string }) => t.txID)).toEqual([txid]);
    expect(included).toBe(head - 1);
    expect(await balance(to)).toBe(trx(2));
  });

  it("keep: 'none' makes the replaced payments vanish from blocks, infos and balances", async () => {
    const to = wallet(devnet, 'reorg-vanish').address;
    const before = await balance(payer.address);
    const txid = pay.trx(devnet, payer.key, to, trx(5));
    devnet.mine(1);
    expect(await balance(to)).toBe(trx(5));
    const result = devnet.chain.reorg(1, { keep: 'none' });
    expect(result.dropped).toEqual([txid]);
    expect(await balance(to)).toBe(0);
    expect(await balance(payer.address)).toBe(before);
    expect(await payer.tw.trx.getUnconfirmedTransactionInfo(txid)).toEqual({});
  });

  it('refuses to replace solidified blocks and a branch that is not longer', () => {
    const info = devnet.info();
    expect(() => devnet.chain.reorg(info.head_number - info.solidified_number + 1)).toThrow(/solidified/);
    expect(() => devnet.chain.reorg(2, { length: 2 })).toThrow(/longer/);
    expect(devnet.info().head_number).toBe(info.head_number);
  });

  it('property: after any reorg the chain is parent-linked, solidified blocks never change, and every included transaction is in exactly one block', () => {
    fc.assert(fc.property(fc.array(fc.record({ pays: fc.nat({ max: 3 }), mine: fc.integer({ min: 1, max: 3 }), depth: fc.integer({ min: 1, max: 5 }), keep: fc.boolean() }), { minLength: 1, maxLength: 6 }), (steps) => {
      for (const step of steps) {
        for (let i = 0; i < step.pays; i += 1) pay.trx(devnet, payer.key, wallet(devnet, `reorg-p-${i}`).address, 1 + i);
        devnet.mine(step.mine);
        const solidBefore = devnet.chain.blocks.slice(0, devnet.chain.solidNumber + 1).map((b) => b.id);
        const depth = Math.min(step.depth, devnet.chain.head.number - devnet.chain.solidNumber);
        if (depth >= 1) devnet.chain.reorg(depth, { keep: step.keep ? 'all' : 'none' });
        expect(devnet.chain.blocks.slice(0, solidBefore.length).map((b) => b.id)).toEqual(solidBefore);
        const blocks = devnet.chain.blocks;
        for (let n = 1; n < blocks.length; n += 1) expect(blocks[n]!.parentHash).toBe(blocks[n - 1]!.id);
        const ids = blocks.flatMap((b) => b.txIds);
        expect(new Set(ids).size).toBe(ids.length);
        for (const id of ids) expect(devnet.chain.tx(id)).toBeDefined();
        expect(devnet.chain.txs.size).toBe(ids.length);
      }
    }), { numRuns: 15, seed: 11 });
  });
});
