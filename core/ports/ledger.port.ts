import type { LedgerAccountKind, LedgerBalance, LedgerEntry, LedgerTransaction } from '../domain/ledger.js';
import type { UserId } from '../domain/model/common.js';
import type { Page, PageRequest } from './page.js';

/** Filters of Ledger.entries; an absent field does not filter. Times are epoch milliseconds, both ends inclusive. */
export interface LedgerEntryFilter {
  readonly from?: number;
  readonly to?: number;
  readonly address?: string;
  readonly assetSymbol?: string;
  /** The account's kind. */
  readonly kind?: LedgerAccountKind;
  /** The cause's type (the entry's kind on the wire: deposit, reversal, …). */
  readonly causeType?: string;
}

/** The answer of Ledger.post: the booked transaction's entries, and whether this call booked them. */
export interface LedgerPosting {
  readonly created: boolean;
  readonly entries: LedgerEntry[];
}

/**
 * The books (core/domain/ledger.ts): immutable double-entry transactions, each booked exactly once by its cause.
 * Every write of `post` joins UnitOfWork.atomically when called inside it (one transaction on a durable store).
 */
export interface Ledger {
  /**
   * Books the transaction, atomically even between processes: its entries, each with `balanceAfter` = its account's
   * balance before it (in booking order, serialised per account) + its amount. A transaction whose cause (userId,
   * cause.type, cause.id) is already booked writes nothing and answers the stored entries with `created: false`, even
   * when its lines differ (the first booking stands; a correction is a new transaction that reverses it). A
   * transaction that does not balance per asset (ledgerTransactionProblems) throws RangeError; a transactionId taken
   * by another cause is a ConcurrencyConflict. Callers book each account's transactions in time order.
   */
  post(transaction: LedgerTransaction): Promise<LedgerPosting>;
  /**
   * The user's entries matching every given filter, in booking order (oldest first; a transaction's entries in their
   * line order), as one page plus the total. `address` matches the custodial account of that address.
   */
  entries(userId: UserId, filter: LedgerEntryFilter, page: PageRequest): Promise<Page<LedgerEntry>>;
  /**
   * Each of the user's accounts with an entry at or before `at` (occurredAt <= at), with the balance after its latest
   * such entry (latest occurredAt, then latest booked: the last booked when each account is booked in time order);
   * ordered by network, asset, kind and address. One read per account, not a sum.
   */
  balancesAt(userId: UserId, at: number): Promise<LedgerBalance[]>;
  /**
   * The users that have books (at least one entry), ascending, those after `after` (null: from the first), at most
   * `limit`: what the reconciliation with the chain walks (issue #36 item 2).
   */
  usersWithBooks(after: UserId | null, limit: number): Promise<UserId[]>;
}
