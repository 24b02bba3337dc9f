import type { ErrorCode } from './errors.js';
import type { Millis } from './model/common.js';
import { COLLECTION_STATUS, type CollectionStatus, type StepRecord } from './model/collection-task.js';

/**
 * An automatic forward that could not start (issue #34): a paid payment request whose collection was refused before
 * its task (no energy source can cover it now). It stays due, durable with the request, and is tried again on a
 * backoff schedule, so it starts by itself once energy can be had; meanwhile the API shows it pending with its reason.
 */
export interface ForwardWait {
  /** The refusal's catalogue code (BIZ-ENERGY-UNAVAILABLE). */
  readonly code: string;
  /** The refusal's message: why, and what would fix it. */
  readonly reason: string;
  /** Attempts refused so far (≥ 1). */
  readonly attempts: number;
  /** When the first attempt was refused. */
  readonly since: Millis;
  /** When the worker tries again (not before). */
  readonly nextAttemptAt: Millis;
}

/** The retry schedule: the first wait, doubled per refused attempt, up to `maxMs`. */
export interface ForwardRetrySchedule {
  readonly baseMs: number;
  readonly maxMs: number;
}

/** 15 s, 30 s, 1 min, … up to 10 min: quick after a fix, and at most one planning a forward every 10 minutes. */
export const DEFAULT_FORWARD_RETRY: ForwardRetrySchedule = { baseMs: 15_000, maxMs: 10 * 60_000 };

/** The wait after the `attempts`-th refused attempt (1 → baseMs), never above maxMs. */
export function forwardRetryDelay(schedule: ForwardRetrySchedule, attempts: number): number {
  const doublings = Math.min(Math.max(attempts, 1) - 1, 30);
  return Math.min(schedule.maxMs, schedule.baseMs * 2 ** doublings);
}

/** The wait after one more refusal at `now`, counting from `previous` (absent: the first). */
export function refusedForward(
  schedule: ForwardRetrySchedule, previous: ForwardWait | undefined, refusal: { readonly code: string; readonly message: string }, now: Millis,
): ForwardWait {
  const attempts = (previous?.attempts ?? 0) + 1;
  return {
    code: refusal.code, reason: refusal.message, attempts, since: previous?.since ?? now,
    nextAttemptAt: now + forwardRetryDelay(schedule, attempts),
  };
}

/** Whether a waiting forward may be tried at `now` (one that never waited may). */
export function forwardDue(wait: ForwardWait | undefined, now: Millis): boolean {
  return wait === undefined || wait.nextAttemptAt <= now;
}

/**
 * The refusals a forward's task may end FAILED with while planning, before anything left the custody (issue #34): the
 * energy check passed when the forward started, but by the time the task planned its sweep no energy source could cover
 * it (the stake lent elsewhere, a rental quote gone, the main address's TRX spent meanwhile). Retrying can fix them.
 */
export const RETRYABLE_FORWARD_CODES: ReadonlySet<string> = new Set<ErrorCode>(['BIZ-ENERGY-UNAVAILABLE']);

/** What the classification reads of a forward's finished task. */
export interface ForwardTaskOutcome {
  readonly status: CollectionStatus;
  readonly errorCode: string | null;
  readonly steps: readonly Pick<StepRecord, 'transaction' | 'orderRef'>[];
}

/**
 * Whether a forward whose task ended like this goes back to waiting (true) or stays failed (false): only a FAILED
 * task refused by a retryable planning refusal (RETRYABLE_FORWARD_CODES) that recorded no transaction (nothing was or
 * may have been broadcast: the write-ahead record exists before any broadcast) and no rental order (one may have been
 * paid). A task still running is never retried (the caller waits for its end), a DONE one has forwarded, and a failure
 * after money moved, or that retrying cannot fix (nothing to collect, a transaction failed on chain), stays FAILED.
 */
export function forwardRetryable(task: ForwardTaskOutcome): boolean {
  if (task.status !== COLLECTION_STATUS.FAILED) return false;
  if (task.errorCode === null || !RETRYABLE_FORWARD_CODES.has(task.errorCode)) return false;
  return task.steps.every((step) => step.transaction === null && step.orderRef === null);
}
