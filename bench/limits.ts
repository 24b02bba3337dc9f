/**
 * Rate-limit checks per second: Redis (one Lua call per check) against memory, in the same run, with the ratio.
 * `npx tsx bench/limits.ts` (or `npm run bench:limits`). Bounded: about 2 s per adapter.
 * Redis comes from a redis-server on PATH started on a free port, else REDIS_URL; without either, only memory runs.
 * Env: BENCH_MS (measured time per adapter, default 1500), BENCH_CONCURRENCY (checks in flight, default 32).
 */
import { performance } from 'node:perf_hooks';
import type { RateLimiter } from '../core/ports/rate-limiter.port.js';
import { MemoryRateLimiter } from '../adapters/memory/memory-rate-limiter.js';
import { createRedisClient } from '../adapters/redis/redis-client.js';
import { RedisRateLimiter } from '../adapters/redis/redis-rate-limiter.js';
import { findRedisServerBinary, startRedisServer } from '../contracts-tests/harness/redis.js';

const MEASURE_MS = Number(process.env['BENCH_MS'] ?? 1_500);
const WARMUP_MS = 200;
const CONCURRENCY = Number(process.env['BENCH_CONCURRENCY'] ?? 32);
// Enough keys that the measured phase is mostly allowed checks on both adapters (a spent quota takes a cheaper path).
const USERS = 100_000;
const LIMIT = 60;
const WINDOW_MS = 60_000;

interface Result {
  readonly checks: number;
  readonly allowed: number;
  readonly perSecond: number;
}

/** Keeps CONCURRENCY checks in flight over random user keys for `ms`; counts completed checks. */
async function drive(limiter: RateLimiter, ms: number, phase: string): Promise<Result> {
  let checks = 0;
  let allowed = 0;
  const started = performance.now();
  const deadline = started + ms;
  const worker = async (): Promise<void> => {
    while (performance.now() < deadline) {
      const decision = await limiter.hit(`bench:${phase}:user:${Math.floor(Math.random() * USERS)}`, LIMIT, WINDOW_MS);
      checks += 1;
      if (decision.allowed) allowed += 1;
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const elapsed = performance.now() - started;
  return { checks, allowed, perSecond: (checks / elapsed) * 1000 };
}

async function measure(name: string, limiter: RateLimiter): Promise<Result> {
  // Warm-up and measurement use separate keys, so the warm-up never spends the measured quotas.
  await drive(limiter, WARMUP_MS, 'warmup');
  const result = await drive(limiter, MEASURE_MS, 'measure');
  const rate = Math.round(result.perSecond).toLocaleString('en-US');
  process.stdout.write(`${name.padEnd(8)} ${rate.padStart(12)} checks/s  (${result.checks} checks, ${result.allowed} allowed, ${CONCURRENCY} in flight)\n`);
  return result;
}

async function redisUrl(): Promise<{ url: string; stop: () => Promise<void> } | { skip: string }> {
  if (findRedisServerBinary() !== null) {
    const server = await startRedisServer();
    return { url: server.url, stop: () => server.stop() };
  }
  const fromEnv = process.env['REDIS_URL'];
  if (fromEnv) return { url: fromEnv, stop: async () => undefined };
  return { skip: 'no redis-server on PATH and REDIS_URL not set' };
}

const memory = await measure('memory', new MemoryRateLimiter({ clock: { now: () => Date.now() } }));
const redis = await redisUrl();
if ('skip' in redis) {
  process.stdout.write(`SKIPPED: redis part of bench/limits.ts: ${redis.skip}\n`);
} else {
  const client = createRedisClient(redis.url);
  try {
    const prefix = `bench:${process.pid}:${Date.now()}:`;
    const result = await measure('redis', new RedisRateLimiter(client, { keyPrefix: prefix }));
    process.stdout.write(`ratio    memory/redis = ${(memory.perSecond / result.perSecond).toFixed(1)}x\n`);
  } finally {
    client.disconnect();
    await redis.stop();
  }
}
