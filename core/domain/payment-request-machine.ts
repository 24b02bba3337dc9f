import type { Millis } from './model/common.js';
import type { PaymentStatus } from './model/payment-request.js';

/**
 * What can happen to a payment request. A payment event names where the confirmed total now stands against the
 * amount (`short`: above zero and below it, `exact`: equal, `over`: above); `deadline` is the fixed deadline passing.
 */
export type PaymentEvent = 'short' | 'exact' | 'over' | 'deadline';

export const INITIAL_PAYMENT_STATUS: PaymentStatus = 'awaiting';

/**
 * The payment request's transitions (issue #25 item 5). A total never shrinks (only confirmed deposits count, and a
 * confirmed deposit is final), so a pair this table does not list cannot happen and changes nothing. After the
 * deadline, payments are late: an expired request completed later is `paid_late`, never `paid`. A request paid in
 * time stays paid after its deadline. `announces` is the event type a transition into that status writes, when the
 * owner opted into it; `forwards` marks the statuses whose arrival starts the collection by itself.
 */
export const PAYMENT_TRANSITIONS = [
  { from: 'awaiting', event: 'short', to: 'partially_paid' },
  { from: 'awaiting', event: 'exact', to: 'paid' },
  { from: 'awaiting', event: 'over', to: 'overpaid' },
  { from: 'awaiting', event: 'deadline', to: 'expired' },
  { from: 'partially_paid', event: 'short', to: 'partially_paid' },
  { from: 'partially_paid', event: 'exact', to: 'paid' },
  { from: 'partially_paid', event: 'over', to: 'overpaid' },
  { from: 'partially_paid', event: 'deadline', to: 'expired' },
  { from: 'paid', event: 'exact', to: 'paid' },
  { from: 'paid', event: 'over', to: 'overpaid' },
  { from: 'paid', event: 'deadline', to: 'paid' },
  { from: 'overpaid', event: 'over', to: 'overpaid' },
  { from: 'overpaid', event: 'deadline', to: 'overpaid' },
  { from: 'expired', event: 'short', to: 'expired' },
  { from: 'expired', event: 'exact', to: 'paid_late' },
  { from: 'expired', event: 'over', to: 'paid_late' },
  { from: 'expired', event: 'deadline', to: 'expired' },
  { from: 'paid_late', event: 'exact', to: 'paid_late' },
  { from: 'paid_late', event: 'over', to: 'paid_late' },
  { from: 'paid_late', event: 'deadline', to: 'paid_late' },
] as const satisfies readonly { from: PaymentStatus; event: PaymentEvent; to: PaymentStatus }[];

/** The behaviour beside each status: the event a request entering it announces, and whether its arrival forwards. */
export const PAYMENT_STATUS_ACTIONS = {
  awaiting: { announces: null, forwards: false },
  partially_paid: { announces: null, forwards: false },
  paid: { announces: 'payment.paid', forwards: true },
  overpaid: { announces: 'payment.paid', forwards: true },
  expired: { announces: 'payment.expired', forwards: false },
  paid_late: { announces: 'payment.paid_late', forwards: false },
} as const satisfies Record<PaymentStatus, { announces: string | null; forwards: boolean }>;

export type PaymentEventType = NonNullable<(typeof PAYMENT_STATUS_ACTIONS)[PaymentStatus]['announces']>;

/** The next status, or null when the table does not list the pair (nothing changes). */
export function paymentTransition(from: PaymentStatus, event: PaymentEvent): PaymentStatus | null {
  const row = PAYMENT_TRANSITIONS.find((r) => r.from === from && r.event === event);
  return row === undefined ? null : row.to;
}

/** The payment event a confirmed total makes against the amount; null for nothing received. */
export function totalEvent(total: bigint, amount: bigint): PaymentEvent | null {
  if (total <= 0n) return null;
  return total < amount ? 'short' : total === amount ? 'exact' : 'over';
}

/** What a judge sees of one deposit to the request's sub-address in its asset, made after the token. */
export interface PaymentDeposit {
  readonly amount: bigint;
  readonly detectedAt: Millis;
  readonly status: 'pending' | 'confirmed' | 'reverted';
}

/**
 * The request's deposits reduced to what the table needs. A payment is in time when it was first seen before the
 * deadline; it counts once confirmed. The deadline has passed for the request only when no payment seen in time is
 * still pending (it would be in time once confirmed: a payer who sent before the deadline is not told "expired" while
 * the network confirms).
 */
export interface PaymentObservation {
  readonly inTime: bigint;
  readonly total: bigint;
  readonly deadlinePassed: boolean;
}

export function observePayment(deposits: readonly PaymentDeposit[], deadline: Millis, now: Millis): PaymentObservation {
  let inTime = 0n;
  let total = 0n;
  let pendingInTime = false;
  for (const d of deposits) {
    const early = d.detectedAt < deadline;
    if (d.status === 'confirmed') {
      total += d.amount;
      if (early) inTime += d.amount;
    } else if (d.status === 'pending' && early) {
      pendingInTime = true;
    }
  }
  return { inTime, total, deadlinePassed: now >= deadline && !pendingInTime };
}

/**
 * Moves a request from `from` through what is observed, in the order it happened: the payments in time, then the
 * deadline, then the late payments (counted only once the deadline has passed). Returns every status entered on the
 * way (the last is the new status; empty when nothing changed).
 */
export function judgePayment(from: PaymentStatus, amount: bigint, seen: PaymentObservation): PaymentStatus[] {
  const path: PaymentStatus[] = [];
  let status = from;
  const step = (event: PaymentEvent | null): void => {
    const next = event === null ? null : paymentTransition(status, event);
    if (next === null || next === status) return;
    status = next;
    path.push(next);
  };
  step(totalEvent(seen.inTime, amount));
  if (seen.deadlinePassed) step('deadline');
  // A late payment counts once the deadline has passed, or at once on a request already paid (it is then overpaid).
  if (seen.total > seen.inTime && (seen.deadlinePassed || PAYMENT_STATUS_ACTIONS[status].forwards)) {
    step(totalEvent(seen.total, amount));
  }
  return path;
}

/** The status after judging (see judgePayment). */
export function judgedStatus(from: PaymentStatus, amount: bigint, seen: PaymentObservation): PaymentStatus {
  return judgePayment(from, amount, seen).at(-1) ?? from;
}

/**
 * What the request has received as the judge counts it: the in-time total, plus the late one once the deadline has
 * passed or the request is paid.
 */
export function countedReceived(seen: PaymentObservation, amount: bigint): bigint {
  return seen.deadlinePassed || seen.inTime >= amount ? seen.total : seen.inTime;
}

/**
 * The deposits countedReceived sums, in the given order: the confirmed ones, and among them the late ones only when
 * the whole confirmed total counts. What paid a request (issue #34: payment.paid and payment.paid_late name them).
 */
export function countedDeposits<D extends PaymentDeposit>(deposits: readonly D[], deadline: Millis, seen: PaymentObservation, amount: bigint): D[] {
  const lateCount = countedReceived(seen, amount) === seen.total;
  return deposits.filter((d) => d.status === 'confirmed' && (lateCount || d.detectedAt < deadline));
}
