/**
 * TronBlockSource against the in-process devnet (manual blocks), with transfers made by real tronweb clients.
 * Adapter-only test: BlockSource has one adapter, so there is no shared contract suite yet.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Devnet } from '../tron-devnet/index.js';
import { solidify, startTestDevnet, trx, wallet, type Wallet } from '../tron-devnet/test-helpers.js';
import { TronBlockSource } from './tron-block-source.js';

describe('TronBlockSource on the devnet', () => {
  let devnet: Devnet;
  let payer: Wallet;
  let source: TronBlockSource;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  let usdt: any;
  beforeAll(async () => {
    devnet = await startTestDevnet();
    payer = wallet(devnet, 'block-source-payer');
    devnet.fund(payer.address, trx(1_000));
    devnet.fundToken(payer.address, 50_000_000n);
    devnet.mine(1);
    usdt = await payer.tw.contract().at(devnet.usdtAddress);
    source = new TronBlockSource({ fullHost: devnet.url, timeoutMs: 5_000 });
  });
  afterAll(() => devnet.close());

  it('reports TRX transfers and successful USDT Transfer events of a block, and leaves reverted calls out', async () => {
    const alice = wallet(devnet, 'bs-alice');
    const bob = wallet(devnet, 'bs-bob');
    const trxTx = await payer.tw.trx.sendTransaction(alice.address, trx(3));
    const usdtTx: string = await usdt.methods.transfer(bob.address, 1_234_567).send({ feeLimit: trx(50) });
    // More than the payer holds: the call reverts on chain and emits no Transfer event.
    await usdt.methods.transfer(alice.address, 999_000_000).send({ feeLimit: trx(50) });
    const number = devnet.mine(1);
    expect(await source.latest('head')).toBe(number);
    const block = await source.block(number, 'head');
    expect(block?.number).toBe(number);
    expect(block?.timestamp).toBeGreaterThan(0);
    expect(block?.transfers).toEqual([
      { txid: trxTx.txid, contract: null, from: payer.address, to: alice.address, amount: 3_000_000n },
      { txid: usdtTx, contract: devnet.usdtAddress, from: payer.address, to: bob.address, amount: 1_234_567n },
    ]);
  });

  it('answers null for a block beyond the head, and an empty list for a block without transfers', async () => {
    const head = await source.latest('head');
    expect(await source.block(head + 1, 'head')).toBeNull();
    const empty = devnet.mine(1);
    expect(await source.block(empty, 'head')).toMatchObject({ number: empty, transfers: [] });
  });

  it('the solidified level lags the head: a fresh block is not there until it is solidified', async () => {
    const carol = wallet(devnet, 'bs-carol');
    await payer.tw.trx.sendTransaction(carol.address, trx(1));
    const number = devnet.mine(1);
    expect(await source.latest('solidified')).toBeLessThan(number);
    expect(await source.block(number, 'solidified')).toBeNull();
    solidify(devnet);
    expect(await source.latest('solidified')).toBeGreaterThanOrEqual(number);
    const block = await source.block(number, 'solidified');
    expect(block?.transfers.map((t) => [t.to, t.amount])).toEqual([[carol.address, 1_000_000n]]);
  });

  it('maps an unreachable node to CHAIN-NODE-UNAVAILABLE', async () => {
    devnet.chain.faults.node_down = true;
    try {
      await expect(source.latest('head')).rejects.toMatchObject({ code: 'CHAIN-NODE-UNAVAILABLE' });
    } finally {
      devnet.chain.faults.node_down = false;
    }
  });
});
