import type { IdempotencyRecord, StoredResponse } from '../../core/domain/model/index.js';
import type { Clock } from '../../core/ports/clock.port.js';
import type { IdempotencyBegin, IdempotencyStore } from '../../core/ports/idempotency-store.port.js';
import { outboundCopy, storedCopy } from './frozen-copy.js';
import type { MemoryStore } from './memory-store.js';

/** How many begins pass between sweeps of expired records (keeps the table bounded without a timer). */
const SWEEP_EVERY = 256;

function keyOf(scope: string, key: string): string {
  return `${scope}\u0000${key}`;
}

/**
 * Idempotency records that expire on the injected clock; begin checks and writes (including a takeover of an expired
 * in-flight lease) in one synchronous step, so concurrent begins cannot both start.
 */
export class MemoryIdempotencyStore implements IdempotencyStore {
  private beginsSinceSweep = 0;

  constructor(private readonly store: MemoryStore, private readonly clock: Clock) {}

  async begin(
    scope: string, key: string, requestHash: string, windowMs: number, inFlightMs: number = windowMs,
  ): Promise<IdempotencyBegin> {
    const now = this.clock.now();
    this.sweepSometimes(now);
    const id = keyOf(scope, key);
    const record = this.store.idempotency.get(id);
    if (record !== undefined && record.expiresAt > now) {
      if (record.requestHash !== requestHash) return { outcome: 'mismatch' };
      if (record.state === 'completed' && record.response !== null) {
        return { outcome: 'replay', response: outboundCopy(record.response) };
      }
      // Still leased: its process may be running it. Past the lease it presumably died, and this begin takes over.
      if ((record.leaseExpiresAt ?? record.expiresAt) > now) return { outcome: 'in-progress' };
    }
    const started: IdempotencyRecord = {
      scope, key, requestHash, state: 'in-progress', response: null,
      createdAt: now, expiresAt: now + windowMs, leaseExpiresAt: now + inFlightMs,
    };
    this.store.idempotency.set(id, storedCopy(started));
    return { outcome: 'started' };
  }

  async complete(scope: string, key: string, response: StoredResponse): Promise<void> {
    const id = keyOf(scope, key);
    const record = this.store.idempotency.get(id);
    // A record that expired or was abandoned meanwhile is not revived: nothing may replay what nobody started.
    if (record === undefined || record.state !== 'in-progress') return;
    this.store.idempotency.set(id, storedCopy({ ...record, state: 'completed', response }));
  }

  async abandon(scope: string, key: string): Promise<void> {
    const id = keyOf(scope, key);
    if (this.store.idempotency.get(id)?.state === 'in-progress') this.store.idempotency.delete(id);
  }

  private sweepSometimes(now: number): void {
    if (++this.beginsSinceSweep < SWEEP_EVERY) return;
    this.beginsSinceSweep = 0;
    for (const [id, record] of this.store.idempotency) {
      if (record.expiresAt <= now) this.store.idempotency.delete(id);
    }
  }
}
