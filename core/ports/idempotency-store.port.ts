import type { StoredResponse } from '../domain/model/idempotency.js';

export type IdempotencyBegin =
  | { readonly outcome: 'started' }
  | { readonly outcome: 'in-progress' }
  | { readonly outcome: 'replay'; readonly response: StoredResponse }
  | { readonly outcome: 'mismatch' };

/**
 * Idempotency records per (scope, key) kept for `windowMs` on the store's clock.
 * begin() is atomic: of N concurrent begins with the same scope and key exactly one gets `started`.
 *
 * A started request holds an in-flight lease of `inFlightMs` (default: the whole window). A process that dies between
 * begin() and complete() leaves the lease behind; once it has expired on the store's clock, a begin with the same
 * request hash takes the request over (`started` again, atomically: of N concurrent takeovers exactly one wins, the
 * rest see `in-progress`), and the record's window restarts from the takeover. Another hash stays `mismatch` for the
 * whole window and a completed record keeps replaying for it: the lease only ever ends the in-flight state.
 * The lease must comfortably exceed the longest request: a request still running when its lease expires may run
 * twice, and its late complete()/abandon() then acts on the takeover's record (same hash, so the same request).
 */
export interface IdempotencyStore {
  /**
   * Starts a request, or reports the earlier one: completed (replay), running (in-progress) or other body (mismatch).
   * `inFlightMs` (positive; omitted = `windowMs`) is the in-flight lease after which a same-hash begin takes over.
   */
  begin(scope: string, key: string, requestHash: string, windowMs: number, inFlightMs?: number): Promise<IdempotencyBegin>;
  /** Stores the final response of a started request. */
  complete(scope: string, key: string, response: StoredResponse): Promise<void>;
  /** Forgets a started request that failed unexpectedly, so the client may retry with the same key. */
  abandon(scope: string, key: string): Promise<void>;
}
