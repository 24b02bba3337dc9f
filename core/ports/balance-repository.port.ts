import type { BalanceSnapshot } from '../domain/model/balance.js';
import type { Command } from '../domain/model/command.js';
import type { WalletAddress } from '../domain/model/wallet.js';

/** What a wallet's balance view reads: a few fields of the wallet, its snapshot, and what its active command holds. */
export interface BalanceViewSource {
  readonly wallet: Pick<WalletAddress, 'userId' | 'networkCode' | 'address' | 'createdAt'>;
  /** As BalanceRepository.get. */
  readonly snapshot: BalanceSnapshot | null;
  /** The address's active fund-moving command, as CommandRepository.findActiveByAddress finds it; only what it holds. */
  readonly active: Pick<Command, 'assetSymbol' | 'lockedAmount'> | null;
}

export interface BalanceRepository {
  get(address: string): Promise<BalanceSnapshot | null>;
  /**
   * The wallet at `address` with its snapshot and its active fund-moving command, read together (one statement where
   * the store can: the API's hottest read). Null when no wallet has the address; ownership is the caller's check.
   */
  readView(address: string): Promise<BalanceViewSource | null>;
  /** Stores the snapshot unless a newer one (greater updatedAt) is stored already; last-writer-by-time wins. */
  put(snapshot: BalanceSnapshot): Promise<void>;
  /**
   * Stores each snapshot as `put` would, one after the other in this order (of several for one address, what those
   * puts would leave), in one write where the store can: the balance scanner writes every address a pass touched.
   */
  putAll(snapshots: readonly BalanceSnapshot[]): Promise<void>;
}
