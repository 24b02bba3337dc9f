import { runs } from '../../contracts-tests/support/depth.js';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { describeAddressLockContract } from '../../contracts-tests/address-lock.contract.js';
import { describeWithRedis } from '../../contracts-tests/harness/with-redis.js';
import { createRedisClient } from './redis-client.js';
import { RedisAddressLock } from './redis-address-lock.js';

// Real time: TTLs short enough to keep the suite quick, long enough that no scheduling hiccup makes them elapse early.
const SHORT_TTL_MS = 250;

describeWithRedis('RedisAddressLock (real Redis)', (url) => {
  describeAddressLockContract('RedisAddressLock', () => {
    const client = createRedisClient(url);
    const lock = new RedisAddressLock(client, { keyPrefix: `test:${randomUUID()}:` });
    // A few ms over `ms`: Redis expires a key only once its deadline has strictly passed, and timers may round down.
    return { lock, advance: (ms) => sleep(ms + 5), close: async () => void (await client.quit()) };
  }, { shortTtlMs: SHORT_TTL_MS, numRuns: runs(40) });
});
