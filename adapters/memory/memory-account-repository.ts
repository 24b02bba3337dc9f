import { ConcurrencyConflict } from '../../core/domain/errors.js';
import type { Account, Millis, UserId } from '../../core/domain/model/index.js';
import type { AccountRepository } from '../../core/ports/account-repository.port.js';
import { outboundCopy, storedCopy } from './frozen-copy.js';
import type { MemoryStore } from './memory-store.js';

/**
 * Accounts in the memory store. `accountIdsByEmail` maps a lower-cased e-mail to its verified account (one at most);
 * the table's `pendingByEmail` index lists the pending registrations of an e-mail. Every method runs without an
 * await between its check and its write, so each is atomic.
 */
export class MemoryAccountRepository implements AccountRepository {
  constructor(private readonly store: MemoryStore) {}

  async create(account: Account): Promise<boolean> {
    const email = account.email.toLowerCase();
    if (account.verified && this.store.accountIdsByEmail.has(email)) return false;
    if (this.store.accounts.has(account.id)) throw new ConcurrencyConflict('account', String(account.id));
    this.store.accounts.set(account.id, storedCopy(account));
    if (account.verified) this.store.accountIdsByEmail.set(email, account.id);
    return true;
  }

  async findById(id: UserId): Promise<Account | null> {
    const account = this.store.accounts.get(id);
    return account === undefined ? null : outboundCopy(account);
  }

  async findByEmail(email: string): Promise<Account | null> {
    const id = this.store.accountIdsByEmail.get(email.toLowerCase());
    return id === undefined ? null : this.findById(id);
  }

  async listPendingByEmail(email: string): Promise<Account[]> {
    return this.store.accounts.pendingByEmail.keys(email.toLowerCase()).map((id) => outboundCopy(this.store.accounts.get(id)!));
  }

  async update(account: Account): Promise<void> {
    const stored = this.store.accounts.get(account.id);
    if (stored === undefined || stored.version !== account.version - 1) {
      throw new ConcurrencyConflict('account', String(account.id));
    }
    const oldEmail = stored.email.toLowerCase();
    const newEmail = account.email.toLowerCase();
    const holder = this.store.accountIdsByEmail.get(newEmail);
    // A verified account must not take another verified account's address.
    if (account.verified && holder !== undefined && holder !== account.id) throw new ConcurrencyConflict('account', String(account.id));
    if (stored.verified) this.store.accountIdsByEmail.delete(oldEmail);
    if (account.verified) this.store.accountIdsByEmail.set(newEmail, account.id);
    this.store.accounts.set(account.id, storedCopy(account));
  }

  async promote(account: Account): Promise<boolean> {
    const email = account.email.toLowerCase();
    const stored = this.store.accounts.get(account.id);
    if (stored === undefined || stored.version !== account.version - 1) throw new ConcurrencyConflict('account', String(account.id));
    if (this.store.accountIdsByEmail.has(email)) return false;
    for (const id of this.store.accounts.pendingByEmail.keys(email)) if (id !== account.id) this.store.accounts.delete(id);
    this.store.accounts.set(account.id, storedCopy(account));
    if (account.verified) this.store.accountIdsByEmail.set(email, account.id);
    return true;
  }

  async deleteUnverifiedCreatedBefore(createdBefore: Millis): Promise<number> {
    // The unverified accounts, oldest first (the table's index): the expired ones are a prefix.
    const expired: UserId[] = [];
    for (const id of this.store.accounts.unverified.keys(true)) {
      if (this.store.accounts.get(id)!.createdAt >= createdBefore) break;
      expired.push(id);
    }
    for (const id of expired) this.store.accounts.delete(id);
    return expired.length;
  }
}
