import { describe, inject, it } from 'vitest';
import { announceSkipped } from '../support/skipped.js';
import { findRedisServerBinary } from './redis.js';

declare module 'vitest' {
  /** Values the test run's globalSetup (redis.global-setup.ts) provides. */
  export interface ProvidedContext {
    /** URL of the run's shared Redis; empty when none could be found. */
    redisUrl: string;
    /** Why there is no shared Redis; empty when there is one. */
    redisSkipReason: string;
  }
}

/**
 * Declares `suite` around `body(url)` when the run's shared Redis is available. Otherwise prints a line starting
 * with `SKIPPED:` naming the suite and the reason, and declares the suite skipped, so it never passes silently.
 */
export function describeWithRedis(suite: string, body: (url: string) => void): void {
  const url = inject('redisUrl');
  if (typeof url === 'string' && url !== '') {
    describe(suite, () => body(url));
    return;
  }
  const reason = inject('redisSkipReason') || 'no Redis provided (the globalSetup of the test run did not run)';
  skipLoudly(suite, reason);
}

/**
 * Declares `suite` when a `redis-server` binary is on PATH, for tests that start (and kill) their own server,
 * e.g. fault tests; otherwise a loud SKIPPED like `describeWithRedis`.
 */
export function describeWithRedisServerBinary(suite: string, body: () => void): void {
  if (findRedisServerBinary() !== null) {
    describe(suite, body);
    return;
  }
  skipLoudly(suite, 'no redis-server on PATH (this suite kills and restarts its own server; REDIS_URL cannot serve)');
}

function skipLoudly(suite: string, reason: string): void {
  announceSkipped(suite, reason);
  describe.skip(suite, () => {
    it.skip(`needs Redis: ${reason}`, () => undefined);
  });
}
