import { runs } from '../../contracts-tests/support/depth.js';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { PAYMENT_STATUSES, type PaymentStatus } from './model/payment-request.js';
import {
  countedDeposits, countedReceived, INITIAL_PAYMENT_STATUS, judgePayment, judgedStatus, observePayment, PAYMENT_STATUS_ACTIONS,
  PAYMENT_TRANSITIONS, paymentTransition, type PaymentDeposit, type PaymentEvent,
} from './payment-request-machine.js';

/**
 * The reference model, written from issue #25's words rather than from the table: in time (seen before the deadline,
 * confirmed) the amount or more is paid (more than the amount is overpaid); before the deadline, anything short is
 * partially paid (nothing: awaiting); once the deadline has passed short of the amount, the request is expired unless
 * everything confirmed (late payments too) reaches the amount, which is paid late.
 */
function referenceStatus(amount: bigint, inTime: bigint, total: bigint, deadlinePassed: boolean): PaymentStatus {
  if (inTime >= amount) return total > amount ? 'overpaid' : 'paid';
  if (!deadlinePassed) return inTime === 0n ? 'awaiting' : 'partially_paid';
  return total >= amount ? 'paid_late' : 'expired';
}

const EVENTS: PaymentEvent[] = ['short', 'exact', 'over', 'deadline'];
const DEADLINE = 1_000_000;

/** A random payment history: deposits seen at random times, each confirmed (or reverted) some time later, or never. */
const historyArb = fc.record({
  amount: fc.bigInt({ min: 1n, max: 50n }),
  deposits: fc.array(fc.record({
    amount: fc.bigInt({ min: 1n, max: 30n }),
    seenAt: fc.integer({ min: 0, max: 2 * DEADLINE }),
    settleAfter: fc.option(fc.integer({ min: 1, max: DEADLINE }), { nil: null }),
    reverts: fc.boolean(),
  }), { maxLength: 6 }),
  looks: fc.array(fc.integer({ min: 0, max: 3 * DEADLINE }), { minLength: 1, maxLength: 8 }),
});

type History = typeof historyArb extends fc.Arbitrary<infer T> ? T : never;

/** The deposits as a store would show them at `now`. */
function depositsAt(history: History, now: number): PaymentDeposit[] {
  return history.deposits.filter((d) => d.seenAt <= now).map((d) => ({
    amount: d.amount,
    detectedAt: d.seenAt,
    status: d.settleAfter !== null && d.seenAt + d.settleAfter <= now ? (d.reverts ? 'reverted' : 'confirmed') : 'pending',
  }));
}

describe('payment request state machine', () => {
  it('starts awaiting', () => {
    expect(INITIAL_PAYMENT_STATUS).toBe('awaiting');
  });

  it('every (status, event) pair follows the reference model of one step', () => {
    // One step of the reference: a status stands for a (inTime, total, deadline) point; the event moves the point.
    // Representatives with amount 10: what each status may hold, and the one event applied to it.
    const points: Record<PaymentStatus, { inTime: bigint; total: bigint; passed: boolean }> = {
      awaiting: { inTime: 0n, total: 0n, passed: false },
      partially_paid: { inTime: 4n, total: 4n, passed: false },
      paid: { inTime: 10n, total: 10n, passed: false },
      overpaid: { inTime: 12n, total: 12n, passed: false },
      expired: { inTime: 4n, total: 4n, passed: true },
      paid_late: { inTime: 4n, total: 10n, passed: true },
    };
    const totals: Record<Exclude<PaymentEvent, 'deadline'>, bigint> = { short: 6n, exact: 10n, over: 13n };
    for (const from of PAYMENT_STATUSES) {
      for (const event of EVENTS) {
        const p = points[from];
        let expected: PaymentStatus | null;
        if (event === 'deadline') {
          expected = referenceStatus(10n, p.inTime, p.total, true);
        } else if (totals[event] < p.total || (from === 'overpaid' && event !== 'over') || (from === 'paid' && event === 'short')
          || (from === 'paid_late' && event === 'short')) {
          expected = null; // a total never shrinks: the pair cannot happen
        } else {
          const total = totals[event];
          expected = p.passed ? referenceStatus(10n, p.inTime, total, true) : referenceStatus(10n, total, total, false);
        }
        expect(paymentTransition(from, event), `${from} on ${event}`).toBe(expected);
      }
    }
  });

  it('each status\'s behaviour: paid and overpaid forward and announce payment.paid; expired and paid_late announce their own', () => {
    expect(Object.entries(PAYMENT_STATUS_ACTIONS).filter(([, a]) => a.forwards).map(([s]) => s)).toEqual(['paid', 'overpaid']);
    expect(PAYMENT_STATUS_ACTIONS.expired.announces).toBe('payment.expired');
    expect(PAYMENT_STATUS_ACTIONS.paid_late.announces).toBe('payment.paid_late');
    expect(PAYMENT_STATUS_ACTIONS.partially_paid.announces).toBeNull();
  });

  it('no row leaves paid or overpaid for a status that does not forward, nor reaches paid from expired', () => {
    for (const row of PAYMENT_TRANSITIONS) {
      if (PAYMENT_STATUS_ACTIONS[row.from].forwards) expect(PAYMENT_STATUS_ACTIONS[row.to].forwards).toBe(true);
      if (row.from === 'expired' || row.from === 'paid_late') expect(['expired', 'paid_late']).toContain(row.to);
    }
  });

  it('judged at any moments, the status matches the reference model, and each status is entered at most once', () => {
    fc.assert(fc.property(historyArb, (history) => {
      const looks = [...history.looks].sort((a, b) => a - b);
      let status: PaymentStatus = INITIAL_PAYMENT_STATUS;
      const entered: PaymentStatus[] = [];
      for (const now of looks) {
        const seen = observePayment(depositsAt(history, now), DEADLINE, now);
        const path = judgePayment(status, history.amount, seen);
        // Every step the judge takes is a row of the table.
        let at = status;
        for (const next of path) {
          expect(PAYMENT_TRANSITIONS.some((r) => r.from === at && r.to === next)).toBe(true);
          at = next;
        }
        entered.push(...path);
        status = path.at(-1) ?? status;
        // Judged in steps or all at once from the start, the answer is the reference's.
        expect(status).toBe(referenceStatus(history.amount, seen.inTime, seen.total, seen.deadlinePassed));
        expect(judgedStatus(INITIAL_PAYMENT_STATUS, history.amount, seen)).toBe(status);
        expect(countedReceived(seen, history.amount)).toBe(seen.deadlinePassed || status === 'paid' || status === 'overpaid' ? seen.total : seen.inTime);
        // What the paid events name (issue #34) adds up to what they count, and every one is a confirmed deposit.
        const deposits = depositsAt(history, now);
        const paying = countedDeposits(deposits, DEADLINE, seen, history.amount);
        expect(paying.reduce((sum, d) => sum + d.amount, 0n)).toBe(countedReceived(seen, history.amount));
        expect(paying.every((d) => d.status === 'confirmed' && deposits.includes(d))).toBe(true);
      }
      // An event type is announced once: no status that announces is entered twice (paid and overpaid share one).
      const paidEntries = entered.filter((s) => s === 'paid' || s === 'overpaid');
      const fromPaidToOver = entered.some((s, i) => s === 'overpaid' && entered[i - 1] === 'paid');
      expect(paidEntries.length - (fromPaidToOver ? 1 : 0)).toBeLessThanOrEqual(1);
      expect(entered.filter((s) => s === 'expired').length).toBeLessThanOrEqual(1);
      expect(entered.filter((s) => s === 'paid_late').length).toBeLessThanOrEqual(1);
    }), { numRuns: runs(2_000) });
  });

  it('a payment seen before the deadline and still confirming keeps the request from expiring', () => {
    const pending: PaymentDeposit[] = [{ amount: 10n, detectedAt: DEADLINE - 1, status: 'pending' }];
    expect(observePayment(pending, DEADLINE, DEADLINE + 60_000).deadlinePassed).toBe(false);
    const confirmed: PaymentDeposit[] = [{ amount: 10n, detectedAt: DEADLINE - 1, status: 'confirmed' }];
    expect(judgedStatus('awaiting', 10n, observePayment(confirmed, DEADLINE, DEADLINE + 60_000))).toBe('paid');
    const late: PaymentDeposit[] = [{ amount: 10n, detectedAt: DEADLINE, status: 'confirmed' }];
    expect(judgePayment('awaiting', 10n, observePayment(late, DEADLINE, DEADLINE + 60_000))).toEqual(['expired', 'paid_late']);
  });
});
