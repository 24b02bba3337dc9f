import { randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import { pino } from 'pino';
import { RedisAddressLock, RedisRateLimiter } from '../../adapters/redis/index.js';
import { describeWithRedis } from '../../contracts-tests/harness/with-redis.js';
import { loadConfig } from './config.js';
import { composeContainer } from './container.js';
import { TOKENS } from './tokens.js';

describeWithRedis('composition with LOCKS=redis', (redisUrl) => {
  const compose = () => composeContainer(
    loadConfig({ LOCKS: 'redis', REDIS_URL: redisUrl, TRON_FULL_HOST: 'http://127.0.0.1:1' }, { mode: 'dev' }),
    { logger: pino({ level: 'silent' }) },
  );

  it('binds the Redis lock and limiter on one client, shared between two processes', async () => {
    const a = compose();
    const b = compose();
    try {
      const lockA = a.container.get(TOKENS.AddressLock);
      expect(lockA).toBeInstanceOf(RedisAddressLock);
      expect(a.container.get(TOKENS.RateLimiter)).toBeInstanceOf(RedisRateLimiter);
      const key = `composition-test:${randomUUID()}`;
      const grant = await lockA.acquire(key, 10_000);
      expect(grant).not.toBeNull();
      // The other composition sees the same Redis: the lock is taken there too.
      expect(await b.container.get(TOKENS.AddressLock).acquire(key, 10_000)).toBeNull();
      expect(await lockA.release(grant!)).toBe(true);
      const limited = `composition-test:${randomUUID()}`;
      expect((await a.container.get(TOKENS.RateLimiter).hit(limited, 2, 60_000)).allowed).toBe(true);
      expect((await b.container.get(TOKENS.RateLimiter).hit(limited, 2, 60_000)).allowed).toBe(true);
      expect((await a.container.get(TOKENS.RateLimiter).hit(limited, 2, 60_000)).allowed).toBe(false);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('readiness checks Redis', async () => {
    const c = compose();
    try {
      expect(await c.container.get(TOKENS.Readiness)()).toContainEqual({ name: 'redis', ok: true });
    } finally {
      await c.close();
    }
    const down = composeContainer(
      loadConfig({ LOCKS: 'redis', REDIS_URL: 'redis://127.0.0.1:1', TRON_FULL_HOST: 'http://127.0.0.1:1' }, { mode: 'dev' }),
      { logger: pino({ level: 'silent' }) },
    );
    try {
      expect(await down.container.get(TOKENS.Readiness)()).toContainEqual({ name: 'redis', ok: false });
    } finally {
      await down.close();
    }
  });
});
