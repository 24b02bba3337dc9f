import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Devnet } from './index.js';
import { solidify, startTestDevnet, trx, wallet, type Wallet } from './test-helpers.js';

const utf8 = (hex: string): string => Buffer.from(hex, 'hex').toString('utf8');

describe('TRX transfers, bandwidth and the solidified view (real tronweb)', () => {
  let devnet: Devnet;
  let alice: Wallet;
  let bob: Wallet;
  beforeAll(async () => {
    devnet = await startTestDevnet();
    alice = wallet(devnet, 'alice');
    bob = wallet(devnet, 'bob');
    devnet.fund(alice.address, trx(100));
  });
  afterAll(() => devnet.close());

  it('activating a fresh address costs the sender 1.1 TRX beyond the amount (1 TRX fee + 0.1 TRX bandwidth burn)', async () => {
    const res = await alice.tw.trx.sendTransaction(bob.address, trx(5));
    expect(res.result).toBe(true);
    devnet.mine(1);
    expect(await alice.tw.trx.getUnconfirmedBalance(alice.address)).toBe(trx(100) - trx(5) - 1_100_000);
    expect(await alice.tw.trx.getUnconfirmedBalance(bob.address)).toBe(trx(5));
    const info = await alice.tw.trx.getUnconfirmedTransactionInfo(res.transaction.txID);
    expect(info.fee).toBe(1_100_000);
    expect(info.receipt).toEqual({ net_fee: 100_000 });
    expect(info.contractResult).toEqual(['']);
    const tx = await alice.tw.trx.getTransaction(res.transaction.txID);
    expect(tx.ret?.[0]?.contractRet).toBe('SUCCESS');
    expect(tx.raw_data_hex).toBe(res.transaction.raw_data_hex);
  });

  it('a transfer to an existing account uses the 600 free bandwidth bytes, no fee', async () => {
    const before = await alice.tw.trx.getUnconfirmedBalance(alice.address);
    const res = await alice.tw.trx.sendTransaction(bob.address, trx(1));
    devnet.mine(1);
    const info = await alice.tw.trx.getUnconfirmedTransactionInfo(res.transaction.txID);
    expect(info.fee).toBeUndefined();
    const bytes = info.receipt.net_usage as number;
    expect(bytes).toBeGreaterThan(250);
    expect(bytes).toBeLessThan(300);
    expect(await alice.tw.trx.getUnconfirmedBalance(alice.address)).toBe(before - trx(1));
    const r = await alice.tw.trx.getAccountResources(alice.address);
    expect(r.freeNetLimit).toBe(600);
    expect(r.freeNetUsed).toBe(bytes);
    expect(await alice.tw.trx.getBandwidth(alice.address)).toBe(600 - bytes);
  });

  it('burns 1,000 sun per byte once free bandwidth is exhausted, and free bandwidth recovers after 24 h', async () => {
    // Same head + same amount would be the same txID (tronweb takes the timestamp from the head block).
    expect((await alice.tw.trx.sendTransaction(bob.address, trx(1))).result).toBe(true);
    const res = await alice.tw.trx.sendTransaction(bob.address, trx(1) + 1);
    expect(res.result).toBe(true);
    devnet.mine(1);
    const info = await alice.tw.trx.getUnconfirmedTransactionInfo(res.transaction.txID);
    expect(info.receipt.net_fee).toBeGreaterThan(250_000);
    expect(info.fee).toBe(info.receipt.net_fee);
    devnet.advance(12 * 3_600_000);
    const half = (await alice.tw.trx.getAccountResources(alice.address)).freeNetUsed;
    expect(half).toBeGreaterThan(0);
    devnet.advance(12 * 3_600_000);
    expect((await alice.tw.trx.getAccountResources(alice.address)).freeNetUsed).toBeUndefined();
  });

  it('rejects with java-tron wording: insufficient balance and missing owner account', async () => {
    const poor = await alice.tw.trx.sendTransaction(bob.address, trx(10_000));
    expect(poor.code).toBe('CONTRACT_VALIDATE_ERROR');
    expect(utf8(poor.message as string)).toBe('Contract validate error : Validate TransferContract error, balance is not sufficient.');
    const ghost = wallet(devnet, 'ghost');
    const none = await ghost.tw.trx.sendTransaction(bob.address, 1);
    expect(none.code).toBe('CONTRACT_VALIDATE_ERROR');
    expect(utf8(none.message as string)).toBe('Contract validate error : Validate TransferContract error, no OwnerAccount.');
  });

  it('walletsolidity lags the head by 19 blocks', async () => {
    solidify(devnet);
    const carol = wallet(devnet, 'carol');
    const res = await alice.tw.trx.sendTransaction(carol.address, trx(2));
    devnet.mine(1);
    const included = devnet.info().head_number;
    expect(await alice.tw.trx.getBalance(carol.address)).toBe(0);
    expect(await alice.tw.trx.getUnconfirmedBalance(carol.address)).toBe(trx(2));
    devnet.mine(18);
    expect(await alice.tw.trx.getTransactionInfo(res.transaction.txID)).toEqual({});
    expect(devnet.info().solidified_number).toBe(included + 18 - 19);
    devnet.mine(1);
    expect((await alice.tw.trx.getTransactionInfo(res.transaction.txID)).blockNumber).toBe(included);
    expect(await alice.tw.trx.getBalance(carol.address)).toBe(trx(2));
    const solidBlock = await alice.tw.trx.getConfirmedCurrentBlock();
    expect(solidBlock.block_header.raw_data.number).toBe(included);
  });

  it('serves blocks with their transactions for block scanners', async () => {
    const res = await alice.tw.trx.sendTransaction(bob.address, trx(1));
    devnet.mine(1);
    const head = await alice.tw.trx.getCurrentBlock();
    expect(head.transactions?.map((t) => t.txID)).toEqual([res.transaction.txID]);
    const byNum = await alice.tw.trx.getBlockByNumber(head.block_header.raw_data.number);
    expect(byNum.blockID).toBe(head.blockID);
    expect(byNum.block_header.raw_data.parentHash).toBe((await alice.tw.trx.getBlockByNumber(head.block_header.raw_data.number - 1)).blockID);
  });
});
