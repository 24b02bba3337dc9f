import type pg from 'pg';
import { StoreError } from '../../core/domain/errors.js';
import type { StoredResponse } from '../../core/domain/model/index.js';
import type { Clock } from '../../core/ports/clock.port.js';
import type { IdempotencyBegin, IdempotencyStore } from '../../core/ports/idempotency-store.port.js';
import { fromStoredIdempotency, toStoredIdempotency, type StoredIdempotency } from '../records/idempotency-record.js';
import { guarded, type Row } from './pg-support.js';

/** Each round either decides or found the record gone (abandoned or purged meanwhile); more rounds mean a livelock. */
const MAX_BEGIN_ROUNDS = 8;
/** Begins between two inline purges, and the most rows one purge deletes: bounded work on a request's path. */
const PURGE_EVERY = 256;
const PURGE_BATCH = 1_000;

/** Record -> row of `idempotency_records` (the response flattened into two columns). */
function toRow(record: StoredIdempotency): Row {
  return {
    scope: record.scope, idempotency_key: record.key, request_hash: record.requestHash, state: record.state,
    response_status: record.response?.status ?? null, response_body: record.response?.body ?? null,
    created_at: record.createdAt, expires_at: record.expiresAt, lease_expires_at: record.leaseExpiresAt ?? null,
  };
}

/** Row of `idempotency_records` -> record. */
function fromRow(row: Row): StoredIdempotency {
  const status = row['response_status'] as number | null;
  return {
    scope: row['scope'] as string, key: row['idempotency_key'] as string, requestHash: row['request_hash'] as string,
    state: row['state'] as StoredIdempotency['state'],
    response: status === null ? null : { status, body: row['response_body'] as string },
    createdAt: row['created_at'] as number, expiresAt: row['expires_at'] as number,
    leaseExpiresAt: row['lease_expires_at'] as number | null,
  };
}

const COLUMNS = Object.keys(toRow({
  scope: '', key: '', requestHash: '', state: 'in-progress', response: null, createdAt: 0, expiresAt: 0, leaseExpiresAt: 0,
}));

/**
 * Idempotency records, primary key (scope, key), expiring on the injected clock. begin() is one upsert whose update
 * (the takeover) is allowed only when the stored record is expired, or is the same request with a run-out in-flight
 * lease: the server checks that condition on the locked row, so of N racing begins exactly one inserts or takes over
 * and the rest then read the winner. PostgreSQL has no TTL: expired records are deleted by purgeExpired, which begin
 * runs every few hundred calls; correctness never waits for it.
 */
export class PgIdempotencyStore implements IdempotencyStore {
  private beginsSincePurge = 0;

  constructor(private readonly pool: pg.Pool, private readonly clock: Clock) {}

  begin(scope: string, key: string, requestHash: string, windowMs: number, inFlightMs: number = windowMs): Promise<IdempotencyBegin> {
    return guarded('idempotency begin', async () => {
      await this.purgeSometimes();
      for (let round = 0; round < MAX_BEGIN_ROUNDS; round++) {
        const now = this.clock.now();
        const row = toRow(toStoredIdempotency({
          scope, key, requestHash, state: 'in-progress', response: null,
          createdAt: now, expiresAt: now + windowMs, leaseExpiresAt: now + inFlightMs,
        }));
        const started = await this.pool.query(
          `INSERT INTO idempotency_records (${COLUMNS.join(', ')}) VALUES (${COLUMNS.map((_, i) => `$${i + 1}`).join(', ')})
           ON CONFLICT (scope, idempotency_key) DO UPDATE SET ${COLUMNS.filter((c) => c !== 'scope' && c !== 'idempotency_key').map((c) => `${c} = excluded.${c}`).join(', ')}
           WHERE idempotency_records.expires_at <= $${COLUMNS.length + 1}
              OR (idempotency_records.request_hash = excluded.request_hash AND idempotency_records.state = 'in-progress'
                  AND COALESCE(idempotency_records.lease_expires_at, idempotency_records.expires_at) <= $${COLUMNS.length + 1})`,
          [...COLUMNS.map((c) => row[c]), now],
        );
        if (started.rowCount === 1) return { outcome: 'started' };
        const { rows } = await this.pool.query('SELECT * FROM idempotency_records WHERE scope = $1 AND idempotency_key = $2', [scope, key]);
        if (rows.length === 0) continue;
        const existing = fromStoredIdempotency(fromRow(rows[0] as Row));
        // A record written meanwhile by a begin that read the clock earlier may already be one we can take over.
        if (existing.expiresAt <= now) continue;
        if (existing.requestHash !== requestHash) return { outcome: 'mismatch' };
        if (existing.state === 'completed' && existing.response !== null) return { outcome: 'replay', response: existing.response };
        if ((existing.leaseExpiresAt ?? existing.expiresAt) <= now) continue;
        return { outcome: 'in-progress' };
      }
      throw new StoreError('SERVICE-UNAVAILABLE', 'idempotency record kept changing; retry later', { transient: true });
    });
  }

  complete(scope: string, key: string, response: StoredResponse): Promise<void> {
    return guarded('idempotency complete', async () => {
      // An abandoned or expired-and-replaced record is not revived: nothing may replay what nobody started.
      await this.pool.query(
        `UPDATE idempotency_records SET state = 'completed', response_status = $3, response_body = $4
         WHERE scope = $1 AND idempotency_key = $2 AND state = 'in-progress'`,
        [scope, key, response.status, response.body],
      );
    });
  }

  abandon(scope: string, key: string): Promise<void> {
    return guarded('idempotency abandon', async () => {
      await this.pool.query(`DELETE FROM idempotency_records WHERE scope = $1 AND idempotency_key = $2 AND state = 'in-progress'`, [scope, key]);
    });
  }

  /** Deletes up to `limit` records expired at `now` (what MongoDB's TTL index does); returns how many went. */
  purgeExpired(now: number, limit: number = PURGE_BATCH): Promise<number> {
    return guarded('idempotency purge', async () => {
      const result = await this.pool.query(
        // The outer condition again: a record taken over between the pick and the delete has a fresh window and stays.
        `DELETE FROM idempotency_records WHERE (scope, idempotency_key) IN (
           SELECT scope, idempotency_key FROM idempotency_records WHERE expires_at <= $1 LIMIT $2
         ) AND expires_at <= $1`,
        [now, limit],
      );
      return result.rowCount ?? 0;
    });
  }

  private async purgeSometimes(): Promise<void> {
    if (++this.beginsSincePurge < PURGE_EVERY) return;
    this.beginsSincePurge = 0;
    await this.purgeExpired(this.clock.now());
  }
}
