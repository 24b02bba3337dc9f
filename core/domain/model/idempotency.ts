import type { Millis } from './common.js';

/** The stored outcome of an idempotent request: replayed byte for byte, status included. */
export interface StoredResponse {
  readonly status: number;
  readonly body: string;
}

export interface IdempotencyRecord {
  /** (caller, method, path) joined; keys are scoped by it. */
  readonly scope: string;
  readonly key: string;
  /** SHA-256 of the canonical request body: the same key with another body is refused. */
  readonly requestHash: string;
  readonly state: 'in-progress' | 'completed';
  readonly response: StoredResponse | null;
  readonly createdAt: Millis;
  readonly expiresAt: Millis;
  /**
   * End of the in-flight lease (only meaningful while `in-progress`): after it a same-hash begin takes the request
   * over, because the process that started it presumably died. Absent (records written before leases) = `expiresAt`.
   */
  readonly leaseExpiresAt?: Millis;
}

/** DESIGN.md: idempotency window. */
export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;
