import { runs } from '../../contracts-tests/support/depth.js';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { describeRateLimiterContract } from '../../contracts-tests/rate-limiter.contract.js';
import { describeWithRedis } from '../../contracts-tests/harness/with-redis.js';
import { createRedisClient } from './redis-client.js';
import { RedisRateLimiter } from './redis-rate-limiter.js';

describeWithRedis('RedisRateLimiter (real Redis)', (url) => {
  describeRateLimiterContract('RedisRateLimiter', () => {
    const client = createRedisClient(url);
    const limiter = new RedisRateLimiter(client, { keyPrefix: `test:${randomUUID()}:` });
    // A few ms over `ms`: Redis expires a key only once its deadline has strictly passed, and timers may round down.
    return { limiter, advance: (ms) => sleep(ms + 5), close: async () => void (await client.quit()) };
  }, { shortWindowMs: 300, numRuns: runs(40) });
});
