/**
 * Tether's admin state on the built-in USDT: a blacklisted sender or a paused token makes `transfer` revert, mined
 * with a REVERT receipt (energy charged, nothing moved); triggerconstantcontract answers java-tron's shape for it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { USDT_ENERGY } from './constants.js';
import type { Devnet } from './index.js';
import { startTestDevnet, trx, wallet, type Wallet } from './test-helpers.js';

type Json = Record<string, unknown>;
const utf8 = (hex: unknown): string => Buffer.from(String(hex), 'hex').toString('utf8');
const word = (hex41: string): string => hex41.slice(2).padStart(64, '0');

describe('USDT blacklist and pause (Tether semantics)', () => {
  let devnet: Devnet;
  let holder: Wallet;
  let other: Wallet;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  let usdt: any;
  const post = async (path: string, body: unknown): Promise<{ status: number; body: Json }> => {
    const r = await fetch(devnet.url + path, { method: 'POST', body: JSON.stringify(body) });
    return { status: r.status, body: (await r.json()) as Json };
  };
  const balanceOf = async (w: Wallet): Promise<bigint> => usdt.methods.balanceOf(w.address).call();
  const send = async (from: Wallet, to: Wallet, amount: number): Promise<string> =>
    (await from.tw.contract().at(devnet.usdtAddress)).methods.transfer(to.address, amount).send({ feeLimit: trx(30) });
  const constantTransfer = (from: Wallet, to: Wallet, amount: number, visible = false) =>
    post('/wallet/triggerconstantcontract', {
      owner_address: visible ? from.address : from.hex,
      contract_address: visible ? devnet.usdtAddress : devnet.usdtAddressHex,
      function_selector: 'transfer(address,uint256)',
      parameter: word(to.hex) + amount.toString(16).padStart(64, '0'),
      visible,
    });

  beforeAll(async () => {
    devnet = await startTestDevnet();
    holder = wallet(devnet, 'usdt-holder');
    other = wallet(devnet, 'usdt-other');
    for (const w of [holder, other]) {
      devnet.fund(w.address, trx(200));
      devnet.fundToken(w.address, 50_000_000n);
    }
    usdt = await holder.tw.contract().at(devnet.usdtAddress);
  });
  afterAll(() => devnet.close());

  it('a transfer from a blacklisted address is mined with REVERT: energy charged, no balance moves, no event', async () => {
    devnet.setUsdtBlacklisted(holder.address);
    const before = await holder.tw.trx.getUnconfirmedBalance(holder.address);
    const txid = await send(holder, other, 1_000_000);
    devnet.mine(1);
    const info = await holder.tw.trx.getUnconfirmedTransactionInfo(txid);
    expect(info.blockNumber).toBe(devnet.chain.head.number);
    expect(info.result).toBe('FAILED');
    expect(info.receipt.result).toBe('REVERT');
    expect(info.receipt.energy_usage_total).toBe(USDT_ENERGY.revertBlacklisted);
    expect(info.receipt.energy_fee).toBe(USDT_ENERGY.revertBlacklisted * 100);
    expect(utf8(info.resMessage)).toBe('REVERT opcode executed');
    expect(info.log).toBeUndefined();
    expect((await holder.tw.trx.getTransaction(txid)).ret?.[0]?.contractRet).toBe('REVERT');
    expect(await holder.tw.trx.getUnconfirmedBalance(holder.address)).toBe(before - (info.fee as number));
    expect(await balanceOf(holder)).toBe(50_000_000n);
    expect(await balanceOf(other)).toBe(50_000_000n);
  });

  it('a blacklisted address can still receive (Tether checks the sender only); unblacklisting lets it send again', async () => {
    const txid = await send(other, holder, 2_000_000);
    devnet.mine(1);
    expect((await other.tw.trx.getUnconfirmedTransactionInfo(txid)).receipt.result).toBe('SUCCESS');
    expect(await balanceOf(holder)).toBe(52_000_000n);
    devnet.setUsdtBlacklisted(holder.address, false);
    const back = await send(holder, other, 2_000_000);
    devnet.mine(1);
    expect((await holder.tw.trx.getUnconfirmedTransactionInfo(back)).receipt.result).toBe('SUCCESS');
    expect(await balanceOf(holder)).toBe(50_000_000n);
  });

  it('while paused every transfer reverts (earlier in the code, so cheaper); unpausing restores transfers', async () => {
    devnet.setUsdtPaused(true);
    const txid = await send(other, holder, 1);
    devnet.mine(1);
    const info = await other.tw.trx.getUnconfirmedTransactionInfo(txid);
    expect(info.receipt.result).toBe('REVERT');
    expect(info.receipt.energy_usage_total).toBe(USDT_ENERGY.revertPaused);
    expect(await balanceOf(holder)).toBe(50_000_000n);
    devnet.setUsdtPaused(false);
    const ok = await send(other, holder, 1);
    devnet.mine(1);
    expect((await other.tw.trx.getUnconfirmedTransactionInfo(ok)).receipt.result).toBe('SUCCESS');
  });

  it('a transfer broadcast before the blacklisting reverts when it is mined after it', async () => {
    const txid = await send(holder, other, 5);
    devnet.setUsdtBlacklisted(holder.address);
    devnet.mine(1);
    expect((await holder.tw.trx.getUnconfirmedTransactionInfo(txid)).receipt.result).toBe('REVERT');
    devnet.setUsdtBlacklisted(holder.address, false);
  });

  it("triggerconstantcontract for a reverting transfer answers java-tron's shape", async () => {
    devnet.setUsdtBlacklisted(holder.address);
    const { status, body } = await constantTransfer(holder, other, 1);
    expect(status).toBe(200);
    expect(body['result']).toEqual({ result: true, message: Buffer.from('REVERT opcode executed').toString('hex') });
    expect(body['energy_used']).toBe(USDT_ENERGY.revertBlacklisted);
    expect(body['energy_penalty']).toBe(1_291);
    expect(body['constant_result']).toEqual(['']);
    const tx = body['transaction'] as { ret: unknown[]; txID: string; raw_data: { contract: Array<{ type: string }> } };
    expect(tx.ret).toEqual([{ ret: 'FAILED' }]);
    expect(tx.raw_data.contract[0]!.type).toBe('TriggerSmartContract');
    expect(body).not.toHaveProperty('logs');
    const visible = await constantTransfer(holder, other, 1, true);
    expect(visible.body['result']).toEqual({ result: true, message: 'REVERT opcode executed' });
    expect((visible.body['transaction'] as { ret: unknown[] }).ret).toEqual([{ ret: 'FAILED' }]);
    // tronweb turns a result.message into a rejection.
    const dry = holder.tw.transactionBuilder.triggerConstantContract(devnet.usdtAddress, 'transfer(address,uint256)', {}, [
      { type: 'address', value: other.address },
      { type: 'uint256', value: 1 },
    ], holder.address);
    await expect(dry).rejects.toThrow('REVERT opcode executed');
    devnet.setUsdtBlacklisted(holder.address, false);
    devnet.setUsdtPaused(true);
    const paused = await constantTransfer(other, holder, 1);
    expect((paused.body['transaction'] as { ret: unknown[] }).ret).toEqual([{ ret: 'FAILED' }]);
    expect(paused.body['energy_used']).toBe(USDT_ENERGY.revertPaused);
    devnet.setUsdtPaused(false);
  });

  it('a successful constant transfer: result true without message, ret [{}], energy_used includes energy_penalty, logs', async () => {
    const { body } = await constantTransfer(holder, other, 1);
    expect(body['result']).toEqual({ result: true });
    expect(body['energy_used']).toBe(USDT_ENERGY.transferToHolder);
    expect(body['energy_penalty']).toBe(64_285 - 14_651);
    expect(body['constant_result']).toEqual(['0'.repeat(63) + '1']);
    expect((body['transaction'] as { ret: unknown[] }).ret).toEqual([{}]);
    expect(body['logs']).toHaveLength(1);
  });

  it("Tether's views: paused(), isBlackListed(address), getBlackListStatus(address)", async () => {
    devnet.setUsdtBlacklisted(other.address);
    devnet.setUsdtPaused(true);
    expect(await usdt.methods.paused().call()).toBe(true);
    expect(await usdt.methods.isBlackListed(other.address).call()).toBe(true);
    expect(await usdt.methods.getBlackListStatus(holder.address).call()).toBe(false);
    devnet.setUsdtBlacklisted(other.address, false);
    devnet.setUsdtPaused(false);
    expect(await usdt.methods.paused().call()).toBe(false);
    expect(await usdt.methods.getBlackListStatus(other.address).call()).toBe(false);
  });

  it('POST /sim/usdt blacklists, unblacklists and pauses; GET reports; a bad request changes nothing', async () => {
    expect((await post('/sim/usdt', { blacklist: holder.address, paused: true })).body).toEqual({ paused: true, blacklist: [holder.address] });
    expect((await post('/sim/usdt', { blacklist: other.hex })).body['blacklist']).toHaveLength(2);
    expect((await post('/sim/usdt', { unblacklist: holder.address, paused: false })).body).toEqual({ paused: false, blacklist: [other.address] });
    expect((await post('/sim/usdt', { blacklist: 'not-an-address', paused: true })).status).toBe(400);
    expect((await post('/sim/usdt', { paused: 'yes' })).status).toBe(400);
    expect(await (await fetch(devnet.url + '/sim/usdt')).json()).toEqual({ paused: false, blacklist: [other.address] });
    expect(devnet.usdtStatus()).toEqual({ paused: false, blacklist: [other.address] });
    await post('/sim/usdt', { unblacklist: other.address });
    expect(devnet.usdtStatus().blacklist).toEqual([]);
  });
});
