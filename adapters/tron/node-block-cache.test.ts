/**
 * Adapter-only (issue #27): the gateway's per-block reads on the devnet, counted from the node client's own call
 * hook (what a provider would bill). With blockCacheMs the head is read at most once per interval and a state read
 * (an account, its resources, a dry run) once per head block, shared by every caller, until a newer block is known:
 * from the clock (the interval passed), from the tip (the scanner read a newer block) or from a transaction found in
 * one. What the main address can still delegate is always asked. Without blockCacheMs nothing is remembered.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../memory/index.js';
import { startDevnet, type Devnet } from '../tron-devnet/index.js';
import { createDevnetChainGateway } from './devnet-chain-gateway.js';
import type { TronWebChainGateway } from './tronweb-chain-gateway.js';

const TRX = 1_000_000n;
let devnet: Devnet;

beforeAll(async () => {
  devnet = await startDevnet({ port: 0, blockMs: 0, seed: 'node-block-cache' });
});
afterAll(async () => {
  await devnet.close();
});

function counted(options: { blockCacheMs?: number; tip?: () => number | null } = {}) {
  const clock = new ManualClock();
  const calls: string[] = [];
  const gateway: TronWebChainGateway = createDevnetChainGateway(devnet, { now: () => clock.now(), onCall: (path) => calls.push(path), ...options });
  const count = (path: string): number => calls.filter((c) => c === path).length;
  return { clock, calls, gateway, count };
}

describe('per-block reads (blockCacheMs)', () => {
  it('reads the head once per interval and an account once per head block, for every caller', async () => {
    const { clock, gateway, count } = counted({ blockCacheMs: 3_000 });
    const address = (await gateway.createAccount()).address;
    devnet.fund(address, 5n * TRX);
    devnet.mine(1);
    const [a, b] = await Promise.all([gateway.getTrxBalance(address), gateway.getTrxBalance(address)]);
    await gateway.getResources(address);
    await gateway.head();
    expect([a, b]).toEqual([5n * TRX, 5n * TRX]);
    expect(count('wallet/getblock')).toBe(1);
    expect(count('wallet/getaccount')).toBe(1);
    expect(count('wallet/getaccountresource')).toBe(1);

    // Within the interval and the block, a payment changes nothing read (state only changes with a block).
    devnet.fund(address, TRX);
    clock.advance(2_999);
    expect(await gateway.getTrxBalance(address)).toBe(5n * TRX);
    expect(count('wallet/getblock')).toBe(1);
    // The interval passed, the head is read again: the same block keeps its reads, a newer one starts afresh.
    clock.advance(1);
    await gateway.getTrxBalance(address);
    expect([count('wallet/getblock'), count('wallet/getaccount')]).toEqual([2, 1]);
    devnet.mine(1);
    clock.advance(3_000);
    expect(await gateway.getTrxBalance(address)).toBe(6n * TRX);
    expect([count('wallet/getblock'), count('wallet/getaccount')]).toEqual([3, 2]);
  });

  it('a newer block from the tip or from a transaction found in it ends the cached head at once', async () => {
    let tip: number | null = null;
    const { gateway, count } = counted({ blockCacheMs: 3_000, tip: () => tip });
    const address = (await gateway.createAccount()).address;
    devnet.fund(address, 2n * TRX);
    devnet.mine(1);
    await gateway.getTrxBalance(address);
    devnet.fund(address, TRX);
    devnet.mine(1);
    tip = devnet.info().head_number;
    expect(await gateway.getTrxBalance(address)).toBe(3n * TRX);
    expect(count('wallet/getaccount')).toBe(2);

    // A transaction found in a block newer than the cached head (clock still, tip not told).
    const payerAccount = await gateway.createAccount();
    const payer = payerAccount.address;
    devnet.fund(payer, 10n * TRX);
    devnet.mine(1);
    tip = null;
    await gateway.getTrxBalance(address);
    const before = count('wallet/getaccount');
    const tx = await gateway.prepare({ address: payer, privateKey: async () => payerAccount.privateKey }, { kind: 'transfer-trx', to: address, amountSun: TRX });
    await gateway.broadcast(tx);
    devnet.mine(1);
    expect((await gateway.getTransaction(tx.txid)).state).toBe('confirmed');
    expect(await gateway.getTrxBalance(address)).toBe(4n * TRX);
    expect(count('wallet/getaccount')).toBe(before + 1);
  });

  it('always asks what the main address can still delegate (every delegation of the block spends it)', async () => {
    const { gateway, count } = counted({ blockCacheMs: 3_000 });
    const address = (await gateway.createAccount()).address;
    devnet.fund(address, 100n * TRX);
    devnet.mine(1);
    await gateway.getCanDelegateEnergySun(address);
    await gateway.getCanDelegateEnergySun(address);
    expect(count('wallet/getcandelegatedmaxsize')).toBe(2);
  });

  it('without blockCacheMs every head and state read is asked', async () => {
    const { gateway, count } = counted();
    const address = (await gateway.createAccount()).address;
    await gateway.getTrxBalance(address);
    await gateway.getTrxBalance(address);
    await gateway.head();
    await gateway.head();
    expect([count('wallet/getaccount'), count('wallet/getblock')]).toEqual([2, 2]);
  });

  it('energyFactor reads getcontractinfo\'s energy_factor (0 when java-tron omits it), and a new factor is seen', async () => {
    const { gateway } = counted();
    const before = devnet.chain.params.usdtEnergyFactor;
    try {
      devnet.setParams({ usdtEnergyFactor: 0 });
      expect(await gateway.energyFactor(devnet.usdtAddress)).toBe(0);
      devnet.setParams({ usdtEnergyFactor: 36_000 });
      expect(await gateway.energyFactor(devnet.usdtAddress)).toBe(36_000);
    } finally {
      devnet.setParams({ usdtEnergyFactor: before });
    }
  });
});
