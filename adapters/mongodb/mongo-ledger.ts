import type { ClientSession, Collection, Db, Filter, MongoClient } from 'mongodb';
import { ConcurrencyConflict } from '../../core/domain/errors.js';
import {
  assertBookable, bookedEntries, ledgerAccountKey, type LedgerBalance, type LedgerEntry, type LedgerTransaction,
} from '../../core/domain/ledger.js';
import type { UserId } from '../../core/domain/model/common.js';
import type { Ledger, LedgerEntryFilter, LedgerPosting } from '../../core/ports/ledger.port.js';
import type { Page, PageRequest } from '../../core/ports/page.js';
import { fromStoredLedgerEntry, toStoredLedgerEntry, type StoredLedgerEntry } from '../records/ledger-record.js';
import { COLLECTIONS } from './collections.js';
import { decodeMoney, encodeMoney, fromMongoDocument, guarded, isDuplicateKey, pageFrom, refuseBigints, toMongoDocument, type MongoDocument } from './mongo-support.js';
import { inTransaction } from './mongo-transaction.js';

type EntryDocument = MongoDocument<StoredLedgerEntry>;
/** `_id` is the transaction id; unique per (userId, causeType, causeId) (mongo-indexes.ts). */
interface TransactionDocument { _id: string; userId: number; causeType: string; causeId: string }
/** `_id` is `${userId}|${accountKey}`: the account's running balance, a decimal string. */
interface AccountDocument { _id: string; balance: string; version: number }
/** `_id` is `${userId}|`: the user's booking counter (`seq` of the next entry). */
interface CounterDocument { _id: string; seq: number }

const byKey = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The Ledger port on MongoDB, through the shared record codec (records/ledger-record.ts). A post is one multi-document
 * transaction (or joins UnitOfWork.atomically's): the cause's document (a unique index books a cause once), the
 * user's booking counter and each account's balance document are written in it, so two concurrent posts of one user
 * write-conflict and the driver retries the later one on the committed state: balances after follow the booking
 * order, which `seq` records. Needs a replica set; on a standalone server (no transactions) a crash between the
 * writes of a post can leave it half written.
 */
export class MongoLedger implements Ledger {
  private readonly transactions: Collection<TransactionDocument>;
  private readonly accounts: Collection<AccountDocument>;
  private readonly counters: Collection<CounterDocument>;
  private readonly entryDocs: Collection<EntryDocument>;

  constructor(db: Db, private readonly client: MongoClient | null) {
    this.transactions = db.collection<TransactionDocument>(COLLECTIONS.ledgerTransactions);
    this.accounts = db.collection<AccountDocument>(COLLECTIONS.ledgerAccounts);
    this.counters = db.collection<CounterDocument>(COLLECTIONS.ledgerAccounts);
    this.entryDocs = db.collection<EntryDocument>(COLLECTIONS.ledgerEntries);
  }

  async post(transaction: LedgerTransaction): Promise<LedgerPosting> {
    assertBookable(transaction);
    return guarded('ledger post', async () => {
      const booked = await this.bookedOf(transaction);
      if (booked !== null) return { created: false, entries: booked };
      try {
        return await inTransaction(this.client, (session) => this.book(transaction, session));
      } catch (error) {
        if (!isDuplicateKey(error)) throw error;
      }
      // A racing post of the same cause committed first; otherwise the transaction id is another cause's.
      const raced = await this.bookedOf(transaction);
      if (raced === null) throw new ConcurrencyConflict('ledger transaction', transaction.transactionId);
      return { created: false, entries: raced };
    });
  }

  entries(userId: UserId, filter: LedgerEntryFilter, page: PageRequest): Promise<Page<LedgerEntry>> {
    return guarded('ledger entries', () => {
      const query: Filter<EntryDocument> = { userId };
      if (filter.from !== undefined || filter.to !== undefined) {
        query.occurredAt = { ...(filter.from === undefined ? {} : { $gte: filter.from }), ...(filter.to === undefined ? {} : { $lte: filter.to }) };
      }
      if (filter.address !== undefined) query.address = filter.address;
      if (filter.assetSymbol !== undefined) query.assetSymbol = filter.assetSymbol;
      if (filter.kind !== undefined) query.kind = filter.kind;
      if (filter.causeType !== undefined) query.causeType = filter.causeType;
      return pageFrom(
        () => this.entryDocs.countDocuments(query),
        async (skip, limit) => (await this.entryDocs.find(query).sort({ seq: 1 }).skip(skip).limit(limit).toArray()).map(fromDocument),
        page,
      );
    });
  }

  balancesAt(userId: UserId, at: number): Promise<LedgerBalance[]> {
    return guarded('ledger balances', async () => {
      const last = await this.entryDocs.aggregate<{ _id: string; doc: EntryDocument }>([
        { $match: { userId, occurredAt: { $lte: at } } },
        { $sort: { accountKey: 1, occurredAt: -1, seq: -1 } },
        { $group: { _id: '$accountKey', doc: { $first: '$$ROOT' } } },
      ]).toArray();
      return last.map((g) => fromDocument(g.doc)).sort((a, b) => byKey(ledgerAccountKey(a.account), ledgerAccountKey(b.account)))
        .map((e) => ({ account: e.account, balance: e.balanceAfter }));
    });
  }

  usersWithBooks(after: UserId | null, limit: number): Promise<UserId[]> {
    return guarded('ledger users', async () => {
      const users = await this.transactions.distinct('userId', after === null ? {} : { userId: { $gt: after } });
      return users.map(Number).sort((a, b) => a - b).slice(0, limit);
    });
  }

  private async book(transaction: LedgerTransaction, session: ClientSession | undefined): Promise<LedgerPosting> {
    const { userId, cause } = transaction;
    await this.transactions.insertOne({ _id: transaction.transactionId, userId, causeType: cause.type, causeId: cause.id }, { session });
    const counter = await this.counters.findOneAndUpdate(
      { _id: `${userId}|` }, { $inc: { seq: transaction.lines.length } }, { upsert: true, returnDocument: 'after', session },
    );
    const firstSeq = counter!.seq - transaction.lines.length;
    const balances = new Map<string, bigint>();
    for (const key of [...new Set(transaction.lines.map((l) => ledgerAccountKey(l.account)))].sort(byKey)) {
      const account = await this.accounts.findOneAndUpdate(
        { _id: `${userId}|${key}` }, { $setOnInsert: { balance: '0' }, $inc: { version: 1 } }, { upsert: true, returnDocument: 'after', session },
      );
      balances.set(key, decodeMoney(account!.balance, 'ledger account balance'));
    }
    const { entries, balances: after } = bookedEntries(transaction, (key) => balances.get(key)!);
    await this.entryDocs.insertMany(entries.map((e, i) => refuseBigints(toMongoDocument(toStoredLedgerEntry(e, firstSeq + i)), 'ledger entry')), { session });
    for (const [key, balance] of after) {
      await this.accounts.updateOne({ _id: `${userId}|${key}` }, { $set: { balance: encodeMoney(balance) } }, { session });
    }
    return { created: true, entries };
  }

  /** The entries of the transaction already booked for this cause, or null. */
  private async bookedOf(transaction: LedgerTransaction): Promise<LedgerEntry[] | null> {
    const stored = await this.transactions.findOne({ userId: transaction.userId, causeType: transaction.cause.type, causeId: transaction.cause.id });
    if (stored === null) return null;
    return (await this.entryDocs.find({ transactionId: stored._id }).sort({ seq: 1 }).toArray()).map(fromDocument);
  }
}

function fromDocument(doc: EntryDocument): LedgerEntry {
  return fromStoredLedgerEntry(fromMongoDocument(doc));
}
