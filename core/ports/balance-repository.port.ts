import type { BalanceSnapshot } from '../domain/model/balance.js';

export interface BalanceRepository {
  get(address: string): Promise<BalanceSnapshot | null>;
  /** Stores the snapshot unless a newer one (greater updatedAt) is stored already; last-writer-by-time wins. */
  put(snapshot: BalanceSnapshot): Promise<void>;
}
