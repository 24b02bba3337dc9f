import type { Account } from '../domain/model/account.js';
import type { Millis, UserId } from '../domain/model/common.js';

/**
 * Accounts and pending registrations (issue #26 item 6). A verified account owns its e-mail: at most one per e-mail,
 * case-insensitively. An unverified account is a pending registration: any number may name one e-mail, and none of
 * them blocks another or a verified account; the first promoted wins the e-mail and voids the rest.
 */
export interface AccountRepository {
  /**
   * Inserts an account. A pending registration (unverified) is always written; a verified account is refused (false,
   * nothing written) when a verified account holds its e-mail. An id already stored is a ConcurrencyConflict.
   */
  create(account: Account): Promise<boolean>;
  findById(id: UserId): Promise<Account | null>;
  /** The verified account of the e-mail (case-insensitive), or null; pending registrations are not returned. */
  findByEmail(email: string): Promise<Account | null>;
  /** The pending registrations (unverified accounts) of the e-mail, case-insensitively, oldest `createdAt` first. */
  listPendingByEmail(email: string): Promise<Account[]>;
  /**
   * Replaces the account if its stored version equals `account.version - 1`; else throws ConcurrencyConflict (also
   * when the write would make a second verified account of one e-mail).
   */
  update(account: Account): Promise<void>;
  /**
   * Verifies a pending registration: writes `account` (verified, with the version rule of update) and deletes every
   * other pending registration of its e-mail, atomically. False (nothing written) when a verified account already
   * holds the e-mail; a stale version or a registration deleted meanwhile is a ConcurrencyConflict.
   */
  promote(account: Account): Promise<boolean>;
  /**
   * Deletes every account that is unverified and was created strictly before `createdBefore`; returns how many. Each
   * account is judged atomically: one verified meanwhile is kept.
   */
  deleteUnverifiedCreatedBefore(createdBefore: Millis): Promise<number>;
}
