/** Which view of the chain a reader follows: the head (fast, may be reorganised) or the solidified block. */
export type ChainLevel = 'head' | 'solidified';

/**
 * A successful value transfer seen in a block: native TRX (`contract` null) or a TRC20 `Transfer` event log
 * (`contract` = the token contract). Addresses in the network's canonical form (TRON base58 `T…`).
 */
export interface BlockTransfer {
  readonly txid: string;
  readonly contract: string | null;
  readonly from: string;
  readonly to: string;
  readonly amount: bigint;
}

/** One block reduced to what the balance scanner needs. */
export interface ChainBlock {
  readonly number: number;
  readonly timestamp: number;
  readonly transfers: readonly BlockTransfer[];
}

/** Reads blocks in order, for the balance scanner (refresh_source 1). Failures are InfrastructureError CHAIN-*. */
export interface BlockSource {
  /** Number of the newest block at `level`. */
  latest(level: ChainLevel): Promise<number>;
  /**
   * The block's successful transfers (failed or reverted transactions are left out), or null when the block does
   * not exist at `level` yet. Two calls for the same solidified block give the same answer.
   */
  block(number: number, level: ChainLevel): Promise<ChainBlock | null>;
}
