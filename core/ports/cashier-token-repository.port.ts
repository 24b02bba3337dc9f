import type { CashierToken } from '../domain/model/cashier-token.js';
import type { UserId } from '../domain/model/common.js';
import type { CollectionTask } from '../domain/model/collection-task.js';
import type { Deposit } from '../domain/model/deposit.js';
import type { WalletAddress } from '../domain/model/wallet.js';
import type { DeveloperConfig } from '../domain/model/webhook.js';
import type { Page, PageRequest } from './page.js';

/**
 * What the payer's session view (GET /cashier/session) reads for a token, each part as the single reads find it:
 * the token's wallet (WalletRepository.findById), the address's latest task (CollectionTaskRepository
 * .findLatestByAddress), the merchant's configuration (DeveloperConfigRepository.get) and, for a token with a payment
 * request, the deposits that may pay it: the user's, to the token's address, in the request's asset, detected at or
 * after the token's createdAt, newest first (paymentDeposits' walk of DepositRepository.listByUser).
 */
export interface CashierSessionSource {
  readonly wallet: Pick<WalletAddress, 'id' | 'address' | 'networkCode' | 'label'>;
  readonly latestTask: CollectionTask | null;
  readonly config: Pick<DeveloperConfig, 'minCollectAmounts' | 'autoCollect' | 'displayName'> | null;
  readonly deposits: readonly Pick<Deposit, 'txid' | 'amount' | 'status' | 'detectedAt'>[];
}

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
   * The session view's reads for `token` (CashierSessionSource) and the slide of its expiry (as extendExpiry(
   * token.tokenNo, expiresAt)), together: one statement where the store can (issue #37). Null when the token's wallet
   * is missing (never for a token the store issued: addresses are never deleted); the slide still happens.
   */
  readSession(token: CashierToken, expiresAt: number): Promise<CashierSessionSource | null>;
  /**
   * Up to `limit` tokens whose payment request is still watched (PaymentRequest.watched), earliest deadline first
   * (ties by token number): what the payment watcher judges on each pass. A token's status does not matter (a
   * disabled token's request is still paid by what arrives).
   */
  listWatchedPayments(limit: number): Promise<CashierToken[]>;
}
