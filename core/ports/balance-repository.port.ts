import type { BalanceSnapshot } from '../domain/model/balance.js';

export interface BalanceRepository {
  get(address: string): Promise<BalanceSnapshot | null>;
  /** Stores the snapshot unless a newer one (greater updatedAt) is stored already; last-writer-by-time wins. */
  put(snapshot: BalanceSnapshot): Promise<void>;
  /**
   * Stores each snapshot as `put` would, one after the other in this order (of several for one address, what those
   * puts would leave), in one write where the store can: the balance scanner writes every address a pass touched.
   */
  putAll(snapshots: readonly BalanceSnapshot[]): Promise<void>;
}
