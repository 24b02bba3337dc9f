import type { IdempotencyRecord, StoredResponse } from '../../core/domain/model/idempotency.js';
import { nullable } from './mongo-support.js';

/**
 * `idempotency_records`: unique on (scope, key); `_id` is the driver's ObjectId and never leaves the adapter.
 * `purgeAt` (a BSON date) feeds the TTL index; `expiresAt` (epoch ms on the store's clock) is what decides whether a
 * record still counts, because TTL deletion runs only about once a minute.
 */
export interface IdempotencyDocument {
  scope: string;
  key: string;
  requestHash: string;
  state: 'in-progress' | 'completed';
  response: { status: number; body: string } | null;
  createdAt: number;
  expiresAt: number;
  /** End of the in-flight lease (epoch ms, store's clock); missing on records written before leases = `expiresAt`. */
  leaseExpiresAt?: number | null;
  purgeAt: Date;
}

/** Domain value -> stored document: pure, a fresh object (amounts, where any, as decimal strings). */
export function toIdempotencyDocument(record: IdempotencyRecord, purgeAt: Date): IdempotencyDocument {
  return {
    scope: record.scope,
    key: record.key,
    requestHash: record.requestHash,
    state: record.state,
    response: record.response === null ? null : { status: record.response.status, body: record.response.body },
    createdAt: record.createdAt,
    expiresAt: record.expiresAt,
    // Omitted rather than undefined: the driver would store undefined as BSON null.
    ...(record.leaseExpiresAt === undefined ? {} : { leaseExpiresAt: record.leaseExpiresAt }),
    purgeAt,
  };
}

/** Stored response -> domain value (a fresh object, never the driver's). */
export function fromStoredResponse(doc: { status: number; body: string }): StoredResponse {
  return { status: doc.status, body: doc.body };
}

/** Stored document -> domain value; BSON null and a missing field both read as null. */
export function fromIdempotencyDocument(doc: IdempotencyDocument): IdempotencyRecord {
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

/**
 * When the TTL monitor may delete the record: never before its logical expiry on the store's clock, and never
 * before the same window measured on wall time — a test clock set in 1970 must not let the monitor purge a record
 * the store still considers live. In production both clocks agree.
 */
export function purgeTime(expiresAt: number, windowMs: number, wallNow: number): Date {
  return new Date(Math.max(expiresAt, wallNow + windowMs));
}
