import type { CashierToken } from '../domain/model/cashier-token.js';
import type { UserId } from '../domain/model/common.js';
import type { Page, PageRequest } from './page.js';

export interface CashierTokenRepository {
  /**
   * Inserts a token unless the address already has one that is active and unexpired at `now` ('active-exists');
   * atomic against concurrent creates for the same address.
   */
  insert(token: CashierToken, now: number): Promise<'created' | 'active-exists'>;
  findByTokenHash(tokenHash: string): Promise<CashierToken | null>;
  findByTokenNo(tokenNo: string): Promise<CashierToken | null>;
  /** The user's tokens, newest first. */
  listByUser(userId: UserId, page: PageRequest): Promise<Page<CashierToken>>;
  /**
   * The user's tokens whose payment request carries exactly `reference` (case and spaces count), newest first like
   * listByUser; tokens without a request never match (GET /cashier/tokens?reference=, issue #34).
   */
  listByReference(userId: UserId, reference: string, page: PageRequest): Promise<Page<CashierToken>>;
  /**
   * The token of `address` that is active and unexpired at `now` (the one `insert` answers 'active-exists' for), or
   * null. A read for the refusal's message, not a check: the insert alone decides.
   */
  findActiveByAddress(address: string, now: number): Promise<CashierToken | null>;
  /** Optimistic replace: stored version must be `token.version - 1`, else ConcurrencyConflict. */
  update(token: CashierToken): Promise<void>;
  /**
   * Slides expiresAt to max(stored, expiresAt) without a version check (concurrent payer requests must not fail);
   * only for an active token.
   */
  extendExpiry(tokenNo: string, expiresAt: number): Promise<void>;
  /**
   * Up to `limit` tokens whose payment request is still watched (PaymentRequest.watched), earliest deadline first
   * (ties by token number): what the payment watcher judges on each pass. A token's status does not matter (a
   * disabled token's request is still paid by what arrives).
   */
  listWatchedPayments(limit: number): Promise<CashierToken[]>;
}
