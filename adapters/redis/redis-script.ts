import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { StoreError } from '../../core/domain/errors.js';

/** Replies that mean "the server is there but cannot serve right now", so retrying later may succeed. */
const TRANSIENT_REPLY = /^(LOADING|BUSY|READONLY|MASTERDOWN|TRYAGAIN|CLUSTERDOWN|NOREPLICAS)\b/;

/**
 * A Lua script run by SHA (EVALSHA) with a fallback to EVAL when the server does not know it yet, e.g. after a
 * restart. Keeping the source here rather than in `defineCommand` leaves the shared client unmodified.
 */
export class RedisScript {
  private readonly sha: string;

  constructor(
    /** Names the operation in error messages. */
    readonly name: string,
    private readonly source: string,
    private readonly keyCount: number,
  ) {
    this.sha = createHash('sha1').update(source).digest('hex');
  }

  /** Runs the script atomically; any driver failure becomes an InfrastructureError (never a driver error). */
  async run(client: Redis, keys: readonly string[], args: readonly (string | number)[]): Promise<unknown> {
    try {
      try {
        return await client.evalsha(this.sha, this.keyCount, ...keys, ...args);
      } catch (error) {
        if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
        return await client.eval(this.source, this.keyCount, ...keys, ...args);
      }
    } catch (error) {
      throw toInfrastructureError(error, this.name);
    }
  }
}

/**
 * Driver errors never cross a port. Connection loss, timeouts and server-busy replies are SERVICE-UNAVAILABLE
 * (transient); any other error reply means a bug in a script or a key of the wrong type: INTERNAL-ERROR, not transient.
 */
export function toInfrastructureError(error: unknown, operation: string): StoreError {
  const detail = error instanceof Error ? error.message : String(error);
  const isReply = error instanceof Error && error.name === 'ReplyError';
  if (isReply && !TRANSIENT_REPLY.test(detail)) {
    return new StoreError('INTERNAL-ERROR', `redis ${operation} failed: ${detail}`, { transient: false, cause: error });
  }
  return new StoreError('SERVICE-UNAVAILABLE', `redis unavailable during ${operation}: ${detail}`, { transient: true, cause: error });
}
