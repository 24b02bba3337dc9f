import type { Millis } from './model/common.js';

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
