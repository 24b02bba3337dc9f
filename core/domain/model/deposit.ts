import type { Millis, NetworkCode, UserId, Versioned } from './common.js';

/** A deposit's status: seen at head (`pending`), at the solidified depth (`confirmed`), dropped by a reorg (`reverted`). */
export const DEPOSIT_STATUSES = ['pending', 'confirmed', 'reverted'] as const;
export type DepositStatus = (typeof DEPOSIT_STATUSES)[number];

/**
 * One incoming transfer to a managed address, as the balance scanner saw it. One record per transfer: `transferId`
 * (BlockTransfer.id: `txid`, `txid:log:i` or `txid:internal:i`) is unique per network in every store, so a rescan, a
 * restart or a second scanner finds the record instead of writing another.
 */
export interface Deposit extends Versioned {
  /** The public id (`deposit_id`), given once when the record is created. */
  readonly depositId: string;
  readonly transferId: string;
  /** The owner of `address` when the deposit was recorded. */
  readonly userId: UserId;
  readonly address: string;
  readonly networkCode: NetworkCode;
  readonly assetSymbol: string;
  /** Smallest unit of the asset (SUN for TRX). */
  readonly amount: bigint;
  readonly fromAddress: string;
  readonly txid: string;
  /** The block that includes it on the chain the scanner follows (a re-inclusion after a reorg moves it). */
  readonly blockNumber: number;
  readonly status: DepositStatus;
  readonly detectedAt: Millis;
  /** When it reached the confirmed depth; null until then. */
  readonly confirmedAt: Millis | null;
  /**
   * Automatic collection (issue #24 item 4): `due` when it was confirmed while its owner had config.auto_collect for the
   * asset (set in the same write as the confirmation); `started` when the collection it triggered was made (in the same
   * write as that task); `skipped` when it triggered none (below min_amount, address held by a command, rule or wallet
   * gone). Absent: never a trigger.
   */
  readonly autoCollect?: AutoCollectMark;
  /**
   * The task a `started` trigger made, while the auto collector follows it (issue #34): set in the same write as
   * `started`, removed once that task ended, unless it ended FAILED for want of energy with nothing sent
   * (forwardRetryable): then the trigger goes back to `due`. Absent otherwise, and on triggers started before it existed.
   */
  readonly autoCollectTask?: string;
}

/** Where a deposit's automatic collection trigger stands; see Deposit.autoCollect. */
export const AUTO_COLLECT_MARKS = ['due', 'started', 'skipped'] as const;
export type AutoCollectMark = (typeof AUTO_COLLECT_MARKS)[number];
