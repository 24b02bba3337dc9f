import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { AddressLock, LockGrant } from '../../core/ports/address-lock.port.js';
import { StoreError } from '../../core/domain/errors.js';
import { RedisScript } from './redis-script.js';

/**
 * SET NX PX and the fence INCR in one script, so a grant and its fence are atomic.
 * The fence counter is seeded from the server's clock in microseconds when missing: a Redis restart without
 * persistence (or the counter's own expiry) then resumes above every fence granted before, as long as a key is not
 * granted more than once per microsecond. That is what lets the counter expire after a day without use.
 */
const ACQUIRE = new RedisScript('lock acquire', `
if not redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return false end
if redis.call('EXISTS', KEYS[2]) == 0 then
  local time = redis.call('TIME')
  redis.call('SET', KEYS[2], time[1] .. string.format('%06d', tonumber(time[2])))
end
local fence = redis.call('INCR', KEYS[2])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
return fence
`, 2);

/** Compare-and-delete: only the holder's token releases. */
const RELEASE = new RedisScript('lock release', `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`, 1);

/** Compare-and-pexpire: only the live holder's token extends. */
const EXTEND = new RedisScript('lock extend', `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
`, 1);

/** How long an idle fence counter is kept (ms); see ACQUIRE for why it may expire at all. */
const FENCE_IDLE_MS = 24 * 60 * 60 * 1000;

/** Options of `RedisAddressLock`. */
export interface RedisAddressLockOptions {
  /** Prefix of every key this adapter writes. Default `custody:`. */
  readonly keyPrefix?: string;
}

/**
 * `AddressLock` on Redis: `<prefix>lock:{<key>}` holds the holder's random token with a PX expiry, and
 * `<prefix>fence:{<key>}` the fencing counter (the hash tag keeps both in one Redis Cluster slot, as a script needs).
 * Redis unreachable → InfrastructureError SERVICE-UNAVAILABLE (transient); the lock never fails open.
 * A reply lost to a dropped connection may leave a grant nobody knows: it expires by its TTL.
 */
export class RedisAddressLock implements AddressLock {
  private readonly prefix: string;

  constructor(private readonly client: Redis, options: RedisAddressLockOptions = {}) {
    this.prefix = options.keyPrefix ?? 'custody:';
  }

  /** Grants the lock when free or expired; null while another live holder has it. */
  async acquire(key: string, ttlMs: number): Promise<LockGrant | null> {
    assertTtl(ttlMs);
    const token = randomUUID();
    const fence = await ACQUIRE.run(this.client, [this.lockKey(key), this.fenceKey(key)], [token, ttlMs, Math.max(FENCE_IDLE_MS, ttlMs)]);
    if (fence === null) return null;
    if (typeof fence !== 'number') throw new StoreError('INTERNAL-ERROR', 'redis lock acquire: unexpected reply', { transient: false });
    return { key, token, fence };
  }

  /** Compare-and-delete: true only when `grant` is the live holder. */
  async release(grant: LockGrant): Promise<boolean> {
    return (await RELEASE.run(this.client, [this.lockKey(grant.key)], [grant.token])) === 1;
  }

  /** Compare-and-extend: resets the expiry to now + ttlMs only for the live holder. */
  async extend(grant: LockGrant, ttlMs: number): Promise<boolean> {
    assertTtl(ttlMs);
    return (await EXTEND.run(this.client, [this.lockKey(grant.key)], [grant.token, ttlMs])) === 1;
  }

  private lockKey(key: string): string {
    return `${this.prefix}lock:{${key}}`;
  }

  private fenceKey(key: string): string {
    return `${this.prefix}fence:{${key}}`;
  }
}

/** Redis refuses `PX 0` with an error reply; refuse it (and fractions) up front with a clear message instead. */
function assertTtl(ttlMs: number): void {
  if (!Number.isSafeInteger(ttlMs) || ttlMs <= 0) throw new RangeError(`lock ttlMs must be a positive integer, got ${ttlMs}`);
}
