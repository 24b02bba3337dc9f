import type { Collection, Db } from 'mongodb';
import { StoreError } from '../../core/domain/errors.js';
import type { StoredResponse } from '../../core/domain/model/index.js';
import type { Clock } from '../../core/ports/clock.port.js';
import type { IdempotencyBegin, IdempotencyStore } from '../../core/ports/idempotency-store.port.js';
import { COLLECTIONS } from './collections.js';
import { fromStoredResponse } from '../records/idempotency-record.js';
import { purgeTime, toIdempotencyDocument, type IdempotencyDocument } from './mongo-documents.js';
import { guarded, isDuplicateKey, nullable } from './mongo-support.js';

/** Each round either decides or lost a race to a writer that changed the record; more rounds mean a livelock. */
const MAX_BEGIN_ROUNDS = 8;

/**
 * Idempotency records, unique on (scope, key). begin() is an insert: of N concurrent begins exactly one inserts
 * (the unique index decides) and the others read the winner. A record past `expiresAt` on the store's clock is
 * replaced by a conditional update that names the expired record, so again only one replacer wins; a same-hash
 * record whose in-flight lease (`leaseExpiresAt`) ran out is taken over the same way. The TTL index
 * only reclaims space; correctness never waits for it.
 */
export class MongoIdempotencyStore implements IdempotencyStore {
  private readonly records: Collection<IdempotencyDocument>;

  constructor(db: Db, private readonly clock: Clock, private readonly wallClock: () => number = Date.now) {
    this.records = db.collection<IdempotencyDocument>(COLLECTIONS.idempotency);
  }

  begin(
    scope: string, key: string, requestHash: string, windowMs: number, inFlightMs: number = windowMs,
  ): Promise<IdempotencyBegin> {
    return guarded('idempotency begin', async () => {
      for (let round = 0; round < MAX_BEGIN_ROUNDS; round++) {
        const now = this.clock.now();
        const fresh = toIdempotencyDocument(
          {
            scope, key, requestHash, state: 'in-progress', response: null,
            createdAt: now, expiresAt: now + windowMs, leaseExpiresAt: now + inFlightMs,
          },
          purgeTime(now + windowMs, windowMs, this.wallClock()),
        );
        try {
          await this.records.insertOne({ ...fresh });
          return { outcome: 'started' };
        } catch (error) {
          if (!isDuplicateKey(error)) throw error;
        }
        const existing = await this.records.findOne({ scope, key });
        if (existing === null) continue; // abandoned or purged between our insert and read: try again
        const lease = nullable(existing.leaseExpiresAt);
        if (existing.expiresAt > now) {
          if (existing.requestHash !== requestHash) return { outcome: 'mismatch' };
          const response = nullable(existing.response);
          if (existing.state === 'completed' && response !== null) {
            return { outcome: 'replay', response: fromStoredResponse(response) };
          }
          if ((lease ?? existing.expiresAt) > now) return { outcome: 'in-progress' };
        }
        // Expired, or an in-flight lease that ran out: take the record over only if it is still exactly the one we
        // read. A takeover writes a later lease and window, so a second taker's filter no longer matches.
        const taken = await this.records.replaceOne(
          {
            _id: existing._id, state: existing.state, expiresAt: existing.expiresAt,
            leaseExpiresAt: lease, // null also matches a missing field
          },
          fresh,
        );
        if (taken.modifiedCount === 1) return { outcome: 'started' };
      }
      throw new StoreError('SERVICE-UNAVAILABLE', 'idempotency record kept changing; retry later', { transient: true });
    });
  }

  complete(scope: string, key: string, response: StoredResponse): Promise<void> {
    return guarded('idempotency complete', async () => {
      // An abandoned or expired-and-replaced record is not revived: nothing may replay what nobody started.
      await this.records.updateOne(
        { scope, key, state: 'in-progress' },
        { $set: { state: 'completed', response: { status: response.status, body: response.body } } },
      );
    });
  }

  abandon(scope: string, key: string): Promise<void> {
    return guarded('idempotency abandon', async () => {
      await this.records.deleteOne({ scope, key, state: 'in-progress' });
    });
  }
}
