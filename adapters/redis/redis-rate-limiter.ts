import type { Redis } from 'ioredis';
import type { RateLimitDecision, RateLimiter } from '../../core/ports/rate-limiter.port.js';
import { StoreError } from '../../core/domain/errors.js';
import { RedisScript } from './redis-script.js';

/**
 * One atomic call per hit. The count is checked BEFORE the INCR, so a refused hit never consumes quota and the
 * counter never exceeds the limit. The window starts at the first hit (PEXPIRE when INCR made the key); a counter
 * found without expiry (written by something else) is given one rather than blocking the key forever.
 * Returns {allowed 0|1, count after this hit, ms left in the window}.
 */
const HIT = new RedisScript('rate-limit hit', `
local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local count = tonumber(redis.call('GET', KEYS[1]) or '0')
local allowed = 0
if count < limit then
  allowed = 1
  count = redis.call('INCR', KEYS[1])
  if count == 1 then redis.call('PEXPIRE', KEYS[1], window) return {allowed, count, window} end
end
local ttl = redis.call('PTTL', KEYS[1])
if ttl == -1 then redis.call('PEXPIRE', KEYS[1], window) ttl = window end
if ttl < 0 then ttl = window end
return {allowed, count, ttl}
`, 1);

/** Options of `RedisRateLimiter`. */
export interface RedisRateLimiterOptions {
  /** Prefix of every key this adapter writes. Default `custody:`. */
  readonly keyPrefix?: string;
}

/**
 * Fixed-window `RateLimiter` on Redis: one counter `<prefix>rate:<key>` per key and window, expiring with the window.
 * Redis unreachable → InfrastructureError SERVICE-UNAVAILABLE (transient); whether the API then fails open or closed
 * is the host's decision, not this adapter's.
 */
export class RedisRateLimiter implements RateLimiter {
  private readonly prefix: string;

  constructor(private readonly client: Redis, options: RedisRateLimiterOptions = {}) {
    this.prefix = options.keyPrefix ?? 'custody:';
  }

  /** Counts one hit atomically; a refused hit leaves the count unchanged. */
  async hit(key: string, limit: number, windowMs: number): Promise<RateLimitDecision> {
    assertArguments(limit, windowMs);
    const reply = await HIT.run(this.client, [`${this.prefix}rate:${key}`], [limit, windowMs]);
    if (!Array.isArray(reply) || reply.length !== 3 || !reply.every((n) => typeof n === 'number')) {
      throw new StoreError('INTERNAL-ERROR', 'redis rate-limit hit: unexpected reply', { transient: false });
    }
    const [allowed, count, ttlMs] = reply as [number, number, number];
    const resetSeconds = Math.max(1, Math.ceil(ttlMs / 1000));
    return allowed === 1
      ? { allowed: true, limit, remaining: Math.max(0, limit - count), resetSeconds }
      : { allowed: false, limit, remaining: 0, resetSeconds };
  }
}

function assertArguments(limit: number, windowMs: number): void {
  if (!Number.isSafeInteger(limit) || limit < 0) throw new RangeError(`rate limit must be a non-negative integer, got ${limit}`);
  if (!Number.isSafeInteger(windowMs) || windowMs <= 0) throw new RangeError(`windowMs must be a positive integer, got ${windowMs}`);
}
