/**
 * The two moving parts of energy: the USDT contract's dynamic energy factor (what a transfer costs) and the
 * network's TotalEnergyWeight drifting block by block (what a staked or delegated TRX yields).
 */
import { describe, expect, it, beforeAll, afterAll } from 'vitest';
import { USDT_ENERGY, USDT_PROFILES } from './constants.js';
import { profileEnergy } from './dynamic-energy.js';
import type { Devnet } from './index.js';
import { solidify, startTestDevnet, trx, wallet, type Wallet } from './test-helpers.js';

type Json = Record<string, unknown>;
const word = (hex41: string): string => hex41.slice(2).padStart(64, '0');

describe('USDT dynamic energy factor (usdtEnergyFactor)', () => {
  let devnet: Devnet;
  let payer: Wallet;
  let holder: Wallet;
  const post = async (path: string, body: unknown): Promise<{ status: number; body: Json }> => {
    const r = await fetch(devnet.url + path, { method: 'POST', body: JSON.stringify(body) });
    return { status: r.status, body: (await r.json()) as Json };
  };
  const dryRun = async (to: Wallet) =>
    (await post('/wallet/triggerconstantcontract', {
      owner_address: payer.hex,
      contract_address: devnet.usdtAddressHex,
      function_selector: 'transfer(address,uint256)',
      parameter: word(to.hex) + '1'.padStart(64, '0'),
    })).body;
  const transfer = async (to: Wallet, feeLimit: number) => {
    const c = await payer.tw.contract().at(devnet.usdtAddress);
    const txid: string = await c.methods.transfer(to.address, 1).send({ feeLimit });
    devnet.mine(1);
    return payer.tw.trx.getUnconfirmedTransactionInfo(txid);
  };
  beforeAll(async () => {
    devnet = await startTestDevnet();
    payer = wallet(devnet, 'factor-payer');
    holder = wallet(devnet, 'factor-holder');
    devnet.fund(payer.address, trx(1_000));
    devnet.fundToken(payer.address, 1_000_000n);
    devnet.fundToken(holder.address, 1n);
  });
  afterAll(() => devnet.close());

  it('every opcode profile costs exactly its USDT_ENERGY at the default factor (34,000)', () => {
    for (const [k, profile] of Object.entries(USDT_PROFILES)) {
      expect(profileEnergy(profile, 34_000).energy, k).toBe(USDT_ENERGY[k as keyof typeof USDT_ENERGY]);
    }
    expect(profileEnergy(USDT_PROFILES.transferToHolder, 0)).toEqual({ energy: 14_651, penalty: 0 });
    // java-tron rounds each opcode's penalty down: 3 × 1.05 → 3, so a small factor is not proportional.
    expect(profileEnergy([[3, 100]], 500)).toEqual({ energy: 300, penalty: 0 });
  });

  it('default: 64,285 / 130,285 as triggerconstantcontract reports them, with energy_penalty; the chain parameters say so', async () => {
    const params = (await (await fetch(devnet.url + '/sim/params')).json()) as Json;
    expect(params['usdtEnergyFactor']).toBe(34_000);
    expect(await dryRun(holder)).toMatchObject({ energy_used: 64_285, energy_penalty: 64_285 - 14_651 });
    expect(await dryRun(wallet(devnet, 'factor-empty'))).toMatchObject({ energy_used: 130_285, energy_penalty: 130_285 - 29_651 });
    const cp = await payer.tw.trx.getChainParameters();
    expect(cp.find((x) => x.key === 'getAllowDynamicEnergy')?.value).toBe(1);
    expect(cp.find((x) => x.key === 'getDynamicEnergyMaxFactor')?.value).toBe(34_000);
    const info = (await post('/wallet/getcontractinfo', { value: devnet.usdtAddressHex })).body;
    expect(info['contract_state']).toMatchObject({ energy_factor: 34_000 });
  });

  it('raising the factor raises the constant call, the estimate and what the transfer really consumes', async () => {
    expect((await post('/sim/params', { usdt_energy_factor: 50_000 })).body['usdtEnergyFactor']).toBe(50_000);
    // As on the chain, the factor moves at the next maintenance only: until then the old one holds.
    expect(await dryRun(holder)).toMatchObject({ energy_used: 64_285 });
    expect((await post('/wallet/getcontractinfo', { value: devnet.usdtAddressHex })).body['contract_state']).toMatchObject({ energy_factor: 34_000 });
    expect((await post('/sim/maintenance', {})).status).toBe(200);
    expect(await dryRun(holder)).toMatchObject({ energy_used: 87_906, energy_penalty: 73_255 });
    expect(await dryRun(wallet(devnet, 'factor-empty'))).toMatchObject({ energy_used: 177_906, energy_penalty: 148_255 });
    const est = await payer.tw.transactionBuilder.estimateEnergy(devnet.usdtAddress, 'transfer(address,uint256)', {}, [
      { type: 'address', value: holder.address },
      { type: 'uint256', value: 1 },
    ], payer.address);
    expect(est.energy_required).toBe(87_906);
    const info = await transfer(holder, trx(20));
    expect(info.receipt.result).toBe('SUCCESS');
    expect(info.receipt.energy_usage_total).toBe(87_906);
    expect(info.receipt.energy_fee).toBe(8_790_600);
    const cp = await payer.tw.trx.getChainParameters();
    expect(cp.find((x) => x.key === 'getDynamicEnergyMaxFactor')?.value).toBe(50_000);
  });

  it('a fee_limit sized for yesterday\'s factor runs out of energy after a rise', async () => {
    devnet.setParams({ usdtEnergyFactor: 34_000 });
    devnet.toMaintenance();
    expect((await transfer(holder, 64_285 * 100)).receipt.result).toBe('SUCCESS');
    devnet.setParams({ usdtEnergyFactor: 36_000 });
    devnet.toMaintenance();
    const info = await transfer(holder, 64_285 * 100);
    expect(info.receipt.result).toBe('OUT_OF_ENERGY');
    expect(info.receipt.energy_usage_total).toBe(64_285);
  });

  it('factor 0 is the bare base cost (no energy_penalty); reverts scale too; bad values are refused', async () => {
    devnet.setParams({ usdtEnergyFactor: 0 });
    devnet.toMaintenance();
    const body = await dryRun(holder);
    expect(body['energy_used']).toBe(14_651);
    expect(body).not.toHaveProperty('energy_penalty');
    devnet.setUsdtPaused(true);
    expect((await dryRun(holder))['energy_used']).toBe(246);
    devnet.setUsdtPaused(false);
    for (const bad of [1.5, -1, 'x']) expect((await post('/sim/params', { usdt_energy_factor: bad })).status).toBe(400);
    devnet.setParams({ usdtEnergyFactor: 34_000 });
    devnet.toMaintenance();
  });
});

describe('maintenance: when the factor and the prices move (wallet/getnextmaintenancetime)', () => {
  let devnet: Devnet;
  afterAll(() => devnet.close());
  const nextMaintenance = async (): Promise<number> =>
    ((await (await fetch(devnet.url + '/wallet/getnextmaintenancetime', { method: 'POST', body: '{}' })).json()) as { num: number }).num;
  const factor = async (): Promise<unknown> => ((await (await fetch(devnet.url + '/wallet/getcontractinfo', {
    method: 'POST', body: JSON.stringify({ value: devnet.usdtAddressHex }),
  })).json()) as Json)['contract_state'];
  const param = async (key: string): Promise<unknown> => ((await (await fetch(devnet.url + '/wallet/getchainparameters', { method: 'POST', body: '{}' }))
    .json()) as { chainParameter: { key: string; value?: number }[] }).chainParameter.find((p) => p.key === key)?.value;

  it('a scheduled change takes effect at the first block whose time reaches the next maintenance, which then moves on by the interval', async () => {
    devnet = await startTestDevnet();
    const first = await nextMaintenance();
    expect(first).toBeGreaterThan(devnet.chain.head.time);
    expect(await param('getMaintenanceTimeInterval')).toBe(21_600_000);
    devnet.setParams({ usdtEnergyFactor: 40_000, energyFee: 210, transactionFee: 2_000, maintenanceTimeInterval: 600_000 });
    // Up to the last block before it: nothing has moved.
    devnet.advance(first - devnet.chain.head.time - 3_000);
    expect(devnet.chain.head.time).toBe(first - 3_000);
    expect(await factor()).toMatchObject({ energy_factor: 34_000 });
    expect([await param('getEnergyFee'), await param('getTransactionFee')]).toEqual([100, 1_000]);
    expect(await nextMaintenance()).toBe(first);
    // The block at the maintenance time: everything moves, and the next one is one (new) interval later. Its own
    // transactions still ran at the old values (java-tron maintains after them).
    const payer = wallet(devnet, 'maintenance-payer');
    const holder = wallet(devnet, 'maintenance-holder');
    devnet.fund(payer.address, trx(100));
    devnet.fundToken(payer.address, 10n);
    devnet.fundToken(holder.address, 1n);
    const c = await payer.tw.contract().at(devnet.usdtAddress);
    const txid: string = await c.methods.transfer(holder.address, 1).send({ feeLimit: trx(50) });
    devnet.mine(1);
    expect(devnet.chain.head.time).toBe(first);
    expect((await payer.tw.trx.getUnconfirmedTransactionInfo(txid)).receipt.energy_usage_total).toBe(64_285);
    expect(await factor()).toMatchObject({ energy_factor: 40_000 });
    expect([await param('getEnergyFee'), await param('getTransactionFee'), await param('getMaintenanceTimeInterval')]).toEqual([210, 2_000, 600_000]);
    expect(await nextMaintenance()).toBe(first + 600_000);
    // toMaintenance goes to the next one; missed slots still land on the grid of the interval.
    devnet.setParams({ usdtEnergyFactor: 34_000 });
    devnet.toMaintenance();
    expect(await factor()).toMatchObject({ energy_factor: 34_000 });
    expect(await nextMaintenance()).toBe(first + 1_200_000);
    devnet.advance(3 * 600_000 + 30_000);
    expect(await nextMaintenance()).toBe(first + 5 * 600_000);
  });
});

describe('energy weight drift (energy_weight_drift_bps)', () => {
  const weight = async (devnet: Devnet, who: Wallet, solid = false): Promise<number> =>
    ((await (await fetch(`${devnet.url}/wallet${solid ? 'solidity' : ''}/getaccountresource`, { method: 'POST', body: JSON.stringify({ address: who.hex }) })).json()) as Json)['TotalEnergyWeight'] as number;
  const weights = async (devnet: Devnet, who: Wallet, blocks: number): Promise<number[]> => {
    const out = [await weight(devnet, who)];
    for (let i = 0; i < blocks; i++) {
      devnet.mine(1);
      out.push(await weight(devnet, who));
    }
    return out;
  };

  it('off: the weight only moves with devnet stakes; on: each block moves it by at most bps, seeded and replayable', async () => {
    const a = await startTestDevnet({ seed: 'drift' });
    const b = await startTestDevnet({ seed: 'drift' });
    const c = await startTestDevnet({ seed: 'other-drift' });
    try {
      const who = wallet(a, 'drift-who');
      for (const d of [a, b, c]) d.fund(who.address, trx(1));
      for (const d of [a, b, c]) expect(new Set(await weights(d, who, 5)).size).toBe(1);
      const bps = 50;
      const seqs = [];
      for (const d of [a, b, c]) {
        d.setFaults({ energy_weight_drift_bps: bps });
        seqs.push(await weights(d, who, 20));
      }
      const [sa, sb, sc] = seqs as [number[], number[], number[]];
      expect(sb).toEqual(sa);
      expect(sc).not.toEqual(sa);
      const steps = sa.slice(1).map((w, i) => w - sa[i]!);
      for (const [i, step] of steps.entries()) expect(Math.abs(step)).toBeLessThanOrEqual(Math.round((sa[i]! * bps) / 10_000));
      expect(steps.some((s) => s > 0)).toBe(true);
      expect(steps.some((s) => s < 0)).toBe(true);
      expect(Math.max(...steps.map(Math.abs))).toBeGreaterThan((sa[0]! * bps) / 10_000 / 4);
      // The solidified view keeps the weight of the solidified block.
      a.setFaults({ energy_weight_drift_bps: 0 });
      const head = await weight(a, who);
      expect(await weight(a, who, true)).toBe(sa[sa.length - 1 - a.chain.params.solidifyLag]);
      solidify(a);
      expect(await weight(a, who, true)).toBe(head);
    } finally {
      await Promise.all([a.close(), b.close(), c.close()]);
    }
  });

  it("moves a delegation's energy: a delegation sized exactly for a USDT transfer comes up short when the weight rises", async () => {
    const devnet = await startTestDevnet({ seed: 'drift-delegation' });
    try {
      const owner = wallet(devnet, 'drift-owner');
      const sub = wallet(devnet, 'drift-sub');
      devnet.fund(owner.address, trx(100_000));
      devnet.fund(sub.address, trx(1));
      await owner.tw.trx.sendRawTransaction(await owner.tw.trx.sign(await owner.tw.transactionBuilder.freezeBalanceV2(trx(50_000), 'ENERGY', owner.address)));
      devnet.mine(1);
      const res0 = await owner.tw.trx.getAccountResources(owner.address);
      const need = Math.ceil((USDT_ENERGY.transferToHolder * res0.TotalEnergyWeight!) / res0.TotalEnergyLimit!);
      const delegate = await owner.tw.transactionBuilder.delegateResource(trx(need), sub.address, 'ENERGY', owner.address);
      await owner.tw.trx.sendRawTransaction(await owner.tw.trx.sign(delegate));
      devnet.mine(1);
      const before = await owner.tw.trx.getAccountResources(sub.address);
      expect(before.EnergyLimit).toBeGreaterThanOrEqual(USDT_ENERGY.transferToHolder);
      expect(before.EnergyLimit).toBe(Math.floor(need * (before.TotalEnergyLimit! / before.TotalEnergyWeight!)));
      devnet.setFaults({ energy_weight_drift_bps: 20 });
      let after = before;
      for (let i = 0; i < 50 && after.TotalEnergyWeight! <= before.TotalEnergyWeight!; i++) {
        devnet.mine(1);
        after = await owner.tw.trx.getAccountResources(sub.address);
      }
      expect(after.TotalEnergyWeight).toBeGreaterThan(before.TotalEnergyWeight!);
      expect(after.EnergyLimit).toBe(Math.floor(need * (after.TotalEnergyLimit! / after.TotalEnergyWeight!)));
      expect(after.EnergyLimit).toBeLessThan(USDT_ENERGY.transferToHolder);
    } finally {
      await devnet.close();
    }
  });

  it('refuses a drift outside [0, 10000] bps', () => {
    return startTestDevnet().then(async (devnet) => {
      expect(() => devnet.setFaults({ energy_weight_drift_bps: -1 })).toThrow();
      expect(() => devnet.setFaults({ energy_weight_drift_bps: 10_001 })).toThrow();
      await devnet.close();
    });
  });
});
