/**
 * Self-delegation against the shared contract on the devnet, plus what only it has: its sizing rule and its memory
 * of references across expiry. The rental adapters have their own file (rental-providers.test.ts).
 */
import { runs } from '../../contracts-tests/support/depth.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DomainError } from '../../core/domain/errors.js';
import { describeEnergyProviderContract } from '../../contracts-tests/energy-provider.contract.js';
import { devnetEnergySubject } from '../../contracts-tests/harness/tron-devnet.js';
import type { ChainGateway } from '../../core/ports/chain-gateway.port.js';
import { DEFAULT_DELEGATION_MARGIN_BPS, SelfDelegationEnergyProvider, selfDelegationSun, withMargin } from './self-delegation-energy-provider.js';

describeEnergyProviderContract('SelfDelegationEnergyProvider on the devnet', () => devnetEnergySubject('self'), {
  // 20,000 TRX of stake yields ≈ 200,000 energy: a million is out of reach.
  uncoverableEnergy: 1_000_000,
  // Its default margin (5 %): a delivery still covers the request after the network's weight grows by 4.5 %.
  weightGrowthBps: 450,
});

describe('SelfDelegationEnergyProvider references across expiry (adapter-only: needs time travel and its own memory)', () => {
  it('an expired, never-sent delegation is re-signed; one that landed keeps being returned', async () => {
    const s = await devnetEnergySubject('self');
    try {
      const req = { receiver: await s.newReceiver(), energy: 65_000, reference: 'sweep-1' };
      const lost = await s.provider.acquire(req, s.main);
      await s.advance!(120_000);
      const fresh = await s.provider.acquire(req, s.main);
      expect(fresh.kind === 'transaction' && lost.kind === 'transaction' && fresh.tx.txid !== lost.tx.txid).toBe(true);
      if (fresh.kind !== 'transaction') return;
      await s.chain.broadcast(fresh.tx);
      await s.mine(1);
      await s.advance!(120_000);
      expect(await s.provider.acquire(req, s.main)).toEqual(fresh);
      expect((await s.chain.getResources(req.receiver)).energy.receivedSun).toBe(fresh.delegatedSun);
    } finally {
      await s.close?.();
    }
  });
});

describe('selfDelegationSun', () => {
  it('is the least whole-TRX stake whose floored energy covers the request (at least 1 TRX)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 5_000_000 }), fc.double({ min: 1e-7, max: 1e-3, noNaN: true }), (energy, perSun) => {
        const sun = selfDelegationSun(energy, perSun);
        const trx = Number(sun / 1_000_000n);
        // The same floating-point expression as the rule, so float rounding cannot make the oracle disagree.
        const perTrx = perSun * 1_000_000;
        expect(sun % 1_000_000n).toBe(0n);
        expect(trx).toBeGreaterThanOrEqual(1);
        expect(Math.floor(trx * perTrx)).toBeGreaterThanOrEqual(energy);
        if (trx > 1) expect(Math.floor((trx - 1) * perTrx)).toBeLessThan(energy);
      }),
      { numRuns: runs(200) },
    );
  });

  it('rejects a non-positive request or ratio', () => {
    for (const [energy, ratio] of [[0, 1e-5], [-1, 1e-5], [1.5, 1e-5], [10, 0], [10, Number.NaN]] as const) {
      expect(() => selfDelegationSun(energy, ratio)).toThrow(RangeError);
    }
  });
});

describe('SelfDelegationEnergyProvider sizing: the live ratio plus a margin against weight drift', () => {
  /** Only what the sizing reads: the ratio, and the main address's delegatable stake. */
  const chainAt = (perSun: number, canDelegateSun = 0n): ChainGateway => ({
    energyPerStakedSun: async () => perSun,
    getCanDelegateEnergySun: async () => canDelegateSun,
  }) as unknown as ChainGateway;
  const main = { address: 'TLsV52sRDL79HXGGm9yzwKibb6BeruhUzy', privateKey: async () => '' };

  it('withMargin adds marginBps of the request, rounded up', () => {
    expect(withMargin(64_285, 500)).toBe(67_500);
    expect(withMargin(100_000, 0)).toBe(100_000);
    expect(withMargin(1, 500)).toBe(2);
    expect(DEFAULT_DELEGATION_MARGIN_BPS).toBe(500);
  });

  it('the delegated stake still covers the request after the weight grows by up to the margin, and not much more is staked', async () => {
    await fc.assert(fc.asyncProperty(
      fc.integer({ min: 1, max: 3_000_000 }), fc.double({ min: 1e-7, max: 1e-3, noNaN: true }), fc.integer({ min: 0, max: 2_000 }),
      fc.integer({ min: 0, max: 10_000 }),
      async (energy, perSun, marginBps, growthShare) => {
        const sun = await new SelfDelegationEnergyProvider(chainAt(perSun), { marginBps }).sunFor(energy);
        const trx = Number(sun / 1_000_000n);
        // The weight grows by `growth` bps (anywhere in [0, margin]): each staked TRX yields proportionally less.
        const growth = Math.floor((marginBps * growthShare) / 10_000);
        const perTrxAfter = (perSun * 1_000_000 * 10_000) / (10_000 + growth);
        expect(Math.floor(trx * perTrxAfter * (1 + 1e-12))).toBeGreaterThanOrEqual(energy);
        expect(sun).toBe(selfDelegationSun(withMargin(energy, marginBps), perSun));
      },
    ), { numRuns: runs(200) });
  });

  it('canProvide counts the margin: stake for the bare request is not enough', async () => {
    const perSun = 1e-5; // 10 energy per TRX
    const bare = selfDelegationSun(65_000, perSun);
    const request = { receiver: main.address, energy: 65_000, reference: 'r' };
    expect(await new SelfDelegationEnergyProvider(chainAt(perSun, bare)).canProvide(request, main)).toBe(false);
    expect(await new SelfDelegationEnergyProvider(chainAt(perSun, bare), { marginBps: 0 }).canProvide(request, main)).toBe(true);
    const withIt = selfDelegationSun(withMargin(65_000, 500), perSun);
    expect(await new SelfDelegationEnergyProvider(chainAt(perSun, withIt)).canProvide(request, main)).toBe(true);
    const e = await new SelfDelegationEnergyProvider(chainAt(perSun, bare)).acquire(request, main).catch((x: unknown) => x);
    expect(e).toMatchObject({ code: 'BIZ-ENERGY-UNAVAILABLE' });
  });

  it('refuses a margin outside 0..10000 bps and a request that is not a positive integer', async () => {
    for (const marginBps of [-1, 1.5, 10_001]) expect(() => new SelfDelegationEnergyProvider(chainAt(1e-5), { marginBps })).toThrow(RangeError);
    await expect(new SelfDelegationEnergyProvider(chainAt(1e-5)).sunFor(0)).rejects.toBeInstanceOf(DomainError);
  });
});
