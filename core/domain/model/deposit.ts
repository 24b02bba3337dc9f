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
}
