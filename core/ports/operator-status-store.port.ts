/**
 * What the worker tells the operator console (issue #38 item 2): the worker and the API are separate processes, so
 * the worker's own figures (scanner lag, node calls spent, rate limits, the daily summary) reach the API only
 * through the store. One record per kind, the newest kept: a status, never a history. The reconciliation's state
 * between passes (issue #36: `ledger-reconciliation`) lives here too, so a restarted or a second worker carries it on.
 */
export type OperatorStatusKind = 'health' | 'daily-summary' | 'ledger-reconciliation';

/** A JSON value as stored (no bigint: amounts are integer strings, as on the wire). */
export type OperatorStatusJson = string | number | boolean | null | readonly OperatorStatusJson[] | { readonly [key: string]: OperatorStatusJson };

/** The record of one kind: what a worker wrote and when (epoch ms, on its clock). */
export interface OperatorStatusRecord {
  readonly kind: OperatorStatusKind;
  readonly body: { readonly [key: string]: OperatorStatusJson };
  readonly at: number;
}

/** Where the worker leaves its status for the API's operator routes. */
export interface OperatorStatusStore {
  /**
   * Keeps `body` as the kind's record written at `at` unless the stored one is newer (several workers write: the
   * newest wins, an older write arriving late changes nothing). Returns whether it was kept.
   */
  put(kind: OperatorStatusKind, body: OperatorStatusRecord['body'], at: number): Promise<boolean>;
  /** The kind's newest record, or null before the first write. */
  get(kind: OperatorStatusKind): Promise<OperatorStatusRecord | null>;
  /**
   * Compare-and-set, for state that several workers carry on: writes `body` at `at` only when the kind's stored body is
   * still `expected` (equal as JSON; null: no record yet). Returns whether it was written; false means another writer
   * got there first (read again). Of writers racing from one read, exactly one wins. A body that changes with every
   * write (a counter) keeps a stale read from ever matching again.
   */
  replace(kind: OperatorStatusKind, body: OperatorStatusRecord['body'], at: number, expected: OperatorStatusRecord['body'] | null): Promise<boolean>;
}
