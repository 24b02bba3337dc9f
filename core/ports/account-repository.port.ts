import type { Account } from '../domain/model/account.js';
import type { Millis, UserId } from '../domain/model/common.js';

export interface AccountRepository {
  /** Inserts a new account; false (nothing written) when the email (case-insensitive) is taken. */
  create(account: Account): Promise<boolean>;
  findById(id: UserId): Promise<Account | null>;
  /** Case-insensitive lookup. */
  findByEmail(email: string): Promise<Account | null>;
  /** Replaces the account if its stored version equals `account.version - 1`; else throws ConcurrencyConflict. */
  update(account: Account): Promise<void>;
  /**
   * Deletes every account that is unverified and was created strictly before `createdBefore`, freeing its e-mail;
   * returns how many. Each account is judged atomically: one verified meanwhile (or taken over, which renews its
   * `createdAt`) is kept.
   */
  deleteUnverifiedCreatedBefore(createdBefore: Millis): Promise<number>;
}
