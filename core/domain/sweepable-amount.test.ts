/**
 * The sweepable rule (issue #24 item 5): the API and the payer page judge a cached balance, the worker's planner the
 * chain. The same function decides both; what differs is what each knows of the TRX fee reserve.
 */
import { runs } from '../../contracts-tests/support/depth.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ACTIVATION_BANDWIDTH_FEE_SUN, ACTIVATION_FEE_SUN } from './sweep-plan.js';
import {
  cachedHolding, MIN_TRX_SWEEP_SUN, spendableSun, sweepableAmount, trxTransferReserveSun, type TrxTransferFacts,
} from './sweepable-amount.js';

const TRX = 1_000_000n;
const factsArb: fc.Arbitrary<TrxTransferFacts> = fc.record({
  bandwidth: fc.record({ staked: fc.integer({ min: 0, max: 1_000 }), free: fc.integer({ min: 0, max: 600 }) }),
  createsRecipient: fc.boolean(),
  transferBytes: fc.constantFrom(267, 300),
  sunPerByte: fc.constantFrom(1_000n, 100n),
});
// Balances around the interesting edges: 1 SUN of activation, the minimum, the fee reserves.
const balanceArb = fc.oneof(
  fc.bigInt({ min: 0n, max: 3n * TRX }),
  fc.constantFrom(0n, 1n, MIN_TRX_SWEEP_SUN - 1n, MIN_TRX_SWEEP_SUN, MIN_TRX_SWEEP_SUN + 300_000n, ACTIVATION_FEE_SUN + ACTIVATION_BANDWIDTH_FEE_SUN),
  fc.bigInt({ min: 0n, max: 10n ** 15n }),
);
const minArb = fc.constantFrom(MIN_TRX_SWEEP_SUN, 0n, 1n, TRX);

/** The planner's view: the chain's balance with the reserve the chain's facts give. */
const planned = (kind: 'native' | 'trc20', balance: bigint, facts: TrxTransferFacts, min: bigint): bigint =>
  sweepableAmount(kind === 'native' ? { kind, balance, reserveSun: trxTransferReserveSun(facts) } : { kind, balance }, min);
/** The API's and the payer page's view: the same balance, cached. */
const offered = (kind: 'native' | 'trc20', balance: bigint, min: bigint): bigint => sweepableAmount(cachedHolding(kind, balance), min);

describe('sweepableAmount', () => {
  it('never hides an amount the planner would sweep, and never offers more than the balance', () => {
    fc.assert(fc.property(fc.constantFrom('native' as const, 'trc20' as const), balanceArb, factsArb, minArb, (kind, balance, facts, min) => {
      const sweep = planned(kind, balance, facts, min);
      const offer = offered(kind, balance, min);
      if (sweep > 0n) expect(offer).toBeGreaterThanOrEqual(sweep);
      expect(offer).toBeLessThanOrEqual(balance);
    }), { numRuns: runs(2_000) });
  });

  it('never offers an amount the planner would refuse, but for the TRX fee reserve the cache cannot know', () => {
    fc.assert(fc.property(fc.constantFrom('native' as const, 'trc20' as const), balanceArb, factsArb, minArb, (kind, balance, facts, min) => {
      const sweep = planned(kind, balance, facts, min);
      const offer = offered(kind, balance, min);
      const reserve = trxTransferReserveSun(facts);
      // With nothing to keep back (free bandwidth covers a transfer to an existing account) both see the same.
      if (kind === 'trc20' || reserve === 0n) expect(sweep).toBe(offer);
      // Else the only difference: fees that eat the balance below the minimum, which the worker finds at PENDING.
      if (offer > 0n && sweep === 0n) {
        expect(kind).toBe('native');
        expect(balance - reserve).toBeLessThan(min > 0n ? min : 1n);
      }
    }), { numRuns: runs(2_000) });
  });

  it('a TRX sweep never spends the fees it needs, and never moves less than the minimum; a token moves whole', () => {
    fc.assert(fc.property(balanceArb, factsArb, minArb, (balance, facts, min) => {
      const reserve = trxTransferReserveSun(facts);
      const trx = planned('native', balance, facts, min);
      if (trx > 0n) {
        expect(trx + reserve).toBe(balance);
        expect(trx).toBeGreaterThanOrEqual(min);
      } else {
        expect(spendableSun(balance, reserve) < min || spendableSun(balance, reserve) === 0n).toBe(true);
      }
      expect(planned('trc20', balance, facts, min)).toBe(balance);
    }), { numRuns: runs(1_000) });
  });

  it('known answers: the 1 SUN left by activation funding, the 0.1 TRX boundary, an empty token balance', () => {
    const existing: TrxTransferFacts = { bandwidth: { staked: 0, free: 600 }, createsRecipient: false, transferBytes: 300, sunPerByte: 1_000n };
    const spent: TrxTransferFacts = { ...existing, bandwidth: { staked: 0, free: 255 } };
    expect(offered('native', 1n, MIN_TRX_SWEEP_SUN)).toBe(0n);
    expect(planned('native', 1n, existing, MIN_TRX_SWEEP_SUN)).toBe(0n);
    expect(offered('native', 99_999n, MIN_TRX_SWEEP_SUN)).toBe(0n);
    expect(offered('native', 100_000n, MIN_TRX_SWEEP_SUN)).toBe(100_000n);
    expect(planned('native', 100_000n, existing, MIN_TRX_SWEEP_SUN)).toBe(100_000n);
    // The sub-address's free bandwidth spent on its token sweep: 0.3 TRX of a transfer's fee comes off the balance.
    expect(planned('native', 400_000n, spent, MIN_TRX_SWEEP_SUN)).toBe(100_000n);
    expect(planned('native', 399_999n, spent, MIN_TRX_SWEEP_SUN)).toBe(0n);
    expect(offered('trc20', 0n, MIN_TRX_SWEEP_SUN)).toBe(0n);
    expect(offered('trc20', 1n, MIN_TRX_SWEEP_SUN)).toBe(1n);
  });
});

describe('trxTransferReserveSun', () => {
  it('is nothing when bandwidth covers a transfer to an existing account, else its bytes burnt; 1 TRX (+0.1 without staked bandwidth) to a new one', () => {
    const base: TrxTransferFacts = { bandwidth: { staked: 0, free: 600 }, createsRecipient: false, transferBytes: 267, sunPerByte: 1_000n };
    expect(trxTransferReserveSun(base)).toBe(0n);
    expect(trxTransferReserveSun({ ...base, bandwidth: { staked: 100, free: 167 } })).toBe(0n);
    expect(trxTransferReserveSun({ ...base, bandwidth: { staked: 100, free: 166 } })).toBe(267_000n);
    expect(trxTransferReserveSun({ ...base, createsRecipient: true })).toBe(ACTIVATION_FEE_SUN + ACTIVATION_BANDWIDTH_FEE_SUN);
    expect(trxTransferReserveSun({ ...base, createsRecipient: true, bandwidth: { staked: 267, free: 0 } })).toBe(ACTIVATION_FEE_SUN);
  });
});
