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
      if (plan.path === 'rental') expect(input.rental).not.toBeNull();
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
      self: { feasible: true }, rental: { provider: 'tronsave', priceSun: 2_900_000n }, burnEnabled: true, maxBurnSun: null, minRecoverSun: 100_000n,
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
      self: { feasible: false }, rental: null, burnEnabled: false, maxBurnSun: null, minRecoverSun: 0n,
    });
    expect(decision).toMatchObject({ refusal: expect.stringMatching(/self: .*rental: .*burn: /) });
  });
});
