import { createHash } from 'node:crypto';
import type { IdempotencyStore } from '../../core/ports/idempotency-store.port.js';
import { IDEMPOTENCY_WINDOW_MS } from '../../core/domain/model/idempotency.js';
import { DomainError, validationError } from '../../core/domain/errors.js';
import { mapError, type ApiReply } from './envelope.js';
import type { ErrorStatuses } from './error-status.js';

/** Longest accepted Idempotency-Key (a UUID is 36; room for client-specific formats). */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

/** The Idempotency-Key header value: required, not blank, at most 255 characters. */
export function requireIdempotencyKey(header: string | null): string {
  const key = header?.trim() ?? '';
  if (key === '') throw validationError('Idempotency-Key', 'header is required');
  if (key.length > MAX_IDEMPOTENCY_KEY_LENGTH) {
    throw validationError('Idempotency-Key', `must be at most ${MAX_IDEMPOTENCY_KEY_LENGTH} characters`);
  }
  return key;
}

/** JSON with object keys sorted at every level, so the same body sent with other spacing or key order hashes equal. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value);
}

/** SHA-256 of the canonical body: what "the same request" means for a repeated key. */
export function requestHash(body: unknown): string {
  return createHash('sha256').update(canonicalJson(body)).digest('hex');
}

/**
 * How long a started request holds its key before a retry may take it over. Why a lease at all: a process that dies
 * between begin and complete would otherwise answer IDEMPOTENCY-KEY-IN-PROGRESS for the whole 24 h window. Why 60 s:
 * the idempotent routes (collections, cashier collect, transfers) only validate and record a task or command in the
 * store (the chain work runs in the worker), so they take well under a second; a request still running when its
 * lease ran out could run a second time, and even then the address lock refuses a duplicate (BIZ-COMMAND-LOCKED).
 */
export const IDEMPOTENCY_IN_FLIGHT_MS = 60_000;

/** The header a replayed answer carries, so a client can tell it apart from a fresh execution. */
export const REPLAY_HEADER = 'idempotent-replayed';

/**
 * Runs `work` so that every store write it makes lands together or not at all (UnitOfWork.atomically of the store the
 * use cases write to): the request's effect and the record of its answer.
 */
export type AtomicScope = <T>(work: () => Promise<T>) => Promise<T>;

/** Thrown out of the atomic scope to take back the writes of a request whose answer is not its answer (5xx). */
class NotAnswered {
  constructor(readonly reply: ApiReply) {}
}

/**
 * Runs `execute` at most once per (scope, key) within the 24 h window (DESIGN.md). A completed earlier request with the
 * same body is replayed byte for byte, status included; another body is 422 IDEMPOTENCY-KEY-REUSED; one still running
 * is 409 IDEMPOTENCY-KEY-IN-PROGRESS, until its in-flight lease (IDEMPOTENCY_IN_FLIGHT_MS) runs out and a retry takes it
 * over. `admit` (the route's rate limit) runs only for a request that is new under its key, so replays cost no quota.
 * 2xx and 4xx outcomes are stored (they are the answer to that request), a failure with the route's `errorStatuses`;
 * a 5xx or an unexpected error abandons the record so the client can retry with the same key.
 *
 * `execute` and the record of its answer run in one atomic scope (`atomically`): a process killed anywhere before the
 * scope's commit leaves neither the effect (a command holding its address's lock) nor the answer, so the retry that
 * takes the lease over runs the request once; killed after it, the retry replays the answer. Without the scope a
 * crash between the two left the command and no answer, and the takeover met its own command's lock (409
 * BIZ-COMMAND-LOCKED) or, once that command had ended, created a second one. A 5xx or unexpected error takes the
 * request's writes back with the scope.
 */
export async function runIdempotent(
  store: IdempotencyStore, scope: string, key: string, body: unknown, execute: () => Promise<ApiReply>,
  admit?: () => Promise<void>, errorStatuses?: ErrorStatuses, atomically: AtomicScope = (work) => work(),
): Promise<ApiReply> {
  const begun = await store.begin(scope, key, requestHash(body), IDEMPOTENCY_WINDOW_MS, IDEMPOTENCY_IN_FLIGHT_MS);
  if (begun.outcome === 'replay') {
    return { status: begun.response.status, body: begun.response.body, headers: { [REPLAY_HEADER]: 'true' } };
  }
  if (begun.outcome === 'mismatch') throw new DomainError('IDEMPOTENCY-KEY-REUSED');
  if (begun.outcome === 'in-progress') throw new DomainError('IDEMPOTENCY-KEY-IN-PROGRESS');
  if (admit !== undefined) {
    // Only a new request reaches the rate limit; a refused one (429) stores nothing under its key.
    try {
      await admit();
    } catch (error) {
      await store.abandon(scope, key).catch(() => undefined);
      throw error;
    }
  }
  try {
    return await atomically(async () => {
      let reply: ApiReply;
      try {
        reply = await execute();
      } catch (error) {
        const mapped = mapError(error, errorStatuses);
        if (mapped.unexpected || mapped.reply.status >= 500) throw error;
        reply = mapped.reply;
      }
      if (reply.status >= 500) throw new NotAnswered(reply);
      await store.complete(scope, key, { status: reply.status, body: reply.body });
      return reply;
    });
  } catch (error) {
    // The original failure is what the client must see; a failing abandon must not mask it. abandon forgets only a
    // record still in progress: a scope whose commit landed though its acknowledgement was lost keeps its answer.
    await store.abandon(scope, key).catch(() => undefined);
    if (error instanceof NotAnswered) return error.reply;
    throw error;
  }
}
