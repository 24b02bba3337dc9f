import { createHash } from 'node:crypto';
import type { RateLimiter } from '../../core/ports/rate-limiter.port.js';
import { DomainError } from '../../core/domain/errors.js';
import type { Caller } from './auth.js';
import { throttleNetwork } from './client-address.js';

/** Spec §8: fixed one-minute windows. */
export const RATE_WINDOW_MS = 60_000;

const HOUR_MS = 60 * 60_000;
const DAY_MS = 24 * HOUR_MS;

/**
 * The rate-limit buckets: spec §8's first (exactly as the spec states them; every GET endpoint shares the `get`
 * bucket of its caller), then the ones issue #13 added on write routes the spec leaves unlimited
 * (docs/decisions.md 60). Hits per window; the window is RATE_WINDOWS_MS's, else one minute.
 */
export const DEFAULT_RATE_LIMITS = {
  'get': 60,
  'wallet-create': 20,
  'balance-refresh': 20,
  'collection-create': 10,
  'cashier-token-create': 20,
  'cashier-token-disable': 20,
  'cashier-collect': 10,
  // Keyed by user id, like the spec's.
  'transfer-create': 10,
  'staking': 10,
  'api-token-create': 10,
  'api-token-revoke': 20,
  'webhook-test': 5,
  // Each redelivery is a synchronous outbound request of up to 15 s (issue #15).
  'webhook-redeliver': 10,
  'account-write': 20,
  // Anonymous account routes: keyed by client address and by e-mail (its SHA-256, never the address itself).
  'register-ip': 10,
  'register-email': 3,
  'verify-ip': 30,
  'verify-email': 10,
  'login-ip': 30,
  'login-ip-hour': 300,
  'login-email': 5,
  'login-email-hour': 20,
  'login-email-day': 50,
  // The password reset (issue #14): a request mails a message, like register; a confirmation is a code guess, like verify.
  'reset-request-ip': 10,
  'reset-request-email': 3,
  'reset-confirm-ip': 30,
  'reset-confirm-email': 10,
  // Two-factor code tries of a signed-in user (issue #26 item 3: 2FA enable/disable and a fresh step-up code), keyed
  // by user id with login's per-e-mail tiers: a code is a guess like a password.
  'totp-user': 5,
  'totp-user-hour': 20,
  'totp-user-day': 50,
} as const;

export type RateBucket = keyof typeof DEFAULT_RATE_LIMITS;
export type RateLimits = Readonly<Record<RateBucket, number>>;

/** Windows other than spec §8's minute. Login's tiers make lockouts grow: 1 min, then up to 1 h, then up to 1 day. */
export const RATE_WINDOWS_MS: Partial<Record<RateBucket, number>> = {
  'register-email': HOUR_MS,
  'verify-email': HOUR_MS,
  'login-ip-hour': HOUR_MS,
  'login-email-hour': HOUR_MS,
  'login-email-day': DAY_MS,
  'reset-request-email': HOUR_MS,
  'reset-confirm-email': HOUR_MS,
  'totp-user-hour': HOUR_MS,
  'totp-user-day': DAY_MS,
};

/** The window of a bucket. */
export function windowOf(bucket: RateBucket): number {
  return RATE_WINDOWS_MS[bucket] ?? RATE_WINDOW_MS;
}

/**
 * What an anonymous route's throttle is keyed by: the client's address, the e-mail field of the body, or both (the
 * e-mail as asked from that client network: a squatter elsewhere cannot spend the owner's quota, issue #26 item 6).
 */
export type ThrottleKey = 'ip' | 'email' | 'email-network';

/** One throttle of an anonymous route: a bucket counted per client address or per e-mail. */
export interface Throttle {
  readonly bucket: RateBucket;
  readonly by: ThrottleKey;
}

/**
 * The subject of an anonymous throttle: the client address, or the SHA-256 of the lower-cased e-mail (null when the
 * body has no string e-mail: validation refuses that request anyway, and there is nobody to count it against).
 */
export function throttleSubject(by: ThrottleKey, clientIp: string | undefined, body: Readonly<Record<string, unknown>>): string | null {
  const network = clientIp === undefined ? 'unknown' : throttleNetwork(clientIp);
  if (by === 'ip') return `ip:${network}`;
  const email = body['email'];
  if (typeof email !== 'string' || email.trim() === '') return null;
  const hashed = createHash('sha256').update(email.trim().toLowerCase()).digest('hex');
  return by === 'email' ? `em:${hashed}` : `em:${hashed}:${network}`;
}

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

/** The code-try buckets of a signed-in user, in the order they are counted. */
export const CODE_TRY_BUCKETS = ['totp-user', 'totp-user-hour', 'totp-user-day'] as const satisfies readonly RateBucket[];

/** Counts one two-factor code try of the caller in each CODE_TRY_BUCKETS tier; throws 429 RATE-LIMITED when one is spent. */
export async function countCodeTry(limiter: RateLimiter, limits: RateLimits, caller: Caller): Promise<RateHeaders> {
  let headers: RateHeaders = {};
  for (const bucket of CODE_TRY_BUCKETS) headers = await applyRateLimit(limiter, limits, bucket, caller);
  return headers;
}

/** Headers of a limited response, refused or not. */
export type RateHeaders = Record<string, string>;

/**
 * 429 RATE-LIMITED from the API's own limiter. The refusing window's X-RateLimit-* headers travel with it to the
 * envelope (spec §8: every limited answer carries them); when to retry is the error's `retryAfterMs`, which the
 * envelope writes as Retry-After.
 */
export class RateLimitRefusal extends DomainError {
  constructor(readonly windowHeaders: Readonly<RateHeaders>, retryAfterMs: number) {
    super('RATE-LIMITED', { retryAfterMs });
  }
}

/**
 * Counts one hit of the caller in the bucket. Returns the X-RateLimit-* headers for the response; throws 429
 * RATE-LIMITED carrying them plus Retry-After (seconds to the window's end) when the window is used up.
 */
export async function applyRateLimit(
  limiter: RateLimiter, limits: RateLimits, bucket: RateBucket, caller: Caller,
): Promise<RateHeaders> {
  const subject = rateSubject(caller);
  if (subject === null) return {};
  return hitBucket(limiter, limits, bucket, subject);
}

/**
 * Counts one hit of a request in every throttle of an anonymous route, in order (the client address first, so a
 * sprayer spends its own quota before anyone's e-mail quota). Returns the headers of the bucket with the fewest hits
 * left; throws 429 RATE-LIMITED with the refusing bucket's headers and Retry-After.
 */
export async function applyThrottles(
  limiter: RateLimiter, limits: RateLimits, throttles: readonly Throttle[], clientIp: string | undefined,
  body: Readonly<Record<string, unknown>>,
): Promise<RateHeaders> {
  let tightest: RateHeaders = {};
  for (const throttle of throttles) {
    const subject = throttleSubject(throttle.by, clientIp, body);
    if (subject === null) continue;
    const headers = await hitBucket(limiter, limits, throttle.bucket, subject);
    if (tightest['x-ratelimit-remaining'] === undefined || Number(headers['x-ratelimit-remaining']) < Number(tightest['x-ratelimit-remaining'])) {
      tightest = headers;
    }
  }
  return tightest;
}

async function hitBucket(limiter: RateLimiter, limits: RateLimits, bucket: RateBucket, subject: string): Promise<RateHeaders> {
  const decision = await limiter.hit(`rl:${bucket}:${subject}`, limits[bucket], windowOf(bucket));
  const headers: RateHeaders = {
    'x-ratelimit-limit': String(decision.limit),
    'x-ratelimit-remaining': String(decision.remaining),
  };
  if (!decision.allowed) {
    throw new RateLimitRefusal(headers, Math.max(1, decision.resetSeconds) * 1000);
  }
  return headers;
}
