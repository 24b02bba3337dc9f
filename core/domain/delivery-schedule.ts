import type { Millis } from './model/common.js';
import { DELIVERY_STATUS, type DeliveryStatus } from './model/webhook.js';

/** Spec §6: attempt 1 immediately, attempt 2 one minute after the 1st failure, attempt 3 five minutes after the 2nd. */
export const RETRY_DELAYS_MS = [0, 60_000, 300_000] as const;

/** The third failed attempt marks the delivery DEAD (spec §3, §6). */
export const MAX_DELIVERY_ATTEMPTS = RETRY_DELAYS_MS.length;

/**
 * Delivery transitions as data (DESIGN.md statuses). DELIVERING is the claimed, in-flight state; SUCCEEDED, DEAD
 * and SKIPPED are terminal, and a SKIPPED delivery is never replayed (spec §6 rule 3).
 */
export const DELIVERY_TRANSITIONS = [
  { from: 'created', event: 'record', condition: 'an approved URL exists', to: 'PENDING' },
  { from: 'created', event: 'record', condition: 'no approved URL', to: 'SKIPPED' },
  { from: 'PENDING', event: 'claim', condition: null, to: 'DELIVERING' },
  { from: 'RETRYING', event: 'claim', condition: 'nextAttemptAt reached', to: 'DELIVERING' },
  { from: 'DELIVERING', event: 'attempt-ok', condition: '2xx within 15 s', to: 'SUCCEEDED' },
  { from: 'DELIVERING', event: 'attempt-failed', condition: 'attempts < 3', to: 'RETRYING' },
  { from: 'DELIVERING', event: 'attempt-failed', condition: 'attempts = 3', to: 'DEAD' },
] as const;

const TERMINAL: ReadonlySet<DeliveryStatus> = new Set([DELIVERY_STATUS.SUCCEEDED, DELIVERY_STATUS.DEAD, DELIVERY_STATUS.SKIPPED]);

/** SUCCEEDED, DEAD and SKIPPED: no further attempt is ever made. */
export function isTerminalDeliveryStatus(s: DeliveryStatus): boolean {
  return TERMINAL.has(s);
}

/** Status and next due time of a delivery. */
export interface DeliverySchedule {
  readonly status: DeliveryStatus;
  readonly nextAttemptAt: Millis | null;
}

/** A new delivery: due now when a URL is approved; otherwise SKIPPED for good (events are not replayed). */
export function initialDelivery(approvedUrl: string | null, now: Millis): DeliverySchedule {
  return approvedUrl === null
    ? { status: DELIVERY_STATUS.SKIPPED, nextAttemptAt: null }
    : { status: DELIVERY_STATUS.PENDING, nextAttemptAt: now + RETRY_DELAYS_MS[0] };
}

/**
 * The schedule after an attempt finished at `now`; `attemptsSoFar` counts this attempt (1 after the first).
 * Success → SUCCEEDED. A failure before the 3rd → RETRYING, due after the next delay. The 3rd failure → DEAD.
 */
export function afterAttempt(attemptsSoFar: number, ok: boolean, now: Millis): DeliverySchedule {
  if (!Number.isSafeInteger(attemptsSoFar) || attemptsSoFar < 1) throw new RangeError(`attemptsSoFar must be >= 1, got ${attemptsSoFar}`);
  if (ok) return { status: DELIVERY_STATUS.SUCCEEDED, nextAttemptAt: null };
  const delay = RETRY_DELAYS_MS[attemptsSoFar];
  if (attemptsSoFar >= MAX_DELIVERY_ATTEMPTS || delay === undefined) return { status: DELIVERY_STATUS.DEAD, nextAttemptAt: null };
  return { status: DELIVERY_STATUS.RETRYING, nextAttemptAt: now + delay };
}

/**
 * A user's redelivery (issue #15) as data: outside the retry machine above, whose terminal states it leaves terminal.
 * Only DEAD and SUCCEEDED deliveries are redelivered; success makes either SUCCEEDED, a failure leaves it as it was
 * (no retry schedule starts). SKIPPED is never replayed (spec §3), and a delivery still on its schedule is not touched.
 */
export const REDELIVERY_TRANSITIONS = [
  { from: 'DEAD', event: 'redelivery-ok', to: 'SUCCEEDED' },
  { from: 'DEAD', event: 'redelivery-failed', to: 'DEAD' },
  { from: 'SUCCEEDED', event: 'redelivery-ok', to: 'SUCCEEDED' },
  { from: 'SUCCEEDED', event: 'redelivery-failed', to: 'SUCCEEDED' },
] as const;

/** Whether REDELIVERY_TRANSITIONS redelivers a delivery in this status. */
export function isRedeliverable(status: DeliveryStatus): boolean {
  return REDELIVERY_TRANSITIONS.some((r) => DELIVERY_STATUS[r.from] === status);
}

/** The status after a redelivery attempt; RangeError for a status REDELIVERY_TRANSITIONS does not redeliver. */
export function afterRedelivery(status: DeliveryStatus, ok: boolean): DeliveryStatus {
  const event = ok ? 'redelivery-ok' : 'redelivery-failed';
  const row = REDELIVERY_TRANSITIONS.find((r) => DELIVERY_STATUS[r.from] === status && r.event === event);
  if (row === undefined) throw new RangeError(`delivery status ${status} cannot be redelivered`);
  return DELIVERY_STATUS[row.to];
}
