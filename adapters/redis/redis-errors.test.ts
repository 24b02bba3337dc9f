import { createServer } from 'node:net';
import { performance } from 'node:perf_hooks';
import { ReplyError } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { InfrastructureError } from '../../core/domain/errors.js';
import { createRedisClient } from './redis-client.js';
import { RedisAddressLock } from './redis-address-lock.js';
import { RedisRateLimiter } from './redis-rate-limiter.js';
import { toInfrastructureError } from './redis-script.js';

// Adapter-only, no Redis needed: how driver failures are translated, which the shared contract cannot observe.

/** A loopback port with nothing listening (bound, read, released). */
function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 1));
    });
  });
}

describe('Redis driver errors become InfrastructureError', () => {
  it('an error reply from a script is INTERNAL-ERROR and not transient', () => {
    const error = toInfrastructureError(new ReplyError('ERR user_script:3: Script attempted to access nonexistent global'), 'lock acquire');
    expect(error).toBeInstanceOf(InfrastructureError);
    expect(error).toMatchObject({ code: 'INTERNAL-ERROR', transient: false });
  });

  it('a server-busy reply and a connection error are SERVICE-UNAVAILABLE and transient', () => {
    expect(toInfrastructureError(new ReplyError('LOADING Redis is loading the dataset in memory'), 'x')).toMatchObject({ code: 'SERVICE-UNAVAILABLE', transient: true });
    expect(toInfrastructureError(new Error('connect ECONNREFUSED 127.0.0.1:1'), 'x')).toMatchObject({ code: 'SERVICE-UNAVAILABLE', transient: true });
    expect(toInfrastructureError(new Error('Command timed out'), 'x').message).toContain('redis unavailable during x');
  });

  it('an unreachable Redis fails every operation fast with SERVICE-UNAVAILABLE (no fail-open)', async () => {
    const client = createRedisClient(`redis://127.0.0.1:${await closedPort()}`);
    try {
      const lock = new RedisAddressLock(client);
      const limiter = new RedisRateLimiter(client);
      const grant = { key: 'a', token: 't', fence: 1 };
      const calls = [() => lock.acquire('a', 1_000), () => lock.release(grant), () => lock.extend(grant, 1_000), () => limiter.hit('k', 1, 60_000)];
      for (const call of calls) {
        const started = performance.now();
        await expect(call()).rejects.toMatchObject({ name: 'StoreError', code: 'SERVICE-UNAVAILABLE', transient: true });
        expect(performance.now() - started).toBeLessThan(2_500);
      }
    } finally {
      client.disconnect();
    }
  });
});
