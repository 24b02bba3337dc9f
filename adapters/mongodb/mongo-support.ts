import { MongoError, MongoServerError } from 'mongodb';
import { ConcurrencyConflict, DomainError, InfrastructureError, StoreError } from '../../core/domain/errors.js';
import type { Page, PageRequest } from '../../core/ports/page.js';

export { decodeMoney, decodeOptionalMoney, encodeMoney, encodeOptionalMoney, nullable } from '../records/record-support.js';

/**
 * Shared plumbing of the MongoDB adapters: driver-error translation, duplicate-key classification, record <-> document
 * renaming, insertion-order stamps, paging (the money encodings are the records', re-exported above). Kept
 * deliberately small: every repository still writes its own queries.
 */

/** Server code of a unique-index violation (E11000). */
const DUPLICATE_KEY = 11000;
/** "Transaction numbers are only allowed on a replica set member or mongos": a standalone server. */
const ILLEGAL_OPERATION = 20;

/** A unique-index violation, optionally only one on an index whose key pattern includes `field`. */
export function isDuplicateKey(error: unknown, field?: string): error is MongoServerError {
  if (!(error instanceof MongoServerError) || error.code !== DUPLICATE_KEY) return false;
  if (field === undefined) return true;
  const pattern: unknown = error['keyPattern'];
  // Servers before 4.4 may omit keyPattern: then say "not known to be this index" and let callers settle it by reading.
  return pattern !== null && typeof pattern === 'object' && field in pattern;
}

/**
 * Server errors that retrying cannot cure: authentication and authorisation (a wrong or revoked user), and a
 * document the server refuses (validation, a type or size it cannot store). Retried for ever they would hold a
 * task in a loop; reported as permanent they surface at once.
 */
const PERMANENT_CODES = new Map<number, string>([
  [13, 'not authorised (check the MongoDB user\'s roles)'], [18, 'authentication failed (check MONGODB_URL\'s credentials)'],
  [121, 'document failed validation'], [2, 'bad value'], [14, 'type mismatch'], [10334, 'document too large'],
]);

/** The error the ports promise for a failing store: never a driver error. */
export function storeUnavailable(operation: string, error: unknown): StoreError {
  const standalone = error instanceof MongoServerError && error.code === ILLEGAL_OPERATION;
  const permanent = error instanceof MongoServerError && typeof error.code === 'number' ? PERMANENT_CODES.get(error.code) : undefined;
  // Client-side refusals (a value BSON cannot encode, an invalid argument) are bugs or bad data, not outages.
  const clientSide = error instanceof Error && /^(BSONError|BSONVersionError|MongoInvalidArgumentError)$/.test(error.name);
  const message = standalone
    ? `MongoDB ${operation} failed: the server is not a replica set member (transactions unavailable)`
    : permanent !== undefined ? `MongoDB ${operation} failed: ${permanent}`
      : clientSide ? `MongoDB ${operation} failed: the driver refused the request (${(error as Error).name})` : `MongoDB ${operation} failed`;
  return new StoreError('SERVICE-UNAVAILABLE', message, { transient: !standalone && permanent === undefined && !clientSide, cause: error });
}

/**
 * Runs one store operation and translates driver failures into InfrastructureError. Errors the ports define
 * (DomainError, ConcurrencyConflict, InfrastructureError) pass through; anything else is a bug and passes too.
 */
export async function guarded<T>(operation: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof DomainError || error instanceof ConcurrencyConflict || error instanceof InfrastructureError) {
      throw error;
    }
    if (error instanceof MongoError) throw storeUnavailable(operation, error);
    throw error;
  }
}

/**
 * `doc` unchanged when it holds no bigint anywhere; otherwise a permanent StoreError naming the path. BSON would write
 * a bigint as a 64-bit Long, wrapping silently past 2^63 — money must go through encodeMoney (a decimal string), so a
 * bigint reaching a document is a mapper bug that must not be stored.
 */
export function refuseBigints<T>(doc: T, what: string): T {
  const visit = (value: unknown, path: string): void => {
    if (typeof value === 'bigint') {
      throw new StoreError('INTERNAL-ERROR', `${what}: ${path} is a bigint; amounts are stored as decimal strings`, { transient: false });
    }
    if (value === null || typeof value !== 'object' || value instanceof Date) return;
    if (Array.isArray(value)) value.forEach((item, i) => visit(item, `${path}[${i}]`));
    else for (const [key, item] of Object.entries(value)) visit(item, path === '' ? key : `${path}.${key}`);
  };
  visit(doc, '');
  return doc;
}

let lastStamp = 0;

/**
 * A number that orders inserts: strictly increasing within a process, roughly time-ordered across processes.
 * "Newest first" lists break ties of equal `createdAt` by insertion order (the memory adapters do the same); the
 * domain timestamps come from the Clock and are often equal in tests. Microseconds of wall time stay below 2^53.
 */
export function insertionStamp(): number {
  lastStamp = Math.max(lastStamp + 1, Date.now() * 1000);
  return lastStamp;
}

/**
 * A shared record as MongoDB stores it: the record's `id` is the document's `_id`, every other field keeps its name
 * (so the documents keep the shape they had before the records were shared between stores).
 */
export type MongoDocument<R extends { id: unknown }> = Omit<R, 'id'> & { _id: R['id'] };

/** Record -> document: `id` renamed `_id` and put first, the other fields in the record's order. */
export function toMongoDocument<R extends { id: unknown }>(record: R): MongoDocument<R> {
  const { id, ...rest } = record;
  return { _id: id, ...rest };
}

/** Document -> record: `_id` renamed `id`. Fields only MongoDB writes stay on it; the record codecs ignore them. */
export function fromMongoDocument<D extends { _id: unknown }>(doc: D): Omit<D, '_id'> & { id: D['_id'] } {
  const { _id, ...rest } = doc;
  return { id: _id, ...rest };
}

/** Offset/limit slice plus total; `limit` 0 still reports the total. */
export async function pageFrom<T>(
  count: () => Promise<number>,
  fetch: (skip: number, limit: number) => Promise<T[]>,
  page: PageRequest,
): Promise<Page<T>> {
  const total = await count();
  const items = page.limit <= 0 ? [] : await fetch(Math.max(0, page.offset), page.limit);
  return { items, total };
}
