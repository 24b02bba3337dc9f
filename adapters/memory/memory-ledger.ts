import { bookedEntries, ledgerAccountKey, ledgerCauseKey, type LedgerBalance, type LedgerEntry, type LedgerTransaction } from '../../core/domain/ledger.js';
import { ConcurrencyConflict } from '../../core/domain/errors.js';
import type { UserId } from '../../core/domain/model/common.js';
import type { Ledger, LedgerEntryFilter, LedgerPosting } from '../../core/ports/ledger.port.js';
import type { Page, PageRequest } from '../../core/ports/page.js';
import { outboundCopies, storedCopy } from './frozen-copy.js';
import { inOpenScope, recordUndo } from './memory-scope.js';
import { pageOf } from './paging.js';

/** The books of one user in memory: entries in booking order, each account's balance, each cause's transaction. */
interface UserBooks {
  readonly entries: LedgerEntry[];
  readonly balances: Map<string, bigint>;
  readonly byCause: Map<string, string>;
  readonly entriesByTransaction: Map<string, LedgerEntry[]>;
}

/** Whether the entry matches every given filter (Ledger.entries). */
export function ledgerEntryMatches(entry: LedgerEntry, filter: LedgerEntryFilter): boolean {
  return (filter.from === undefined || entry.occurredAt >= filter.from) && (filter.to === undefined || entry.occurredAt <= filter.to)
    && (filter.address === undefined || entry.account.address === filter.address)
    && (filter.assetSymbol === undefined || entry.account.assetSymbol === filter.assetSymbol)
    && (filter.kind === undefined || entry.account.kind === filter.kind)
    && (filter.causeType === undefined || entry.cause.type === filter.causeType);
}

/**
 * The Ledger port in memory. `post` checks and writes with no `await` in between, so it is atomic on the event loop
 * (which is all the per-account row lock of the durable stores has to give). Nothing outlives the process.
 */
export class MemoryLedger implements Ledger {
  private readonly books = new Map<UserId, UserBooks>();
  /** transactionId -> its cause key, across users (a transaction id is global). */
  private readonly causeOfTransaction = new Map<string, string>();

  async post(transaction: LedgerTransaction): Promise<LedgerPosting> {
    const books = this.booksOf(transaction.userId);
    const cause = ledgerCauseKey(transaction.cause);
    const booked = books.byCause.get(cause);
    if (booked !== undefined) return { created: false, entries: outboundCopies(books.entriesByTransaction.get(booked)!) };
    if (this.causeOfTransaction.has(transaction.transactionId)) throw new ConcurrencyConflict('ledger transaction', transaction.transactionId);
    const { entries, balances } = bookedEntries(transaction, (key) => books.balances.get(key) ?? 0n);
    const stored = entries.map(storedCopy);
    if (inOpenScope()) recordUndo(this.undoOf(transaction, books, cause, balances.keys()));
    books.entries.push(...stored);
    books.entriesByTransaction.set(transaction.transactionId, stored);
    books.byCause.set(cause, transaction.transactionId);
    this.causeOfTransaction.set(transaction.transactionId, `${transaction.userId}|${cause}`);
    for (const [key, balance] of balances) books.balances.set(key, balance);
    return { created: true, entries: outboundCopies(stored) };
  }

  async entries(userId: UserId, filter: LedgerEntryFilter, page: PageRequest): Promise<Page<LedgerEntry>> {
    return pageOf((this.books.get(userId)?.entries ?? []).filter((e) => ledgerEntryMatches(e, filter)), page);
  }

  async balancesAt(userId: UserId, at: number): Promise<LedgerBalance[]> {
    const last = new Map<string, LedgerEntry>();
    for (const entry of this.books.get(userId)?.entries ?? []) {
      if (entry.occurredAt > at) continue;
      const key = ledgerAccountKey(entry.account);
      // Entries are in booking order: a later one wins unless it happened earlier.
      if ((last.get(key)?.occurredAt ?? -Infinity) <= entry.occurredAt) last.set(key, entry);
    }
    return [...last.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([, entry]) => ({ account: { ...entry.account }, balance: entry.balanceAfter }));
  }

  async usersWithBooks(after: UserId | null, limit: number): Promise<UserId[]> {
    return [...this.books.entries()].filter(([userId, books]) => books.entries.length > 0 && (after === null || userId > after))
      .map(([userId]) => userId).sort((a, b) => a - b).slice(0, limit);
  }

  /** What takes a posting about to be booked back, when the atomic scope it is made in throws (memory-scope.ts). */
  private undoOf(transaction: LedgerTransaction, books: UserBooks, cause: string, keys: Iterable<string>): () => void {
    const length = books.entries.length;
    const balancesBefore = [...keys].map((key) => [key, books.balances.get(key)] as const);
    const fresh = length === 0 && books.byCause.size === 0;
    return () => {
      books.entries.length = length;
      books.entriesByTransaction.delete(transaction.transactionId);
      books.byCause.delete(cause);
      this.causeOfTransaction.delete(transaction.transactionId);
      for (const [key, balance] of balancesBefore) {
        if (balance === undefined) books.balances.delete(key);
        else books.balances.set(key, balance);
      }
      if (fresh && this.books.get(transaction.userId) === books) this.books.delete(transaction.userId);
    };
  }

  private booksOf(userId: UserId): UserBooks {
    let books = this.books.get(userId);
    if (books === undefined) {
      books = { entries: [], balances: new Map(), byCause: new Map(), entriesByTransaction: new Map() };
      this.books.set(userId, books);
    }
    return books;
  }
}
