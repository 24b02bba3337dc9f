import { runs } from '../../contracts-tests/support/depth.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { aTask, addressOf, T0 } from '../../contracts-tests/support/fixtures.js';
import { sumsPerAsset } from '../domain/ledger.js';
import { COLLECTION_STATUS, type CollectionStatus, type StepRecord } from '../domain/model/collection-task.js';
import { collectionBooking, stepPayer, type SettledReceipt } from './ledger-bookings.js';

const SUB = addressOf(1);
const MAIN = addressOf(900);
const STEP_KINDS: CollectionStatus[] = [
  COLLECTION_STATUS.FUNDING_TRX, COLLECTION_STATUS.ACQUIRING_ENERGY, COLLECTION_STATUS.COLLECTING, COLLECTION_STATUS.RECOVER_TRX,
  COLLECTION_STATUS.UNDELEGATING_ENERGY,
];
const sun = fc.bigInt({ min: 0n, max: 50_000_000n });
const stepArb = fc.record({
  status: fc.constantFrom(...STEP_KINDS), amount: sun,
  receipt: fc.oneof(
    fc.constant(undefined),
    fc.record({ state: fc.constantFrom('confirmed' as const, 'failed' as const), net: sun, energy: sun, rest: sun }),
  ),
});

/** Issue #36: a DONE sweep's booking, over random steps and receipts (confirmed, failed, never included). */
describe('collectionBooking', () => {
  it('balances per asset, moves only what landed, and charges each fee to the address that signed it; a FAILED task too', () => {
    fc.assert(fc.property(fc.array(stepArb, { maxLength: 8 }), fc.bigInt({ min: 1n, max: 10n ** 12n }), fc.boolean(), fc.nat({ max: 3 }), (drawn, swept, failed, reclaimed) => {
      const receipts = new Map<string, SettledReceipt>();
      const steps: StepRecord[] = drawn.map((d, i) => {
        const txid = i.toString(16).padStart(64, '0');
        if (d.receipt !== undefined) {
          const feeSun = d.receipt.net + d.receipt.energy + d.receipt.rest;
          receipts.set(txid, d.receipt.state === 'confirmed'
            ? { state: 'confirmed', blockNumber: 1, confirmations: 1, solidified: true, feeSun, energyUsed: 0, netFeeSun: d.receipt.net, energyFeeSun: d.receipt.energy }
            : { state: 'failed', blockNumber: 1, reason: 'REVERT', feeSun, netFeeSun: d.receipt.net, energyFeeSun: d.receipt.energy });
        }
        return { status: d.status, transaction: { txid, signedJson: '{}', expiresAt: T0, broadcastAt: T0 }, orderRef: null, amount: d.amount, startedAt: T0, completedAt: T0 };
      });
      // A FAILED task (issue #36: a failed sweep still burned TRX) moves no asset; its last steps may be its reclaim's,
      // booked at the reclaim's end.
      const task = failed
        ? aTask({
          status: COLLECTION_STATUS.FAILED, finishedAt: T0 + 5, steps: steps.slice(0, steps.length - Math.min(reclaimed, steps.length)), sweptAmount: null, sweepTxHash: null,
          ...(reclaimed === 0 ? {} : { reclaim: { status: 'done' as const, steps: steps.slice(steps.length - Math.min(reclaimed, steps.length)), nextRunAt: T0, lease: null, finishedAt: T0 + 9 } }),
        })
        : aTask({ status: COLLECTION_STATUS.DONE, finishedAt: T0 + 5, steps, sweptAmount: swept, sweepTxHash: 'ab'.repeat(32) });
      const tx = collectionBooking(task, receipts, 'LT1');
      // The model: per address, what landed moved, and each receipt's fee left its signer.
      const expected = new Map<string, bigint>(failed ? [] : [[`${MAIN}|USDT`, swept], [`${SUB}|USDT`, -swept]]);
      const add = (key: string, amount: bigint) => expected.set(key, (expected.get(key) ?? 0n) + amount);
      let bandwidth = 0n;
      let burnt = 0n;
      drawn.forEach((d, i) => {
        if (d.receipt === undefined) return;
        const fee = d.receipt.net + d.receipt.energy + d.receipt.rest;
        add(`${stepPayer(task, steps[i]!)}|TRX`, -fee);
        bandwidth += d.receipt.net;
        burnt += d.receipt.energy + d.receipt.rest;
        if (d.receipt.state !== 'confirmed') return;
        if (d.status === COLLECTION_STATUS.FUNDING_TRX) { add(`${MAIN}|TRX`, -d.amount); add(`${SUB}|TRX`, d.amount); }
        if (d.status === COLLECTION_STATUS.RECOVER_TRX) { add(`${SUB}|TRX`, -d.amount); add(`${MAIN}|TRX`, d.amount); }
      });
      if (tx === null) {
        // Only a FAILED task that paid and moved nothing books nothing.
        expect({ failed, moved: [...expected.values()].filter((v) => v !== 0n).length, bandwidth, burnt }).toEqual({ failed: true, moved: 0, bandwidth: 0n, burnt: 0n });
        return;
      }
      for (const [asset, sum] of sumsPerAsset(tx.lines)) expect(sum, asset).toBe(0n);
      expect(tx.lines.every((l) => l.amount !== 0n)).toBe(true);
      expect(tx.cause).toEqual(failed ? { type: 'collection', id: 'K0001' } : { type: 'collection', id: 'K0001', txid: 'ab'.repeat(32) });
      expect(tx.occurredAt).toBe(failed && reclaimed > 0 ? T0 + 9 : T0 + 5);
      const custodial = new Map(tx.lines.filter((l) => l.account.kind === 'custodial').map((l) => [`${l.account.address}|${l.account.assetSymbol}`, l.amount]));
      expect(custodial).toEqual(new Map([...expected].filter(([, v]) => v !== 0n)));
      const fee = (kind: string) => tx.lines.find((l) => l.account.kind === kind)?.amount ?? 0n;
      expect({ bandwidth: fee('fee_bandwidth'), burnt: fee('fee_trx_burned') }).toEqual({ bandwidth, burnt });
    }), { numRuns: runs(300) });
  });

  it('the sweep is signed by the sub-address and so is the recovery; every other step by the main address', () => {
    const task = aTask();
    const step = (status: CollectionStatus): StepRecord => ({ status, transaction: null, orderRef: null, startedAt: T0, completedAt: null });
    expect(STEP_KINDS.map((s) => stepPayer(task, step(s)) === SUB)).toEqual([false, false, true, true, false]);
  });

  it('refuses a task that is not DONE or FAILED, and a FAILED one whose reclaim is under way; a FAILED one that paid nothing books nothing', () => {
    expect(collectionBooking(aTask({ status: COLLECTION_STATUS.FAILED, finishedAt: T0 }), new Map(), 'LT1')).toBeNull();
    const reclaiming = { status: 'pending' as const, steps: [], nextRunAt: T0, lease: null, finishedAt: null };
    expect(() => collectionBooking(aTask({ status: COLLECTION_STATUS.FAILED, finishedAt: T0, reclaim: reclaiming }), new Map(), 'LT1')).toThrow(RangeError);
    expect(() => collectionBooking(aTask({ status: COLLECTION_STATUS.COLLECTING }), new Map(), 'LT1')).toThrow(RangeError);
  });
});
