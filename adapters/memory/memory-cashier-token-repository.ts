import { ConcurrencyConflict } from '../../core/domain/errors.js';
import type { CashierToken, UserId } from '../../core/domain/model/index.js';
import type { CashierSessionSource, CashierTokenRepository } from '../../core/ports/cashier-token-repository.port.js';
import type { Page, PageRequest } from '../../core/ports/page.js';
import { readSessionBySingleReads } from '../../core/application/cashier-session-reads.js';
import { outboundCopy, storedCopy } from './frozen-copy.js';
import { MemoryCollectionTaskRepository } from './memory-collection-task-repository.js';
import { MemoryDepositRepository } from './memory-deposit-repository.js';
import { MemoryDeveloperConfigRepository } from './memory-developer-config-repository.js';
import type { MemoryStore } from './memory-store.js';
import { MemoryWalletRepository } from './memory-wallet-repository.js';
import { pageOf, pageOfKeys } from './paging.js';

/** Cashier tokens; the "one active token per address" rule is checked and written in one synchronous step. */
export class MemoryCashierTokenRepository implements CashierTokenRepository {
  constructor(private readonly store: MemoryStore) {}

  async insert(token: CashierToken, now: number): Promise<'created' | 'active-exists'> {
    if (this.store.cashierTokens.has(token.tokenNo)) throw new ConcurrencyConflict('cashier token', token.tokenNo);
    for (const no of this.store.cashierTokens.byAddress.keys(token.address)) {
      const stored = this.store.cashierTokens.get(no)!;
      if (stored.status === 'active' && stored.expiresAt > now) return 'active-exists';
    }
    this.store.cashierTokens.set(token.tokenNo, storedCopy(token));
    return 'created';
  }

  async findByTokenHash(tokenHash: string): Promise<CashierToken | null> {
    const [first] = this.store.cashierTokens.byHash.keys(tokenHash);
    return first === undefined ? null : outboundCopy(this.store.cashierTokens.get(first)!);
  }

  async findByTokenNo(tokenNo: string): Promise<CashierToken | null> {
    const token = this.store.cashierTokens.get(tokenNo);
    return token === undefined ? null : outboundCopy(token);
  }

  async listByUser(userId: UserId, page: PageRequest): Promise<Page<CashierToken>> {
    return pageOfKeys(this.store.cashierTokens, this.store.cashierTokens.byUser.slice(userId, page.offset, page.limit));
  }

  async listByReference(userId: UserId, reference: string, page: PageRequest): Promise<Page<CashierToken>> {
    const tokens = this.store.cashierTokens;
    const matching = tokens.byUser.keys(userId).map((no) => tokens.get(no)!).filter((t) => t.payment?.reference === reference);
    return pageOf(matching, page);
  }

  async findActiveByAddress(address: string, now: number): Promise<CashierToken | null> {
    for (const no of this.store.cashierTokens.byAddress.keys(address)) {
      const stored = this.store.cashierTokens.get(no)!;
      if (stored.status === 'active' && stored.expiresAt > now) return outboundCopy(stored);
    }
    return null;
  }

  async update(token: CashierToken): Promise<void> {
    const stored = this.store.cashierTokens.get(token.tokenNo);
    if (stored === undefined || stored.version !== token.version - 1) {
      throw new ConcurrencyConflict('cashier token', token.tokenNo);
    }
    this.store.cashierTokens.set(token.tokenNo, storedCopy(token));
  }

  async extendExpiry(tokenNo: string, expiresAt: number): Promise<void> {
    const stored = this.store.cashierTokens.get(tokenNo);
    if (stored === undefined || stored.status !== 'active' || stored.expiresAt >= expiresAt) return;
    // No version bump: sliding the expiry must not make a concurrent disable fail.
    this.store.cashierTokens.set(tokenNo, storedCopy({ ...stored, expiresAt }));
  }

  /** The single reads over this store (no statements to save in memory). */
  readSession(token: CashierToken, expiresAt: number): Promise<CashierSessionSource | null> {
    return readSessionBySingleReads({
      cashierTokens: this, wallets: new MemoryWalletRepository(this.store), tasks: new MemoryCollectionTaskRepository(this.store),
      developerConfigs: new MemoryDeveloperConfigRepository(this.store), deposits: new MemoryDepositRepository(this.store),
    }, token, expiresAt);
  }

  async listWatchedPayments(limit: number): Promise<CashierToken[]> {
    // A scan, like listAutoCollectDue: watched requests are the open ones, which end at payment or a day past deadline.
    const watched = [...this.store.cashierTokens.values()].filter((t) => t.payment?.watched === true)
      .sort((a, b) => a.payment!.deadline - b.payment!.deadline || (a.tokenNo < b.tokenNo ? -1 : a.tokenNo > b.tokenNo ? 1 : 0));
    return watched.slice(0, Math.max(0, limit)).map((t) => outboundCopy(t));
  }
}
