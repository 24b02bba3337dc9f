import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:net';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createRedisClient, RedisRateLimiter } from '../../adapters/redis/index.js';
import { describeWithRedis } from '../../contracts-tests/harness/with-redis.js';
import { startHarness, type ApiHarness } from './test-harness.js';
import { fails, ok, userWithWallets } from './api-test-fixtures.js';

/**
 * The spec §8 limits through HTTP with the production limiter (Redis). Redis keeps its own time, so the window's roll
 * is covered by the ManualClock suite (rate-limit.test.ts); here: exact counts, atomicity under parallel requests,
 * headers, and what the API answers when Redis is gone.
 */
describeWithRedis('rate limits on Redis (spec §8)', (url) => {
  let h: ApiHarness;
  let redis: Redis;

  beforeAll(async () => {
    redis = createRedisClient(url);
    // A fresh prefix per run: user ids restart at 1 in every harness, and the shared Redis outlives runs.
    h = await startHarness({ rateLimiter: new RedisRateLimiter(redis, { keyPrefix: `api-test:${randomUUID()}:` }) });
  });
  afterAll(async () => {
    await h.close();
    await redis.quit();
  });

  it('N+k sequential requests: exactly N pass with counting headers, then 429 with Retry-After', async () => {
    const u = await userWithWallets(h);
    const statuses: number[] = [];
    for (let i = 0; i < 23; i++) {
      const res = await h.call('POST', '/api/cashier/tokens', { token: u.apiToken, body: { address: 'TUnknownAddressXXXXXXXXXXXXXXXXXXX' } });
      statuses.push(res.status);
      if (res.status === 429) {
        fails(res, 429, 'RATE-LIMITED');
        expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
        expect(Number(res.headers.get('retry-after'))).toBeLessThanOrEqual(60);
        expect(res.headers.get('x-ratelimit-remaining')).toBe('0');
      } else {
        expect(res.headers.get('x-ratelimit-remaining')).toBe(String(20 - i - 1));
      }
      expect(res.headers.get('x-ratelimit-limit')).toBe('20');
    }
    expect(statuses).toEqual([...Array(20).fill(422), 429, 429, 429]);
  });

  it('parallel requests: exactly N of N+k pass (the Lua hit is atomic)', async () => {
    const u = await userWithWallets(h);
    const results = await Promise.all(Array.from({ length: 75 }, () => h.call('GET', '/api/commands', { token: u.apiToken })));
    // userWithWallets made no GET; the whole 60 of the window are for this burst.
    expect(results.filter((r) => r.status === 200)).toHaveLength(60);
    expect(results.filter((r) => r.status === 429)).toHaveLength(15);
    const remaining = results.filter((r) => r.status === 200).map((r) => Number(r.headers.get('x-ratelimit-remaining'))).sort((a, b) => a - b);
    expect(remaining).toEqual(Array.from({ length: 60 }, (_, i) => i));
  });
});

/** With the limiter's Redis unreachable, limited routes fail closed with a 503 envelope, and unlimited ones still answer. */
describeWithRedis('rate limits when Redis is unreachable', () => {
  let h: ApiHarness;
  let redis: Redis;
  let dead: Server;

  beforeAll(async () => {
    // A port that accepts and immediately drops connections: Redis is "there" but never answers.
    dead = createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => dead.listen(0, '127.0.0.1', resolve));
    const port = (dead.address() as { port: number }).port;
    redis = createRedisClient(`redis://127.0.0.1:${port}`, { connectTimeoutMs: 200, commandTimeoutMs: 200 });
    h = await startHarness({ rateLimiter: new RedisRateLimiter(redis) });
  });
  afterAll(async () => {
    await h.close();
    redis.disconnect();
    await new Promise<void>((resolve) => dead.close(() => resolve()));
  });

  it('a limited route answers 503 SERVICE-UNAVAILABLE (no internals), unlimited routes still work', async () => {
    const started = performance.now();
    // Authentication comes before the limiter: a bad token is still a plain 401.
    fails(await h.call('GET', '/api/commands', { token: 'dk_whatever' }), 401, 'UNAUTHENTICATED');
    // The account routes are throttled too (issue #13), so they fail closed like every limited route.
    const limited = await h.call('POST', '/api/auth/register', { body: { email: `${randomUUID()}@example.com`, password: 'long enough password' } });
    fails(limited, 503, 'SERVICE-UNAVAILABLE');
    expect(limited.text).not.toMatch(/127\.0\.0\.1|ECONN|redis/i);
    expect(h.mailer.sent).toHaveLength(0);
    expect(ok(await h.call('GET', '/api/healthz'))).toEqual({ status: 'ok' });
    expect(performance.now() - started).toBeLessThan(10_000);
  });
});
