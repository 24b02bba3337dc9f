import type { IdempotencyRecord, StoredResponse } from '../../core/domain/model/idempotency.js';
import { nullable } from './record-support.js';

/**
 * `idempotency_records`: unique on (scope, key), the record's key (it has no `id` of its own). `expiresAt` (epoch ms
 * on the store's clock) alone decides whether a record still counts; a store may reclaim an expired record whenever.
 */
export interface StoredIdempotency {
  scope: string;
  key: string;
  requestHash: string;
  state: 'in-progress' | 'completed';
  response: { status: number; body: string } | null;
  createdAt: number;
  expiresAt: number;
  /** End of the in-flight lease (epoch ms, store's clock); missing on records written before leases = `expiresAt`. */
  leaseExpiresAt?: number | null;
}

/** Domain value -> stored record: pure, a fresh object (amounts, where any, as decimal strings). */
export function toStoredIdempotency(record: IdempotencyRecord): StoredIdempotency {
  return {
    scope: record.scope,
    key: record.key,
    requestHash: record.requestHash,
    state: record.state,
    response: record.response === null ? null : { status: record.response.status, body: record.response.body },
    createdAt: record.createdAt,
    expiresAt: record.expiresAt,
    // Omitted rather than undefined: a record holds JSON values only (MongoDB would store undefined as null).
    ...(record.leaseExpiresAt === undefined ? {} : { leaseExpiresAt: record.leaseExpiresAt }),
  };
}

/** Stored response -> domain value (a fresh object, never the store's). */
export function fromStoredResponse(doc: { status: number; body: string }): StoredResponse {
  return { status: doc.status, body: doc.body };
}

/** Stored record -> domain value; null and a missing field both read as null. */
export function fromStoredIdempotency(doc: StoredIdempotency): IdempotencyRecord {
  const response = nullable(doc.response);
  const lease = nullable(doc.leaseExpiresAt);
  return {
    scope: doc.scope,
    key: doc.key,
    requestHash: doc.requestHash,
    state: doc.state,
    response: response === null ? null : fromStoredResponse(response),
    createdAt: doc.createdAt,
    expiresAt: doc.expiresAt,
    ...(lease === null ? {} : { leaseExpiresAt: lease }),
  };
}
