import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TRANSFER_TOPIC } from './constants.js';
import type { Devnet } from './index.js';
import { startTestDevnet, trx, wallet, type Wallet } from './test-helpers.js';

describe('built-in USDT TRC20 (real tronweb contract API)', () => {
  let devnet: Devnet;
  let payer: Wallet;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  let usdt: any;
  beforeAll(async () => {
    devnet = await startTestDevnet();
    payer = wallet(devnet, 'payer');
    devnet.fund(payer.address, trx(100));
    devnet.fundToken(payer.address, 100_000_000n);
    usdt = await payer.tw.contract().at(devnet.usdtAddress);
  });
  afterAll(() => devnet.close());

  const info = async (txid: string) => payer.tw.trx.getUnconfirmedTransactionInfo(txid);

  it('answers the TRC20 views', async () => {
    expect(await usdt.methods.symbol().call()).toBe('USDT');
    expect(Number(await usdt.methods.decimals().call())).toBe(6);
    expect(await usdt.methods.name().call()).toBe('Tether USD');
    expect(await usdt.methods.totalSupply().call()).toBe(100_000_000n);
    expect(await usdt.methods.balanceOf(payer.address).call()).toBe(100_000_000n);
  });

  it('a transfer to a non-holder consumes 130,285 energy, burned at 100 sun without stake', async () => {
    const fresh = wallet(devnet, 'fresh');
    const before = await payer.tw.trx.getUnconfirmedBalance(payer.address);
    const txid: string = await usdt.methods.transfer(fresh.address, 10_000_000).send({ feeLimit: trx(20) });
    devnet.mine(1);
    const i = await info(txid);
    expect(i.receipt.energy_usage_total).toBe(130_285);
    expect(i.receipt.energy_fee).toBe(13_028_500);
    expect(i.receipt.result).toBe('SUCCESS');
    expect(i.fee).toBe(13_028_500 + (i.receipt.net_fee ?? 0));
    expect(await payer.tw.trx.getUnconfirmedBalance(payer.address)).toBe(before - (i.fee as number));
    expect(i.contractResult).toEqual(['0'.repeat(63) + '1']);
    expect(i.log).toEqual([
      {
        address: devnet.usdtAddressHex.slice(2),
        topics: [TRANSFER_TOPIC, '0'.repeat(24) + payer.hex.slice(2), '0'.repeat(24) + fresh.hex.slice(2)],
        data: (10_000_000).toString(16).padStart(64, '0'),
      },
    ]);
    expect(await usdt.methods.balanceOf(fresh.address).call()).toBe(10_000_000n);
    // A token balance does not activate the TRX account.
    expect(await payer.tw.trx.getUnconfirmedAccount(fresh.address)).toEqual({});
  });

  it('a transfer to a holder consumes 64,285 energy', async () => {
    const fresh = wallet(devnet, 'fresh');
    const txid: string = await usdt.methods.transfer(fresh.address, 1_000_000).send({ feeLimit: trx(20) });
    devnet.mine(1);
    const i = await info(txid);
    expect(i.receipt.energy_usage_total).toBe(64_285);
    expect(i.receipt.energy_fee).toBe(6_428_500);
  });

  it('OUT_OF_ENERGY with a low fee_limit: FAILED receipt, fee_limit burned, no token moved', async () => {
    const other = wallet(devnet, 'other');
    const before = await payer.tw.trx.getUnconfirmedBalance(payer.address);
    const txid: string = await usdt.methods.transfer(other.address, 5).send({ feeLimit: trx(1) });
    devnet.mine(1);
    const i = await info(txid);
    expect(i.result).toBe('FAILED');
    expect(i.receipt.result).toBe('OUT_OF_ENERGY');
    expect(i.receipt.energy_usage_total).toBe(10_000);
    expect(i.receipt.energy_fee).toBe(trx(1));
    expect(i.log).toBeUndefined();
    expect(Buffer.from(i.resMessage as string, 'hex').toString()).toContain('Not enough energy');
    expect(await payer.tw.trx.getUnconfirmedBalance(payer.address)).toBe(before - (i.fee as number));
    expect(await usdt.methods.balanceOf(other.address).call()).toBe(0n);
    const tx = await payer.tw.trx.getTransaction(txid);
    expect(tx.ret?.[0]?.contractRet).toBe('OUT_OF_ENERGY');
  });

  it('reverts a transfer above the token balance (REVERT, energy charged)', async () => {
    const other = wallet(devnet, 'other');
    const txid: string = await usdt.methods.transfer(other.address, 10n ** 12n).send({ feeLimit: trx(20) });
    devnet.mine(1);
    const i = await info(txid);
    expect(i.result).toBe('FAILED');
    expect(i.receipt.result).toBe('REVERT');
    expect(i.receipt.energy_fee).toBeGreaterThan(0);
    const dry = payer.tw.transactionBuilder.triggerConstantContract(devnet.usdtAddress, 'transfer(address,uint256)', {}, [
      { type: 'address', value: other.address },
      { type: 'uint256', value: (10n ** 12n).toString() },
    ], payer.address);
    await expect(dry).rejects.toThrow(/REVERT/);
  });

  it('uses staked energy before burning TRX, and energy recovers over 24 h', async () => {
    const staker = wallet(devnet, 'staker');
    devnet.fund(staker.address, trx(20_000));
    devnet.fundToken(staker.address, 1_000_000n);
    const freeze = await staker.tw.transactionBuilder.freezeBalanceV2(trx(10_000), 'ENERGY', staker.address);
    await staker.tw.trx.sendRawTransaction(await staker.tw.trx.sign(freeze));
    devnet.mine(1);
    const c = await staker.tw.contract().at(devnet.usdtAddress);
    const txid: string = await c.methods.transfer(payer.address, 1).send({ feeLimit: trx(20) });
    devnet.mine(1);
    const i = await info(txid);
    expect(i.receipt.energy_usage).toBe(64_285);
    expect(i.receipt.energy_fee).toBeUndefined();
    expect((await staker.tw.trx.getAccountResources(staker.address)).EnergyUsed).toBe(64_285);
    devnet.advance(86_400_000);
    expect((await staker.tw.trx.getAccountResources(staker.address)).EnergyUsed).toBeUndefined();
  });

  it('estimates energy and builds transfers server-side that tronweb accepts (txCheckWithArgs)', async () => {
    const holder = wallet(devnet, 'fresh');
    const est = await payer.tw.transactionBuilder.estimateEnergy(devnet.usdtAddress, 'transfer(address,uint256)', {}, [
      { type: 'address', value: holder.address },
      { type: 'uint256', value: 1 },
    ], payer.address);
    expect(est.energy_required).toBe(64_285);
    const built = await payer.tw.transactionBuilder.triggerSmartContract(devnet.usdtAddress, 'transfer(address,uint256)', { feeLimit: trx(10) }, [
      { type: 'address', value: holder.address },
      { type: 'uint256', value: 1 },
    ], payer.address);
    expect(built.result.result).toBe(true);
    expect(built.transaction.raw_data.fee_limit).toBe(trx(10));
  });
});
