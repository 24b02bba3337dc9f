import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { InfrastructureError } from '../../core/domain/errors.js';
import { startRedisServer, type RedisServer } from '../../contracts-tests/harness/redis.js';
import { describeWithRedisServerBinary } from '../../contracts-tests/harness/with-redis.js';
import { createRedisClient } from './redis-client.js';
import { RedisAddressLock } from './redis-address-lock.js';
import { RedisRateLimiter } from './redis-rate-limiter.js';

// Adapter-only: outages and restarts are properties of a networked service, beyond what the shared contract can
// express. This suite starts, kills and restarts its OWN redis-server so it never disturbs the shared one.

/** Generous bound on one call while Redis is down: the client's command timeout is 1 s. */
const FAIL_FAST_MS = 2_500;

/** Polls `probe` until it returns a value other than undefined, for at most `withinMs`. */
async function waitFor<T>(probe: () => Promise<T | undefined>, withinMs: number): Promise<T> {
  const deadline = performance.now() + withinMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (performance.now() > deadline) throw new Error(`condition not met within ${withinMs} ms`);
    await sleep(20);
  }
}

/** Runs `call` and returns what it threw plus how long it took. */
async function failure(call: () => Promise<unknown>): Promise<{ error: unknown; ms: number }> {
  const started = performance.now();
  try {
    await call();
    return { error: undefined, ms: performance.now() - started };
  } catch (error) {
    return { error, ms: performance.now() - started };
  }
}

function expectUnavailable(outcome: { error: unknown; ms: number }): void {
  expect(outcome.error).toBeInstanceOf(InfrastructureError);
  expect(outcome.error).toMatchObject({ code: 'SERVICE-UNAVAILABLE', transient: true });
  expect(outcome.ms).toBeLessThan(FAIL_FAST_MS);
}

describeWithRedisServerBinary('Redis adapters through a Redis crash and restart', () => {
  let server: RedisServer;
  let client: Redis;
  let lock: RedisAddressLock;
  let limiter: RedisRateLimiter;

  beforeAll(async () => {
    server = await startRedisServer();
    client = createRedisClient(server.url);
    lock = new RedisAddressLock(client, { keyPrefix: 'fault:' });
    limiter = new RedisRateLimiter(client, { keyPrefix: 'fault:' });
  });

  afterAll(async () => {
    client?.disconnect();
    await server?.stop();
  });

  it('throws SERVICE-UNAVAILABLE quickly while down and recovers on the same client after the restart', async () => {
    const before = (await lock.acquire('addr-1', 60_000))!;
    expect(before).not.toBeNull();
    expect((await limiter.hit('user:1', 5, 60_000)).allowed).toBe(true);

    // Calls in flight at the moment of the crash settle too (granted or SERVICE-UNAVAILABLE), none hangs.
    const inFlight = Array.from({ length: 20 }, (_, i) => failure(() => lock.acquire(`addr-flight-${i}`, 60_000)));
    await server.stop('SIGKILL');
    for (const outcome of await Promise.all(inFlight)) {
      if (outcome.error !== undefined) expectUnavailable(outcome);
      expect(outcome.ms).toBeLessThan(FAIL_FAST_MS);
    }

    expectUnavailable(await failure(() => lock.acquire('addr-2', 60_000)));
    expectUnavailable(await failure(() => lock.release(before)));
    expectUnavailable(await failure(() => lock.extend(before, 60_000)));
    expectUnavailable(await failure(() => limiter.hit('user:1', 5, 60_000)));

    await server.start();
    const after = await waitFor(async () => (await lock.acquire('addr-1', 60_000)) ?? undefined, 10_000);
    // Without persistence the counter is gone; its clock seed keeps fences increasing across the restart.
    expect(after.fence).toBeGreaterThan(before.fence);
    expect(await lock.acquire('addr-1', 60_000)).toBeNull();
    expect(await limiter.hit('user:1', 5, 60_000)).toMatchObject({ allowed: true, remaining: 4 });
  });

  it('a lock whose owner died is held until its TTL elapses, then free, never forever', async () => {
    const ttlMs = 300;
    const ownerClient = createRedisClient(server.url);
    const owner = new RedisAddressLock(ownerClient, { keyPrefix: 'fault:' });
    const started = performance.now();
    const grant = await owner.acquire('addr-dead-owner', ttlMs);
    expect(grant).not.toBeNull();
    ownerClient.disconnect();

    expect(await lock.acquire('addr-dead-owner', 60_000)).toBeNull();
    const next = await waitFor(async () => (await lock.acquire('addr-dead-owner', 60_000)) ?? undefined, ttlMs + 2_000);
    expect(performance.now() - started).toBeGreaterThanOrEqual(ttlMs - 2);
    expect(next.fence).toBeGreaterThan(grant!.fence);
  });

  it('a lock acquired just before a crash is not held by anyone after the restart', async () => {
    const grant = (await lock.acquire('addr-crash', 60_000))!;
    expect(grant).not.toBeNull();
    await server.stop('SIGKILL');
    await server.start();
    const next = await waitFor(async () => (await lock.acquire('addr-crash', 60_000)) ?? undefined, 10_000);
    expect(next.fence).toBeGreaterThan(grant.fence);
    expect(await lock.release(grant)).toBe(false);
  });
});
