/** Which view of the chain a reader follows: the head (fast, may be reorganised) or the solidified block (irreversible). */
export type ChainLevel = 'head' | 'solidified';

/** A block's identity: its number and its id (hash), lowercase hex as the node prints it. */
export interface BlockId {
  readonly number: number;
  readonly hash: string;
}

/**
 * A successful value transfer in a block: native TRX (`contract` null), sent by a transaction or from inside a
 * contract call (`internal`), or a TRC20 `Transfer` event (`contract` = the token). Addresses in the network's
 * canonical form (TRON base58 `T…`). Failed transactions, reverted calls and rejected internal transfers move nothing
 * and are left out.
 */
export interface BlockTransfer {
  /**
   * Unique on a chain and the same on every branch that includes the transaction: the txid for a transaction's own
   * transfer, `<txid>:log:<i>` for its i-th event log, `<txid>:internal:<i>` for its i-th internal transaction.
   */
  readonly id: string;
  readonly txid: string;
  readonly contract: string | null;
  readonly internal: boolean;
  readonly from: string;
  readonly to: string;
  readonly amount: bigint;
}

/** What a block did to one account's balance of one asset (TRX when `contract` is null). */
export interface BalanceChange {
  readonly address: string;
  readonly contract: string | null;
  /** Net change in the asset's smallest unit; may be zero (the account took part, e.g. paid no fee). */
  readonly delta: bigint;
}

/**
 * A transaction's receipt in a block (the node's transaction info): whether it succeeded, and what it burnt. What
 * the workflows learn about their own transactions from the blocks the scanner reads (TransactionEvidence).
 */
export interface BlockReceipt {
  readonly txid: string;
  /** The contract ran and succeeded (a failed one moved nothing but its fee). */
  readonly success: boolean;
  /** Why it failed (REVERT, OUT_OF_ENERGY …); null when it succeeded. */
  readonly reason: string | null;
  readonly feeSun: bigint;
  readonly netFeeSun: bigint;
  readonly energyFeeSun: bigint;
  readonly energyUsed: number;
}

/** One block reduced to what a deposit scanner needs. */
export interface ChainBlock {
  readonly number: number;
  readonly hash: string;
  readonly parentHash: string;
  readonly timestamp: number;
  readonly transfers: readonly BlockTransfer[];
  /**
   * Net balance changes, one entry per (account, asset) the block touched: every transaction's owner (for TRX, even
   * at a zero net: fees, stake and withdrawals move its balance), every party of a transfer, for TRX and for every
   * token that emitted `Transfer` events. Exact for the transaction kinds the adapter documents; an account a block
   * changed in another way is still listed, so a reader can re-read it once the block is final.
   */
  readonly changes: readonly BalanceChange[];
  /**
   * Accounts the block changed in a way the reader cannot compute (a transaction kind outside the ones it
   * documents): their listed change may be incomplete, so a reader that needs exactness reads them once final.
   */
  readonly uncertain: readonly string[];
  /**
   * The receipt of every transaction in the block, lowercase txids; absent when the source does not read them (a
   * reader of such blocks cannot say that a transaction is not in one).
   */
  readonly receipts?: readonly BlockReceipt[];
}

/** Balances read from the node's solidified (irreversible) state. */
export interface FinalBalances {
  /** The solidified block whose state the values are, exactly (the adapter checks it did not move during the reads). */
  readonly at: BlockId;
  /** By address, then by asset (`null` = TRX, else the token contract); every asked pair is present. */
  readonly balances: ReadonlyMap<string, ReadonlyMap<string | null, bigint>>;
}

/**
 * Reads blocks in order and final balances, for the deposit scanner (refresh_source 1). Failures are ChainErrors
 * (`transient` when the same call may succeed later, e.g. on another node).
 */
export interface BlockSource {
  /** The newest block at `level`. */
  head(level: ChainLevel): Promise<BlockId>;
  /**
   * The chain's first block (number 0). Two nodes answer the same id only when they follow the same chain: a
   * restarted devnet, or a node of another network, answers another (what a scanner checks its cursor against).
   */
  genesis(): Promise<BlockId>;
  /**
   * Block `number` as the node has it at `level` (at head level possibly on a branch a reorg will replace), or null
   * when the node has no such block at that level (yet). Two reads of one solidified block give the same answer.
   */
  block(number: number, level: ChainLevel): Promise<ChainBlock | null>;
  /**
   * Balances of `addresses` (TRX for a null contract, else the token's `balanceOf`) in the solidified state, all from
   * one solidified block, which the answer names. Never includes pending transactions or unsolidified blocks.
   */
  finalBalances(addresses: readonly string[], contracts: readonly (string | null)[]): Promise<FinalBalances>;
}
