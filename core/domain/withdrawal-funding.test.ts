import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { COLLECTION_STATUS, type EnergyPath, type StepRecord } from './model/collection-task.js';
import { ACTIVATION_BANDWIDTH_FEE_SUN, ACTIVATION_FEE_SUN } from './sweep-plan.js';
import { commandBroadcast, nextFundingPhase, planTrxFunding, reclaimPhaseAfterFailure, type WithdrawalFunding } from './withdrawal-funding.js';

const sun = fc.bigInt({ min: 0n, max: 10n ** 12n });
const tx = { txid: 'ab'.repeat(32), signedJson: '{}', expiresAt: 0, broadcastAt: 1 };

function funding(energyPath: EnergyPath | null, steps: StepRecord[] = []): WithdrawalFunding {
  return {
    mainAddress: 'main', phase: COLLECTION_STATUS.FUNDING_TRX, energyPath, steps, outcome: null,
    plan: { path: 'none', provider: null, energy: 0, activate: false, subNeedsSun: 0n, fundSun: 0n, sourceSun: 0n, estimatedCostSun: 0n, options: [] },
  };
}

function record(status: StepRecord['status'], amount: bigint | null, sent = true): StepRecord {
  return { status, transaction: sent ? tx : null, orderRef: null, amount, startedAt: 0, completedAt: 0 };
}

describe('planTrxFunding', () => {
  it('funds exactly what the fees need beyond the sub-address\'s TRX (never the amount), or refuses when main cannot pay it', () => {
    fc.assert(fc.property(sun, sun, fc.bigInt({ min: 0n, max: 2_000_000n }), sun, fc.boolean(), (amount, extra, reserveSun, mainTrxSun, subExists) => {
      const subTrxSun = subExists ? amount + extra : 0n;
      const decision = planTrxFunding({ amount, subExists, subTrxSun, reserveSun, mainTrxSun });
      const missing = amount + reserveSun > subTrxSun ? amount + reserveSun - subTrxSun : 0n;
      const fund = missing > 0n ? missing : subExists ? 0n : 1n;
      const spends = fund + (subExists ? 0n : ACTIVATION_FEE_SUN + ACTIVATION_BANDWIDTH_FEE_SUN);
      if (spends > mainTrxSun) {
        expect('refusal' in decision && decision.refusal).toContain(`${spends} SUN needed`);
        return;
      }
      if (!('plan' in decision)) throw new Error('refused though main can pay');
      expect(decision.plan.fundSun).toBe(fund);
      if (subExists) expect(decision.plan.fundSun).toBeLessThanOrEqual(reserveSun);
      expect(decision.plan.subNeedsSun - decision.plan.fundSun).toBeLessThanOrEqual(subTrxSun);
      expect({ path: decision.plan.path, energy: decision.plan.energy }).toEqual({ path: 'none', energy: 0 });
    }));
  });
});

describe('the funded flow', () => {
  it('walks the collection\'s TRC20 steps: the undelegation only on the self-delegation path', () => {
    for (const [path, expected] of [
      ['self', ['ACQUIRING_ENERGY', 'WAIT_ENERGY_READY', 'COLLECTING', 'UNDELEGATING_ENERGY', 'RECOVER_TRX']],
      ['rental', ['ACQUIRING_ENERGY', 'WAIT_ENERGY_READY', 'COLLECTING', 'RECOVER_TRX']],
      [null, ['ACQUIRING_ENERGY', 'WAIT_ENERGY_READY', 'COLLECTING', 'RECOVER_TRX']],
    ] as const) {
      const seen: string[] = [];
      let f: WithdrawalFunding | null = funding(path);
      for (let next = nextFundingPhase(f); next !== null; next = nextFundingPhase(f!)) {
        seen.push(Object.entries(COLLECTION_STATUS).find(([, v]) => v === next)![0]);
        f = { ...f!, phase: next };
      }
      expect(seen).toEqual(expected);
    }
  });

  it('a failure gives back a self-delegation first, else a real funding (not a 1 SUN activation), else nothing', () => {
    const arb = fc.record({
      path: fc.constantFrom<EnergyPath | null>('self', 'rental', 'burn', null),
      funded: fc.option(fc.bigInt({ min: 1n, max: 10n ** 9n }), { nil: null }),
      delegated: fc.boolean(), sent: fc.boolean(),
    });
    fc.assert(fc.property(arb, ({ path, funded, delegated, sent }) => {
      const steps = [
        ...(funded === null ? [] : [record(COLLECTION_STATUS.FUNDING_TRX, funded, sent)]),
        ...(delegated ? [record(COLLECTION_STATUS.ACQUIRING_ENERGY, 5n, sent)] : []),
      ];
      const phase = reclaimPhaseAfterFailure(funding(path, steps));
      const expected = sent && delegated && path === 'self' ? COLLECTION_STATUS.UNDELEGATING_ENERGY
        : sent && funded !== null && funded > 1n ? COLLECTION_STATUS.RECOVER_TRX : null;
      expect(phase).toBe(expected);
      // An admin cancel is refused as soon as any of them may be out.
      expect(commandBroadcast({ transaction: null, funding: funding(path, steps) })).toBe(sent && steps.length > 0);
    }));
  });
});
