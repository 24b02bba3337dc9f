import { runs } from '../../contracts-tests/support/depth.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { aCommand, aTask, addressOf, T0 } from '../../contracts-tests/support/fixtures.js';
import { holderAccount, providerPrepaidAccount, sumsPerAsset, type LedgerTransaction } from '../domain/ledger.js';
import { COLLECTION_STATUS, type CollectionStatus, type StepRecord } from '../domain/model/collection-task.js';
import { COMMAND_STATUS, COMMAND_TYPE } from '../domain/model/command.js';
import type { SweepPlan } from '../domain/sweep-plan.js';
import { collectionBooking, rentalPaid, withdrawalBooking } from './ledger-bookings.js';
import { withRentalPaid } from './worker/collection-steps.js';

const STATUSES: CollectionStatus[] = [
  COLLECTION_STATUS.FUNDING_TRX, COLLECTION_STATUS.ACQUIRING_ENERGY, COLLECTION_STATUS.WAIT_ENERGY_READY, COLLECTION_STATUS.COLLECTING,
];
const planArb = fc.record({
  path: fc.constantFrom('rental' as const, 'self' as const, 'burn' as const, 'none' as const),
  provider: fc.option(fc.constantFrom('tronsave', 'itrx'), { nil: null }),
  sourceSun: fc.bigInt({ min: 0n, max: 10_000_000n }),
}).map((p): SweepPlan => ({ ...p, energy: 65_000, activate: false, subNeedsSun: 0n, fundSun: 0n, estimatedCostSun: p.sourceSun, options: [] }));
/** Records without transactions (nothing landed on chain): the rental is the only thing a booking can hold. */
const recordsArb = fc.array(fc.record({ status: fc.constantFrom(...STATUSES), order: fc.boolean(), completed: fc.boolean() }), { maxLength: 5 })
  .map((drawn) => drawn.map((d): StepRecord => ({
    status: d.status, transaction: null, orderRef: d.order ? 'order-1' : null, startedAt: T0, completedAt: d.completed ? T0 + 1 : null,
  })));

/** The rental lines of a booking: what the provider's prepaid accounts and fee_energy_rental hold in it. */
function rentalOf(tx: LedgerTransaction | null) {
  const lines = tx?.lines ?? [];
  return {
    prepaid: lines.filter((l) => l.account.kind === 'provider_prepaid').map((l) => [l.account.address, l.amount]),
    fee: lines.filter((l) => l.account.kind === 'fee_energy_rental').reduce((s, l) => s + l.amount, 0n),
    custodial: lines.filter((l) => l.account.kind === 'custodial').length,
  };
}

/** Issue #36: the energy rental price, paid off chain, is booked from the provider's prepaid account. */
describe('the rental price in the books', () => {
  it('rentalPaid: exactly when the plan chose a priced rental and its order was delivered (the ACQUIRING_ENERGY order record completed)', () => {
    fc.assert(fc.property(planArb, recordsArb, (plan, steps) => {
      const delivered = steps.some((s) => s.status === COLLECTION_STATUS.ACQUIRING_ENERGY && s.orderRef !== null && s.completedAt !== null);
      const paid = plan.path === 'rental' && plan.sourceSun > 0n && delivered;
      expect(rentalPaid(plan, steps)).toEqual(paid ? { provider: plan.provider ?? 'rental', priceSun: plan.sourceSun } : null);
      expect(rentalPaid(undefined, steps)).toBeNull();
    }), { numRuns: runs(300) });
  });

  it('a collection, DONE or FAILED, books its rental once in its own transaction: the provider\'s prepaid account pays fee_energy_rental, no address does; the figure is the cost record\'s', () => {
    fc.assert(fc.property(planArb, recordsArb, fc.boolean(), (plan, steps, failed) => {
      const task = failed
        ? aTask({ status: COLLECTION_STATUS.FAILED, finishedAt: T0 + 5, plan, steps })
        : aTask({ status: COLLECTION_STATUS.DONE, finishedAt: T0 + 5, plan, steps, sweptAmount: 7n, sweepTxHash: 'ab'.repeat(32) });
      const tx = collectionBooking(task, new Map(), 'LT1');
      const paid = rentalPaid(plan, steps);
      if (paid === null) {
        expect(rentalOf(tx)).toEqual({ prepaid: [], fee: 0n, custodial: failed ? 0 : 2 });
        if (failed) expect(tx).toBeNull();
        return;
      }
      for (const [asset, sum] of sumsPerAsset(tx!.lines)) expect(sum, asset).toBe(0n);
      expect(rentalOf(tx)).toEqual({ prepaid: [[plan.provider ?? 'rental', -plan.sourceSun]], fee: plan.sourceSun, custodial: failed ? 0 : 2 });
      expect(tx!.cause.id).toBe(task.taskNo);
      // The executor counts the same price in the cost record when the order's step completes (withRentalPaid).
      expect(withRentalPaid(task).cost?.rentalSun).toBe(plan.sourceSun);
    }), { numRuns: runs(300) });
  });

  it('a funded withdrawal (a refund from a paying sub-address) books the rental its funding paid', () => {
    fc.assert(fc.property(planArb, recordsArb, fc.constantFrom(COMMAND_STATUS.SUCCESS, COMMAND_STATUS.FAILED), (plan, steps, status) => {
      const command = aCommand({
        type: COMMAND_TYPE.WITHDRAWAL, status, finishedAt: T0 + 9, assetSymbol: 'USDT', params: { to_address: addressOf(3), amount: '5' },
        funding: { mainAddress: addressOf(900), phase: COLLECTION_STATUS.RECOVER_TRX, plan, energyPath: plan.path === 'none' ? null : plan.path, steps, outcome: null },
      });
      const tx = withdrawalBooking(command, new Map(), { networkCode: 'TRON', toOwnAddress: false }, 'LT1');
      const paid = rentalPaid(plan, steps);
      if (paid === null) {
        expect(tx).toBeNull();
        return;
      }
      expect(tx!.lines).toEqual([
        { account: providerPrepaidAccount('TRON', 'TRX', paid.provider), amount: -paid.priceSun },
        { account: holderAccount('fee_energy_rental', 'TRON', 'TRX'), amount: paid.priceSun },
      ]);
    }), { numRuns: runs(200) });
  });
});
