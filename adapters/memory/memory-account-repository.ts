import { ConcurrencyConflict } from '../../core/domain/errors.js';
import type { Account, Millis, UserId } from '../../core/domain/model/index.js';
import type { AccountRepository } from '../../core/ports/account-repository.port.js';
import { outboundCopy, storedCopy } from './frozen-copy.js';
import type { MemoryStore } from './memory-store.js';

/** Accounts in the memory store; the email index makes the case-insensitive uniqueness check one lookup. */
export class MemoryAccountRepository implements AccountRepository {
  constructor(private readonly store: MemoryStore) {}

  async create(account: Account): Promise<boolean> {
    const email = account.email.toLowerCase();
    if (this.store.accountIdsByEmail.has(email)) return false;
    if (this.store.accounts.has(account.id)) throw new ConcurrencyConflict('account', String(account.id));
    this.store.accounts.set(account.id, storedCopy(account));
    this.store.accountIdsByEmail.set(email, account.id);
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

  async update(account: Account): Promise<void> {
    const stored = this.store.accounts.get(account.id);
    if (stored === undefined || stored.version !== account.version - 1) {
      throw new ConcurrencyConflict('account', String(account.id));
    }
    const oldEmail = stored.email.toLowerCase();
    const newEmail = account.email.toLowerCase();
    if (newEmail !== oldEmail) {
      // An email change must not steal another account's address.
      if (this.store.accountIdsByEmail.has(newEmail)) throw new ConcurrencyConflict('account', String(account.id));
      this.store.accountIdsByEmail.delete(oldEmail);
      this.store.accountIdsByEmail.set(newEmail, account.id);
    }
    this.store.accounts.set(account.id, storedCopy(account));
  }

  async deleteUnverifiedCreatedBefore(createdBefore: Millis): Promise<number> {
    // The unverified accounts, oldest first (the table's index): the expired ones are a prefix.
    const expired: Account[] = [];
    for (const id of this.store.accounts.unverified.keys(true)) {
      const account = this.store.accounts.get(id)!;
      if (account.createdAt >= createdBefore) break;
      expired.push(account);
    }
    for (const account of expired) {
      this.store.accounts.delete(account.id);
      this.store.accountIdsByEmail.delete(account.email.toLowerCase());
    }
    return expired.length;
  }
}
