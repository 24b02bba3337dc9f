import type { ForwardWait } from '../forward-wait.js';
import type { Millis } from './common.js';

/**
 * A payment request's status (issue #25): nothing confirmed yet (`awaiting`), some (`partially_paid`), the amount in
 * time (`paid`) or more (`overpaid`), the deadline passed short (`expired`), the amount completed after it (`paid_late`).
 */
export const PAYMENT_STATUSES = ['awaiting', 'partially_paid', 'paid', 'overpaid', 'expired', 'paid_late'] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

/**
 * Where the collection that a paid request starts by itself stands: `due` once the request reached paid or overpaid
 * (written with that status), `started` with the collection task (one commit), `skipped` when it made none (a command
 * already held the address, dust, a refusal). Null: not (yet) paid. A started forward whose task failed for want of
 * energy with nothing sent goes back to `due` (issue #34, see forwardTask).
 */
export type PaymentCollectMark = 'due' | 'started' | 'skipped';

/**
 * A payment request carried by a cashier token (an extension of spec §2). The request itself (asset, amount, texts,
 * deadline) never changes; `status` and `received` are what the worker last announced (its events and its collection
 * follow them), while the payer and the merchant see the status judged at read time from the deposits.
 */
export interface PaymentRequest {
  readonly assetSymbol: string;
  /** Smallest unit of the asset, > 0. */
  readonly amount: bigint;
  /** The merchant's order id (≤ 120 characters) or null. */
  readonly reference: string | null;
  /** ≤ 200 characters or null. */
  readonly description: string | null;
  /** The fixed payment deadline: the token's created_at + pay_within_minutes; never slides. */
  readonly deadline: Millis;
  /** The status as last announced by the worker (its events were written with it). */
  readonly status: PaymentStatus;
  /** The confirmed amount counted when `status` was announced. */
  readonly received: bigint;
  readonly collect: PaymentCollectMark | null;
  /** Whether the worker still judges this request on its passes (see PaymentWatcher). */
  readonly watched: boolean;
  /**
   * Set while `collect` is `due` but its collection was refused before its task (issue #34: no energy source can cover
   * it now): why, and when the worker tries again. Absent otherwise (and on requests stored before it existed).
   */
  readonly forwardWait?: ForwardWait;
  /**
   * The forward's collection task while `collect` is `started` and the worker follows it (issue #34): a task that ends
   * FAILED refused for want of energy before anything was sent puts the forward back to `due`, waiting; any other end
   * lets the request go. Absent before the forward started, once it is let go, and on requests stored before it existed
   * (those were let go when they started).
   */
  readonly forwardTask?: string;
  /**
   * The withdrawals that refund this request (issue #36 item 4: `POST /transfers` with `refund_of`), oldest first,
   * each recorded in the commit that creates its command. Absent when none (and on requests stored before it existed).
   */
  readonly refunds?: readonly PaymentRefund[];
}

/** One refund of a payment request: its withdrawal command and amount (the request's asset, smallest unit). */
export interface PaymentRefund {
  readonly commandNo: string;
  readonly amount: bigint;
  readonly requestedAt: Millis;
}

/** The write of one request's judged state: the token's version goes to `version` (stored must be `version - 1`). */
export interface PaymentRequestChange {
  readonly tokenNo: string;
  readonly version: number;
  readonly payment: PaymentRequest;
}
