import { runs } from '../../contracts-tests/support/depth.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { aCommand, addressOf, T0 } from '../../contracts-tests/support/fixtures.js';
import { sumsPerAsset } from '../domain/ledger.js';
import { COLLECTION_STATUS, type CollectionStatus, type StepRecord } from '../domain/model/collection-task.js';
import { COMMAND_STATUS, COMMAND_TYPE } from '../domain/model/command.js';
import type { WithdrawalFunding } from '../domain/withdrawal-funding.js';
import { withdrawalBooking, type SettledReceipt } from './ledger-bookings.js';

const MAIN = addressOf(900);
const SUB = addressOf(1);
const OWN = addressOf(2);
const OUTSIDE = addressOf(3);
const FUNDING_KINDS: CollectionStatus[] = [
  COLLECTION_STATUS.FUNDING_TRX, COLLECTION_STATUS.ACQUIRING_ENERGY, COLLECTION_STATUS.RECOVER_TRX, COLLECTION_STATUS.UNDELEGATING_ENERGY,
];
const sun = fc.bigInt({ min: 0n, max: 50_000_000n });
const receiptArb = fc.oneof(
  fc.constant(undefined),
  fc.record({ state: fc.constantFrom('confirmed' as const, 'failed' as const), net: sun, energy: sun, rest: sun }),
);
const scenarioArb = fc.record({
  funded: fc.boolean(), status: fc.constantFrom(COMMAND_STATUS.SUCCESS, COMMAND_STATUS.FAILED), asset: fc.constantFrom('TRX', 'USDT'),
  toOwn: fc.boolean(), amount: fc.bigInt({ min: 1n, max: 10n ** 12n }), transfer: receiptArb, refund: fc.boolean(),
  steps: fc.array(fc.record({ status: fc.constantFrom(...FUNDING_KINDS), amount: sun, receipt: receiptArb }), { maxLength: 6 }),
});
type Drawn = { readonly state: 'confirmed' | 'failed'; readonly net: bigint; readonly energy: bigint; readonly rest: bigint };

function receiptOf(d: Drawn): SettledReceipt {
  const feeSun = d.net + d.energy + d.rest;
  return d.state === 'confirmed'
    ? { state: 'confirmed', blockNumber: 1, confirmations: 1, solidified: true, feeSun, energyUsed: 0, netFeeSun: d.net, energyFeeSun: d.energy }
    : { state: 'failed', blockNumber: 1, reason: 'REVERT', feeSun, netFeeSun: d.net, energyFeeSun: d.energy };
}

/** Issue #36: a finished withdrawal's booking, over random transfers, fundings and receipts (confirmed, failed, never included). */
describe('withdrawalBooking', () => {
  it('balances per asset and matches a per-address model: the amount only on a confirmed SUCCESS, each fee on its signer', () => {
    fc.assert(fc.property(scenarioArb, (s) => {
      const receipts = new Map<string, SettledReceipt>();
      const txid = (i: number) => i.toString(16).padStart(64, '0');
      const from = s.funded ? SUB : MAIN;
      const steps: StepRecord[] = s.steps.map((d, i) => {
        if (d.receipt !== undefined) receipts.set(txid(i + 1), receiptOf(d.receipt));
        return { status: d.status, transaction: { txid: txid(i + 1), signedJson: '{}', expiresAt: T0, broadcastAt: T0 }, orderRef: null, amount: d.amount, startedAt: T0, completedAt: T0 };
      });
      if (s.transfer !== undefined) receipts.set(txid(0), receiptOf(s.transfer));
      const funding: WithdrawalFunding = {
        mainAddress: MAIN, phase: COLLECTION_STATUS.RECOVER_TRX, energyPath: 'self', steps, outcome: null,
        plan: { path: 'self', provider: null, energy: 1, activate: false, subNeedsSun: 0n, fundSun: 0n, sourceSun: 0n, estimatedCostSun: 0n, options: [] },
      };
      const command = aCommand({
        type: COMMAND_TYPE.WITHDRAWAL, status: s.status, finishedAt: T0 + 7, address: from, assetSymbol: s.asset,
        // A refund of a payment request (issue #36 item 4) is booked alike, under its own kind.
        params: { to_address: s.toOwn ? OWN : OUTSIDE, amount: s.amount.toString(), ...(s.refund ? { refund_of: 'CT0001' } : {}) },
        transaction: { txid: txid(0), signedJson: '{}', expiresAt: T0, broadcastAt: T0 }, funding: s.funded ? funding : null,
      });
      const tx = withdrawalBooking(command, receipts, { networkCode: 'TRON', toOwnAddress: s.toOwn }, 'LT1');

      // The model, per address and asset.
      const expected = new Map<string, bigint>();
      const add = (key: string, amount: bigint) => expected.set(key, (expected.get(key) ?? 0n) + amount);
      let bandwidth = 0n;
      let burnt = 0n;
      let out = 0n;
      const paid = (payer: string, d: Drawn) => {
        add(`${payer}|TRX`, -(d.net + d.energy + d.rest));
        bandwidth += d.net;
        burnt += d.energy + d.rest;
      };
      if (s.transfer !== undefined) {
        paid(from, s.transfer);
        if (s.transfer.state === 'confirmed' && s.status === COMMAND_STATUS.SUCCESS) {
          add(`${from}|${s.asset}`, -s.amount);
          if (s.toOwn) add(`${OWN}|${s.asset}`, s.amount);
          else out = s.amount;
        }
      }
      if (s.funded) {
        for (const d of s.steps) {
          if (d.receipt === undefined) continue;
          paid(d.status === COLLECTION_STATUS.RECOVER_TRX ? SUB : MAIN, d.receipt);
          if (d.receipt.state !== 'confirmed') continue;
          if (d.status === COLLECTION_STATUS.FUNDING_TRX) { add(`${MAIN}|TRX`, -d.amount); add(`${SUB}|TRX`, d.amount); }
          if (d.status === COLLECTION_STATUS.RECOVER_TRX) { add(`${SUB}|TRX`, -d.amount); add(`${MAIN}|TRX`, d.amount); }
        }
      }
      const nonZero = new Map([...expected].filter(([, v]) => v !== 0n));
      if (tx === null) {
        expect({ nonZero: nonZero.size, bandwidth, burnt, out }).toEqual({ nonZero: 0, bandwidth: 0n, burnt: 0n, out: 0n });
        return;
      }
      for (const [asset, sum] of sumsPerAsset(tx.lines)) expect(sum, asset).toBe(0n);
      expect(tx.lines.every((l) => l.amount !== 0n)).toBe(true);
      expect(tx.cause).toEqual({ type: s.refund ? 'refund' : 'withdrawal', id: 'C0001', txid: txid(0) });
      expect(tx.occurredAt).toBe(T0 + 7);
      const custodial = new Map(tx.lines.filter((l) => l.account.kind === 'custodial').map((l) => [`${l.account.address}|${l.account.assetSymbol}`, l.amount]));
      expect(custodial).toEqual(nonZero);
      const held = (kind: string, asset = 'TRX') => tx.lines.find((l) => l.account.kind === kind && l.account.assetSymbol === asset)?.amount ?? 0n;
      expect({ bandwidth: held('fee_bandwidth'), burnt: held('fee_trx_burned'), out: held('external_out', s.asset) }).toEqual({ bandwidth, burnt, out });
    }), { numRuns: runs(400) });
  });

  it('a FAILED withdrawal that never reached the chain books nothing; only a finished withdrawal can be booked', () => {
    const failed = aCommand({ type: COMMAND_TYPE.WITHDRAWAL, status: COMMAND_STATUS.FAILED, finishedAt: T0, params: { to_address: OUTSIDE, amount: '5' } });
    expect(withdrawalBooking(failed, new Map(), { networkCode: 'TRON', toOwnAddress: false }, 'LT1')).toBeNull();
    for (const c of [aCommand({ type: COMMAND_TYPE.WITHDRAWAL, status: COMMAND_STATUS.RUNNING }), aCommand({ type: COMMAND_TYPE.STAKE, status: COMMAND_STATUS.SUCCESS, finishedAt: T0 })]) {
      expect(() => withdrawalBooking(c, new Map(), { networkCode: 'TRON', toOwnAddress: false }, 'LT1')).toThrow(RangeError);
    }
  });
});
