/**
 * Issue #34: the energy check before a collection is made (plannedSweepCheck). It refuses only when the planner finds
 * no energy source (BIZ-ENERGY-UNAVAILABLE); a node that fails now, or a dry run that reverts, makes the task (PENDING
 * plans again under its own retries, or reports its own failure); a TRX sweep needs no energy and reads nothing.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestCore, startTestDevnet } from '../../../adapters/memory/testing/memory-test-core.js';
import { AesGcmKeyCipher } from '../../../adapters/node/index.js';
import { createDevnetChainGateway } from '../../../adapters/tron/devnet-chain-gateway.js';
import { SelfDelegationEnergyProvider } from '../../../adapters/tron/self-delegation-energy-provider.js';
import type { Devnet } from '../../../adapters/tron-devnet/index.js';
import { createAssetRegistry } from '../../domain/assets.js';
import { ChainError, DomainError } from '../../domain/errors.js';
import type { ChainGateway } from '../../ports/chain-gateway.port.js';
import { userWithWallets } from '../testing/user-journeys.js';
import { collectionStepSettings } from './collection-executor.js';
import { plannedSweepCheck } from './sweep-fee-quote.js';

let devnet: Devnet;
beforeAll(async () => { devnet = await startTestDevnet(); });
afterAll(async () => { await devnet.close(); });

/** The devnet gateway whose dry run answers `fail` (when set) instead of the node. */
function failingDryRun(inner: ChainGateway, fail: { error: Error | null }): ChainGateway {
  const chain = Object.create(inner) as ChainGateway;
  chain.estimateTrc20TransferEnergy = async (...args) => {
    if (fail.error !== null) throw fail.error;
    return inner.estimateTrc20TransferEnergy(...args);
  };
  return chain;
}

describe('plannedSweepCheck (the energy check before a collection)', () => {
  it('refuses only for want of energy; a failing node or a reverting dry run makes the task; TRX needs no energy', async () => {
    const fail: { error: Error | null } = { error: null };
    const core = buildTestCore(devnet, { chain: (d) => failingDryRun(createDevnetChainGateway(d), fail) });
    const user = await userWithWallets(core.app, core.readCode, `check${Math.random()}@example.com`, 1);
    const wallet = (await core.stores.wallets.findByAddress(user.subs[0]!))!;
    const assets = createAssetRegistry({ usdtContract: devnet.usdtAddress });
    const [usdt, trx] = [assets.find('TRON', 'USDT')!, assets.find('TRON', 'TRX')!];
    const check = plannedSweepCheck({
      chain: core.chain, clock: core.clock, wallets: core.stores.wallets, cipher: AesGcmKeyCipher.fromConfig(randomBytes(32).toString('base64')),
      energy: { self: new SelfDelegationEnergyProvider(core.chain) },
    }, collectionStepSettings({}));
    devnet.fundToken(wallet.address, 5_000_000n);
    devnet.mine(1);

    const refusal = await check(wallet, user.main, usdt, 5_000_000n);
    expect(refusal).toBeInstanceOf(DomainError);
    expect(refusal).toMatchObject({ code: 'BIZ-ENERGY-UNAVAILABLE' });
    expect(refusal!.message).toMatch(/self: the main address cannot delegate enough energy; burn: .*To sweep, /);

    for (const error of [
      new ChainError('CHAIN-NODE-UNAVAILABLE', 'node down', { transient: true }),
      new ChainError('CHAIN-NODE-UNAVAILABLE', 'node refused for good', { transient: false }),
      new DomainError('BIZ-TRANSFER-WOULD-REVERT'),
    ]) {
      fail.error = error;
      expect(await check(wallet, user.main, usdt, 5_000_000n), error.message).toBeNull();
    }
    // A bug is not swallowed.
    fail.error = new TypeError('a bug');
    await expect(check(wallet, user.main, usdt, 5_000_000n)).rejects.toThrow('a bug');
    // TRX sweeps need no energy: nothing is read (the failing dry run is never asked).
    expect(await check(wallet, user.main, trx, 5_000_000n)).toBeNull();
  });
});
