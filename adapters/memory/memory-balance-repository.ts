import type { BalanceSnapshot } from '../../core/domain/model/index.js';
import type { BalanceRepository } from '../../core/ports/balance-repository.port.js';
import { outboundCopy, storedCopy } from './frozen-copy.js';
import type { MemoryStore } from './memory-store.js';

/** Cached balance snapshots per address; an older snapshot never replaces a newer one. */
export class MemoryBalanceRepository implements BalanceRepository {
  constructor(private readonly store: MemoryStore) {}

  async get(address: string): Promise<BalanceSnapshot | null> {
    const snapshot = this.store.balances.get(address);
    return snapshot === undefined ? null : outboundCopy(snapshot);
  }

  async put(snapshot: BalanceSnapshot): Promise<void> {
    const stored = this.store.balances.get(snapshot.address);
    if (stored !== undefined && stored.updatedAt > snapshot.updatedAt) return;
    this.store.balances.set(snapshot.address, storedCopy(snapshot));
  }

  async putAll(snapshots: readonly BalanceSnapshot[]): Promise<void> {
    for (const snapshot of snapshots) await this.put(snapshot);
  }
}
