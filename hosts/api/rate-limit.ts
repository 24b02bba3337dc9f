import type { RateLimiter } from '../../core/ports/rate-limiter.port.js';
import { DomainError } from '../../core/domain/errors.js';
import type { Caller } from './auth.js';

/** Spec §8: fixed one-minute windows. */
export const RATE_WINDOW_MS = 60_000;

/** The rate-limit buckets of spec §8; every GET endpoint shares the `get` bucket of its caller. */
export const DEFAULT_RATE_LIMITS = {
  'get': 60,
  'wallet-create': 20,
  'balance-refresh': 20,
  'collection-create': 10,
  'cashier-token-create': 20,
  'cashier-token-disable': 20,
  'cashier-collect': 10,
} as const;

export type RateBucket = keyof typeof DEFAULT_RATE_LIMITS;
export type RateLimits = Readonly<Record<RateBucket, number>>;

/**
 * Who a limit counts against: the user id, or for a payer the cashier token — by its stored SHA-256 hash, so the raw
 * bearer value never becomes a key in the limiter's store. Admin and anonymous calls are not limited.
 */
export function rateSubject(caller: Caller): string | null {
  switch (caller.kind) {
    case 'developer':
    case 'session':
      return `u:${caller.userId}`;
    case 'cashier':
      return `ct:${caller.ctx.token.tokenHash}`;
    default:
      return null;
  }
}

/** Headers of a limited response, refused or not. */
export type RateHeaders = Record<string, string>;

/**
 * Counts one hit of the caller in the bucket. Returns the X-RateLimit-* headers for the response; throws 429
 * RATE-LIMITED carrying them plus Retry-After (seconds to the window's end) when the window is used up.
 */
export async function applyRateLimit(
  limiter: RateLimiter, limits: RateLimits, bucket: RateBucket, caller: Caller,
): Promise<RateHeaders> {
  const subject = rateSubject(caller);
  if (subject === null) return {};
  const decision = await limiter.hit(`rl:${bucket}:${subject}`, limits[bucket], RATE_WINDOW_MS);
  const headers: RateHeaders = {
    'x-ratelimit-limit': String(decision.limit),
    'x-ratelimit-remaining': String(decision.remaining),
  };
  if (!decision.allowed) {
    throw new DomainError('RATE-LIMITED', { headers: { ...headers, 'retry-after': String(Math.max(1, decision.resetSeconds)) } });
  }
  return headers;
}
