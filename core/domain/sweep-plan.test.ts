/**
 * The sweep planner (plan before spending): the cheapest source that can be taken, never more than that source's
 * price plus the bandwidth floor, nothing when no source fits, and only the TRX the sub-address lacks.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ACTIVATION_BANDWIDTH_FEE_SUN, ACTIVATION_FEE_SUN, planSweep, TX_BYTES, type SweepInput } from './sweep-plan.js';

const TRX = 1_000_000n;
const bandwidth = fc.record({ staked: fc.integer({ min: 0, max: 5_000 }), free: fc.integer({ min: 0, max: 600 }) });
const inputArb: fc.Arbitrary<SweepInput> = fc.record({
  subExists: fc.boolean(),
  subTrxSun: fc.bigInt({ min: 0n, max: 20n * TRX }),
  subBandwidth: bandwidth,
  subEnergy: fc.integer({ min: 0, max: 140_000 }),
  energyNeeded: fc.constantFrom(64_285, 130_285, 87_906, 14_651),
  mainTrxSun: fc.bigInt({ min: 0n, max: 1_000n * TRX }),
  mainBandwidth: bandwidth,
  energySun: fc.constantFrom(100n, 210n, 420n),
  bandwidthSun: fc.constantFrom(1_000n, 100n),
  self: fc.option(fc.record({ feasible: fc.boolean() }), { nil: null }),
  rental: fc.option(fc.record({ provider: fc.constantFrom('tronsave', 'itrx'), priceSun: fc.bigInt({ min: 0n, max: 20n * TRX }) }), { nil: null }),
  rentalConfigured: fc.boolean(),
  burnEnabled: fc.boolean(),
  maxBurnSun: fc.option(fc.bigInt({ min: 0n, max: 20n * TRX }), { nil: null }),
  minRecoverSun: fc.constantFrom(0n, 100_000n, TRX),
});

/** Every byte a sweep can burn (funding, delegation, undelegation, the sweep, the recovery) plus activation. */
function bandwidthFloor(input: SweepInput): bigint {
  const bytes = TX_BYTES.trxTransfer + TX_BYTES.delegate + TX_BYTES.undelegate + TX_BYTES.trc20Transfer + TX_BYTES.trxTransfer;
  return BigInt(bytes) * input.bandwidthSun + (input.subExists ? 0n : ACTIVATION_FEE_SUN + ACTIVATION_BANDWIDTH_FEE_SUN);
}

describe('planSweep', () => {
  it('takes the cheapest option that can be taken; refuses only when none can', () => {
    fc.assert(fc.property(inputArb, (input) => {
      const decision = planSweep(input);
      if ('refusal' in decision) {
        expect(decision.options.every((o) => o.refusal !== null)).toBe(true);
        return;
      }
      const { plan } = decision;
      const takeable = plan.options.filter((o) => o.refusal === null);
      expect(takeable.map((o) => o.path)).toContain(plan.path);
      for (const o of takeable) expect(plan.estimatedCostSun <= o.costSun).toBe(true);
    }));
  });

  it('never spends more than the chosen source\'s price plus the bandwidth floor', () => {
    fc.assert(fc.property(inputArb, (input) => {
      const decision = planSweep(input);
      if ('refusal' in decision) return;
      const { plan } = decision;
      const shortfall = BigInt(Math.max(0, input.energyNeeded - input.subEnergy));
      const source = plan.path === 'burn' ? shortfall * input.energySun : plan.path === 'rental' ? input.rental!.priceSun : 0n;
      expect(plan.estimatedCostSun <= source + bandwidthFloor(input)).toBe(true);
      expect(plan.estimatedCostSun >= source).toBe(true);
    }));
  });

  it('sends the sub only what it lacks: nothing to an activated sub that can pay its sweep, 1 SUN to activate a new one', () => {
    fc.assert(fc.property(inputArb, (input) => {
      const decision = planSweep(input);
      if ('refusal' in decision) return;
      const { plan } = decision;
      const lacking = plan.subNeedsSun > input.subTrxSun ? plan.subNeedsSun - input.subTrxSun : 0n;
      expect(plan.fundSun).toBe(lacking > 0n ? lacking : input.subExists ? 0n : 1n);
      expect(plan.activate).toBe(!input.subExists);
      if (plan.path !== 'burn') expect(plan.subNeedsSun <= BigInt(TX_BYTES.trc20Transfer) * input.bandwidthSun).toBe(true);
    }));
  });

  it('a source refused by configuration or capacity is never chosen', () => {
    fc.assert(fc.property(inputArb, (input) => {
      const decision = planSweep(input);
      if ('refusal' in decision) return;
      const { plan } = decision;
      if (plan.path === 'self') expect(input.self?.feasible).toBe(true);
      if (plan.path === 'rental') expect(input.rental !== null && input.rentalConfigured).toBe(true);
      if (plan.path === 'burn') {
        expect(input.burnEnabled).toBe(true);
        const burn = BigInt(plan.energy) * input.energySun;
        if (input.maxBurnSun !== null) expect(burn <= input.maxBurnSun).toBe(true);
      }
      if (plan.path === 'none') expect(input.subEnergy >= input.energyNeeded).toBe(true);
    }));
  });

  it('the floors of tron-facts.md: a repeat self-delegated sweep costs 0 with staked bandwidth and 0.56 TRX without', () => {
    const base: SweepInput = {
      subExists: true, subTrxSun: 0n, subBandwidth: { staked: 0, free: 600 }, subEnergy: 0, energyNeeded: 64_285,
      mainTrxSun: 100n * TRX, mainBandwidth: { staked: 10_000, free: 0 }, energySun: 100n, bandwidthSun: 1_000n,
      self: { feasible: true }, rental: { provider: 'tronsave', priceSun: 2_900_000n }, rentalConfigured: true, burnEnabled: true, maxBurnSun: null,
      minRecoverSun: 100_000n,
    };
    const staked = planSweep(base);
    expect('plan' in staked && staked.plan).toMatchObject({ path: 'self', estimatedCostSun: 0n, fundSun: 0n });
    const unstaked = planSweep({ ...base, mainBandwidth: { staked: 0, free: 0 } });
    expect('plan' in unstaked && unstaked.plan).toMatchObject({ path: 'self', estimatedCostSun: 560_000n, fundSun: 0n });
    // A first sweep adds the activation: 1 TRX, plus 0.1 TRX unless staked bandwidth pays the creating transfer.
    const fresh = planSweep({ ...base, subExists: false, subBandwidth: { staked: 0, free: 0 }, mainBandwidth: { staked: 0, free: 0 } });
    expect('plan' in fresh && fresh.plan).toMatchObject({ path: 'self', estimatedCostSun: 1_660_000n, fundSun: 1n, activate: true });
    // Burning to a holder: 64,285 × 100 SUN = 6.4285 TRX, funded to the sub.
    const burn = planSweep({ ...base, self: null, rental: null });
    expect('plan' in burn && burn.plan).toMatchObject({ path: 'burn', estimatedCostSun: 6_428_500n, fundSun: 6_428_500n });
    // Rental: its price, the sub's free bandwidth pays the sweep.
    const rental = planSweep({ ...base, self: { feasible: false } });
    expect('plan' in rental && rental.plan).toMatchObject({ path: 'rental', provider: 'tronsave', estimatedCostSun: 2_900_000n });
  });

  it('nothing fits: a refusal naming every source, and no plan', () => {
    const decision = planSweep({
      subExists: true, subTrxSun: 0n, subBandwidth: { staked: 0, free: 600 }, subEnergy: 0, energyNeeded: 64_285,
      mainTrxSun: 100n * TRX, mainBandwidth: { staked: 0, free: 0 }, energySun: 100n, bandwidthSun: 1_000n,
      self: { feasible: false }, rental: null, rentalConfigured: true, burnEnabled: false, maxBurnSun: null, minRecoverSun: 0n,
    });
    expect(decision).toMatchObject({ refusal: expect.stringMatching(/self: .*rental: .*burn: /) });
  });

  // Issue #34: `serve`'s default (self-delegation, no rental, no burning) on an unstaked main address.
  const unstaked: SweepInput = {
    subExists: true, subTrxSun: 0n, subBandwidth: { staked: 0, free: 600 }, subEnergy: 0, energyNeeded: 64_285,
    mainTrxSun: 100n * TRX, mainBandwidth: { staked: 0, free: 0 }, energySun: 100n, bandwidthSun: 1_000n,
    self: { feasible: false, stakeSun: 70_500_000n }, rental: null, rentalConfigured: false, burnEnabled: false, maxBurnSun: null,
    minRecoverSun: 0n, mainAddress: 'TMainAddress',
  };

  it('refused with only self-delegation configured: no word of a rental, and the three fixes, the stake sized', () => {
    const decision = planSweep(unstaked);
    if (!('refusal' in decision)) throw new Error('expected a refusal');
    expect(decision.refusal).not.toMatch(/rental:|rental quote|price cap/);
    expect(decision.options.map((o) => o.path)).toEqual(['self', 'burn']);
    expect(decision.fixes).toEqual([
      'stake about 71 TRX for energy on the main address TMainAddress (POST /wallets/TMainAddress/stake with resource ENERGY) so that it can delegate 64285 energy',
      'configure an energy rental provider (ENERGY_PROVIDER=rental with TRONSAVE_API_KEY, or ITRX_API_KEY and ITRX_API_SECRET)',
      'set ENERGY_BURN=true (this sweep would burn about 7 TRX for its energy)',
    ]);
    expect(decision.refusal).toContain(`To sweep, ${decision.fixes.join('; or ')}`);
  });

  it('a main address too poor for any source: the fix says how much TRX to send it', () => {
    const decision = planSweep({ ...unstaked, subExists: false, mainTrxSun: 500_000n, burnEnabled: true });
    if (!('refusal' in decision)) throw new Error('expected a refusal');
    expect(decision.fixes[0]).toBe('send at least 8 TRX to the main address TMainAddress (it pays the sub-address\'s activation and fees)');
  });

  it('a refusal names only the configured sources, and always offers a fix that would let a source fit', () => {
    fc.assert(fc.property(inputArb, (input) => {
      const decision = planSweep(input);
      if (!('refusal' in decision)) return;
      const reasons = decision.refusal.split('. To sweep, ')[0]!;
      const short = input.energyNeeded > input.subEnergy;
      expect(/\brental: /.test(reasons)).toBe(input.rentalConfigured && short);
      expect(/\bself: /.test(reasons)).toBe(input.self !== null && short);
      expect(decision.fixes.length).toBeGreaterThan(0);
      // Each fix, applied, makes a plan: a source configured, switched on, or paid for.
      for (const fix of decision.fixes) {
        const fixed: SweepInput = fix.startsWith('send at least') ? { ...input, mainTrxSun: input.mainTrxSun + 1_000n * TRX }
          : fix.startsWith('stake') ? { ...input, self: { feasible: true }, mainTrxSun: input.mainTrxSun + 1_000n * TRX }
            : fix.startsWith('configure') || fix.startsWith('wait') ? { ...input, rentalConfigured: true, rental: { provider: 'itrx', priceSun: TRX }, mainTrxSun: input.mainTrxSun + 1_000n * TRX }
              : { ...input, burnEnabled: true, maxBurnSun: null, mainTrxSun: input.mainTrxSun + 1_000n * TRX };
        expect('plan' in planSweep(fixed), fix).toBe(true);
      }
    }));
  });
});
