import type { BalanceSnapshot } from '../../core/domain/model/index.js';
import type { BalanceRepository, BalanceViewSource } from '../../core/ports/balance-repository.port.js';
import { outboundCopy, storedCopy } from './frozen-copy.js';
import { lockHolderOf } from './memory-command-repository.js';
import type { MemoryStore } from './memory-store.js';

/** Cached balance snapshots per address; an older snapshot never replaces a newer one. */
export class MemoryBalanceRepository implements BalanceRepository {
  constructor(private readonly store: MemoryStore) {}

  async get(address: string): Promise<BalanceSnapshot | null> {
    const snapshot = this.store.balances.get(address);
    return snapshot === undefined ? null : outboundCopy(snapshot);
  }

  async readView(address: string): Promise<BalanceViewSource | null> {
    const id = this.store.walletIdsByAddress.get(address);
    const wallet = id === undefined ? undefined : this.store.wallets.get(id);
    if (wallet === undefined) return null;
    const snapshot = this.store.balances.get(address);
    const active = lockHolderOf(this.store, address);
    return {
      wallet: { userId: wallet.userId, networkCode: wallet.networkCode, address: wallet.address, createdAt: wallet.createdAt },
      snapshot: snapshot === undefined ? null : outboundCopy(snapshot),
      active: active === undefined ? null : { assetSymbol: active.assetSymbol, lockedAmount: active.lockedAmount },
    };
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
