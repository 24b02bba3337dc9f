import type { BalanceChange, BlockId, BlockTransfer } from './block-source.port.js';

/** A processed block that may still be replaced by a reorg, with what the scanner must undo if it is. */
export interface UnfinalBlock {
  readonly number: number;
  readonly hash: string;
  /** The block's balance changes of managed addresses (tracked assets only). */
  readonly changes: readonly BalanceChange[];
  /** The transfers to managed addresses the scanner credited for this block. */
  readonly deposits: readonly BlockTransfer[];
  /** Managed addresses whose changes in this block may be incomplete (ChainBlock.uncertain): read again once final. */
  readonly uncertain: readonly string[];
}

/**
 * The final balances of one address at final block `at` (read from the solidified state, or carried forward by the
 * exact changes of final blocks): what the scanner adds unfinal changes to.
 */
export interface BalanceAnchor {
  readonly address: string;
  readonly at: number;
  readonly balances: readonly { readonly contract: string | null; readonly amount: bigint }[];
}

/** Everything a chain scanner needs to resume where it stopped, and to undo a reorg after a restart. */
export interface ScanCheckpoint {
  /**
   * The id of the genesis block of the chain the cursor's blocks are on: a node answering another genesis follows
   * another chain (a restarted devnet, another network). Absent on a checkpoint saved before it was recorded.
   */
  readonly genesis?: string;
  /** The last block whose balances are written (the cursor). */
  readonly block: BlockId;
  /** The last processed blocks, oldest first, ending with `block`: where a reorg's fork point is looked for. */
  readonly recent: readonly BlockId[];
  /**
   * The newest block whose changes were folded into final balances (or the block before the start): a final read at
   * an older block cannot be bridged to the cursor, because the changes after it are no longer kept.
   */
  readonly final: number;
  /** Processed blocks not yet final, or final but not yet absorbed by a final read, oldest first. */
  readonly unfinal: readonly UnfinalBlock[];
  /** Final balances of the addresses the scanner follows (with changes in `unfinal`, or recently active). */
  readonly anchors: readonly BalanceAnchor[];
}

/** The answer to a claim: the lease is the caller's (with the stored checkpoint), or someone else holds it. */
export type ScanClaim =
  | { readonly held: true; readonly version: number; readonly checkpoint: ScanCheckpoint | null }
  | { readonly held: false; readonly owner: string; readonly until: number };

/**
 * Where a chain scanner keeps its checkpoint, under a lease so that one scanner at a time works a cursor (several
 * worker processes may run the scanner; the others wait). Every successful claim or save increases the version, and
 * a save names the version it continues from, so a scanner whose lease was taken over can no longer write.
 */
export interface ScanCursorStore {
  /**
   * Takes the named cursor's lease for `owner` until `until` (epoch ms) when it is free, expired at `now`, or already
   * `owner`'s; returns the stored checkpoint (null before the first save) and the new version. Otherwise returns who
   * holds it and until when, changing nothing.
   */
  claim(name: string, owner: string, now: number, until: number): Promise<ScanClaim>;
  /**
   * Stores `checkpoint` and extends the lease to `until` when `owner` holds it at `version`; returns the new version,
   * or null (nothing stored) when the lease was lost or the version moved.
   */
  save(name: string, owner: string, version: number, checkpoint: ScanCheckpoint, until: number): Promise<number | null>;
  /**
   * The genesis ids the stored checkpoints name (ScanCheckpoint.genesis), each once, in no order; checkpoints saved
   * without one are left out. Read without a lease: what an API process checks its node against (issue #34).
   */
  genesisIds(): Promise<readonly string[]>;
}
