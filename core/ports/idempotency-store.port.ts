import type { StoredResponse } from '../domain/model/idempotency.js';

export type IdempotencyBegin =
  | { readonly outcome: 'started' }
  | { readonly outcome: 'in-progress' }
  | { readonly outcome: 'replay'; readonly response: StoredResponse }
  | { readonly outcome: 'mismatch' };

/**
 * Idempotency records per (scope, key) kept for `windowMs` on the store's clock.
 * begin() is atomic: of N concurrent begins with the same scope and key exactly one gets `started`.
 */
export interface IdempotencyStore {
  /** Starts a request, or reports the earlier one: completed (replay), running (in-progress) or other body (mismatch). */
  begin(scope: string, key: string, requestHash: string, windowMs: number): Promise<IdempotencyBegin>;
  /** Stores the final response of a started request. */
  complete(scope: string, key: string, response: StoredResponse): Promise<void>;
  /** Forgets a started request that failed unexpectedly, so the client may retry with the same key. */
  abandon(scope: string, key: string): Promise<void>;
}
