/**
 * The endpoints a block scanner and a pending-aware client read: blocks by number and by range, the transaction
 * infos of a block (full and solidified), and the pending pool. Driven through real tronweb where it has a method,
 * else over plain HTTP.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Devnet } from './index.js';
import { startTestDevnet, trx, wallet, type Wallet } from './test-helpers.js';

type Json = Record<string, unknown>;

describe('block, block-range, per-block transaction info and pending-pool endpoints', () => {
  let devnet: Devnet;
  let a: Wallet;
  let b: Wallet;
  const post = async (path: string, body: unknown): Promise<Json> =>
    (await fetch(devnet.url + path, { method: 'POST', body: JSON.stringify(body) })).json() as Promise<Json>;
  beforeAll(async () => {
    devnet = await startTestDevnet();
    a = wallet(devnet, 'scanner-a');
    b = wallet(devnet, 'scanner-b');
    devnet.fund(a.address, trx(100));
    devnet.fundToken(a.address, 5_000_000n);
  });
  afterAll(() => devnet.close());

  it('the pool lists a broadcast transaction until a block takes it', async () => {
    const signed = await a.tw.trx.sign(await a.tw.transactionBuilder.sendTrx(b.address, trx(1), a.address));
    expect((await a.tw.trx.sendRawTransaction(signed)).result).toBe(true);
    expect(await post('/wallet/gettransactionfrompending', { value: signed.txID })).toMatchObject({ txID: signed.txID, raw_data_hex: signed.raw_data_hex });
    expect(await post('/wallet/gettransactionlistfrompending', {})).toEqual({ txId: [signed.txID] });
    expect(await post('/wallet/getpendingsize', {})).toEqual({ pendingSize: 1 });
    devnet.mine(1);
    expect(await post('/wallet/gettransactionfrompending', { value: signed.txID })).toEqual({});
    expect(await post('/wallet/getpendingsize', {})).toEqual({ pendingSize: 0 });
  });

  it('getblockbynum, getblockbylimitnext and gettransactioninfobyblocknum agree on what a block holds', async () => {
    const usdt = await a.tw.contract().at(devnet.usdtAddress);
    const t1: string = await usdt.methods.transfer(b.address, 1_000).send({ feeLimit: trx(20) });
    const signed = await a.tw.trx.sign(await a.tw.transactionBuilder.sendTrx(b.address, trx(2), a.address));
    await a.tw.trx.sendRawTransaction(signed);
    const n = devnet.mine(1);
    const block = await a.tw.trx.getBlockByNumber(n);
    expect(block.block_header.raw_data.number).toBe(n);
    expect((block.transactions ?? []).map((t) => t.txID).sort()).toEqual([t1, signed.txID].sort());
    const range = await a.tw.trx.getBlockRange(n - 2, n);
    expect(range.map((x) => x.block_header.raw_data.number)).toEqual([n - 2, n - 1, n]);
    const infos = (await post('/wallet/gettransactioninfobyblocknum', { num: n })) as unknown as Json[];
    expect(infos.map((i) => i['id']).sort()).toEqual([t1, signed.txID].sort());
    const usdtInfo = infos.find((i) => i['id'] === t1)!;
    expect(usdtInfo).toMatchObject({ blockNumber: n, receipt: { result: 'SUCCESS' } });
    expect((usdtInfo['log'] as unknown[]).length).toBe(1);
  });

  it('the walletsolidity twins answer only for solidified blocks', async () => {
    const n = devnet.chain.head.number;
    const solidNow = await post('/walletsolidity/getblockbynum', { num: n });
    expect(solidNow).toEqual({});
    expect(await post('/walletsolidity/gettransactioninfobyblocknum', { num: n })).toEqual([]);
    devnet.mine(devnet.chain.params.solidifyLag);
    const solid = await post('/walletsolidity/getblockbynum', { num: n });
    expect((solid['block_header'] as { raw_data: Json }).raw_data['number']).toBe(n);
    const infos = (await post('/walletsolidity/gettransactioninfobyblocknum', { num: n })) as unknown as Json[];
    expect(infos.length).toBe(((await post('/wallet/getblockbynum', { num: n }))['transactions'] as unknown[] | undefined)?.length ?? 0);
    const limited = await post('/walletsolidity/getblockbylimitnext', { startNum: n - 1, endNum: n + 5 });
    expect((limited['block'] as Json[]).map((x) => (x['block_header'] as { raw_data: Json }).raw_data['number'])).toEqual([n - 1, n]);
  });
});
