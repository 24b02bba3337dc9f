import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Devnet } from './index.js';
import { startTestDevnet, trx, wallet, type Wallet } from './test-helpers.js';

const utf8 = (hex: unknown): string => Buffer.from(String(hex), 'hex').toString('utf8');

describe('Stake 2.0: freeze, delegate, unfreeze, withdraw, vote (real tronweb)', () => {
  let devnet: Devnet;
  let s: Wallet;
  let r: Wallet;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const send = async (w: Wallet, tx: any) => w.tw.trx.sendRawTransaction(await w.tw.trx.sign(tx));
  beforeAll(async () => {
    devnet = await startTestDevnet();
    s = wallet(devnet, 'staker');
    r = wallet(devnet, 'receiver');
    devnet.fund(s.address, trx(20_000));
    devnet.fund(r.address, trx(10));
  });
  afterAll(() => devnet.close());

  it('freezing for energy yields frozen × TotalEnergyLimit / TotalEnergyWeight (≈ 10 energy per TRX)', async () => {
    const res = await send(s, await s.tw.transactionBuilder.freezeBalanceV2(trx(10_000), 'ENERGY', s.address));
    expect(res.result).toBe(true);
    devnet.mine(1);
    const rs = await s.tw.trx.getAccountResources(s.address);
    expect(rs.TotalEnergyLimit).toBe(180_000_000_000);
    expect(rs.TotalEnergyWeight).toBe(18_000_010_000);
    expect(rs.EnergyLimit).toBe(Math.floor(10_000 * (180_000_000_000 / 18_000_010_000)));
    expect(rs.tronPowerLimit).toBe(10_000);
    const acct = await s.tw.trx.getUnconfirmedAccount(s.address);
    expect(acct.balance).toBe(trx(10_000));
    expect(acct.frozenV2).toContainEqual({ type: 'ENERGY', amount: trx(10_000) });
  });

  it('delegated energy counts for the receiver, not the delegator; a locked delegation cannot be undone early', async () => {
    const res = await send(s, await s.tw.transactionBuilder.delegateResource(trx(4_000), r.address, 'ENERGY', s.address, true, 100));
    expect(res.result).toBe(true);
    devnet.mine(1);
    const ratio = 180_000_000_000 / 18_000_010_000;
    expect((await s.tw.trx.getAccountResources(r.address)).EnergyLimit).toBe(Math.floor(4_000 * ratio));
    expect((await s.tw.trx.getAccountResources(s.address)).EnergyLimit).toBe(Math.floor(6_000 * ratio));
    const d = await s.tw.trx.getDelegatedResourceV2(s.address, r.address, { confirmed: false });
    expect(d.delegatedResource?.[0]?.frozen_balance_for_energy).toBe(trx(4_000));
    expect(d.delegatedResource?.[0]?.expire_time_for_energy).toBe(devnet.chain.now + 100 * 3_000 - 0 * 1);
    const idx = await s.tw.trx.getDelegatedResourceAccountIndexV2(r.address, { confirmed: false });
    expect(idx.fromAccounts).toEqual([s.hex]);
    const max = await s.tw.trx.getCanDelegatedMaxSize(s.address, 'ENERGY', { confirmed: false });
    expect(max.max_size).toBe(trx(6_000));
    const early = await send(s, await s.tw.transactionBuilder.undelegateResource(trx(4_000), r.address, 'ENERGY', s.address));
    expect(early.code).toBe('CONTRACT_VALIDATE_ERROR');
    expect(utf8(early.message)).toBe(`Contract validate error : insufficient delegatedFrozenBalance(Energy), request=${trx(4_000)}, unlock_balance=0`);
  });

  it('undelegates once the lock period (in blocks) has passed', async () => {
    devnet.advance(100 * 3_000);
    const res = await send(s, await s.tw.transactionBuilder.undelegateResource(trx(4_000), r.address, 'ENERGY', s.address));
    expect(res.result).toBe(true);
    devnet.mine(1);
    expect((await s.tw.trx.getAccountResources(r.address)).EnergyLimit).toBeUndefined();
    expect(await s.tw.trx.getDelegatedResourceV2(s.address, r.address, { confirmed: false })).toEqual({});
  });

  it('unfreezing waits 14 days before WithdrawExpireUnfreeze', async () => {
    const res = await send(s, await s.tw.transactionBuilder.unfreezeBalanceV2(trx(1_000), 'ENERGY', s.address));
    expect(res.result).toBe(true);
    devnet.mine(1);
    const acct = await s.tw.trx.getUnconfirmedAccount(s.address);
    expect(acct.unfrozenV2).toEqual([{ type: 'ENERGY', unfreeze_amount: trx(1_000), unfreeze_expire_time: devnet.chain.now + 14 * 86_400_000 }]);
    expect((await s.tw.trx.getAvailableUnfreezeCount(s.address, { confirmed: false })).count).toBe(31);
    const early = await send(s, await s.tw.transactionBuilder.withdrawExpireUnfreeze(s.address));
    expect(utf8(early.message)).toBe('Contract validate error : no unFreeze balance to withdraw ');
    devnet.advance(14 * 86_400_000);
    const can = await s.tw.trx.getCanWithdrawUnfreezeAmount(s.address, devnet.chain.now, { confirmed: false });
    expect(can.amount).toBe(trx(1_000));
    const before = await s.tw.trx.getUnconfirmedBalance(s.address);
    const w = await send(s, await s.tw.transactionBuilder.withdrawExpireUnfreeze(s.address));
    expect(w.result).toBe(true);
    devnet.mine(1);
    const info = await s.tw.trx.getUnconfirmedTransactionInfo(w.transaction.txID);
    expect(info.withdraw_expire_amount).toBe(trx(1_000));
    expect(await s.tw.trx.getUnconfirmedBalance(s.address)).toBe(before + trx(1_000));
  });

  it('votes for a witness and withdraws the (simple-model) reward after a day', async () => {
    const witness = devnet.info().witnesses[0]!;
    const v = await send(s, await s.tw.transactionBuilder.vote({ [witness]: 5_000 }, s.address));
    expect(v.result).toBe(true);
    devnet.mine(1);
    const tooMany = await send(s, await s.tw.transactionBuilder.vote({ [witness]: 50_000 }, s.address));
    expect(utf8(tooMany.message)).toBe('Contract validate error : The total number of votes[50000] is greater than the tronPower[9000]');
    devnet.advance(86_400_000);
    const reward = await s.tw.trx.getUnconfirmedReward(s.address);
    expect(reward).toBeGreaterThan(0);
    const before = await s.tw.trx.getUnconfirmedBalance(s.address);
    const w = await send(s, await s.tw.transactionBuilder.withdrawBlockRewards(s.address));
    expect(w.result).toBe(true);
    devnet.mine(1);
    const info = await s.tw.trx.getUnconfirmedTransactionInfo(w.transaction.txID);
    expect(info.withdraw_amount).toBeGreaterThanOrEqual(reward);
    expect(await s.tw.trx.getUnconfirmedBalance(s.address)).toBe(before + (info.withdraw_amount as number) - (info.fee ?? 0));
  });
});

describe('getcandelegatedmaxsize for ENERGY as java-tron counts it (Wallet.calcCanDelegatedEnergyMaxSize)', () => {
  let devnet: Devnet;
  beforeAll(async () => {
    devnet = await startTestDevnet();
  });
  afterAll(() => devnet.close());

  it('the ENERGY stake less the usage as stake (less the stake received), floored at 0; under 1 TRX answers 0', async () => {
    const owner = wallet(devnet, 'owner');
    const lender = wallet(devnet, 'lender');
    devnet.fund(owner.address, trx(1_000));
    devnet.fund(lender.address, trx(1_000));
    devnet.fundToken(owner.address, 1_000_000n);
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const send = async (w: Wallet, tx: any) => { await w.tw.trx.sendRawTransaction(await w.tw.trx.sign(tx)); devnet.mine(1); };
    const maxSize = async () => (await owner.tw.trx.getCanDelegatedMaxSize(owner.address, 'ENERGY', { confirmed: false })).max_size ?? 0;
    await send(owner, await owner.tw.transactionBuilder.freezeBalanceV2(trx(5), 'ENERGY', owner.address));
    expect(await maxSize()).toBe(trx(5)); // no usage: the stake itself
    // A USDT transfer spends the owner's ≈ 50 energy (the rest burnt): ≈ 4.9 TRX of its 5 in use, 0.1 TRX left: 0.
    const c = await owner.tw.contract().at(devnet.usdtAddress);
    await c.methods.transfer(lender.address, 1).send({ feeLimit: trx(20) });
    devnet.mine(1);
    const rs = await owner.tw.trx.getAccountResources(owner.address);
    const inUse = Math.floor(rs.EnergyUsed! * 1_000_000 * (rs.TotalEnergyWeight! / rs.TotalEnergyLimit!));
    expect(trx(5) - inUse).toBeGreaterThan(0);
    expect(trx(5) - inUse).toBeLessThan(trx(1));
    expect(await maxSize()).toBe(0);
    // Stake received from another account is taken from the usage counted as stake (FreezeV2Util.getV2EnergyUsage).
    await send(lender, await lender.tw.transactionBuilder.freezeBalanceV2(trx(10), 'ENERGY', lender.address));
    await send(lender, await lender.tw.transactionBuilder.delegateResource(trx(10), owner.address, 'ENERGY', lender.address, false));
    expect(await maxSize()).toBe(trx(5));
  });
});
