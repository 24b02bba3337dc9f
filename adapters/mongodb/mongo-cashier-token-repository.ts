import type { ClientSession, Collection, Db, Filter, UpdateFilter } from 'mongodb';
import { ConcurrencyConflict, StoreError } from '../../core/domain/errors.js';
import type { CashierToken, PaymentRequestChange, UserId } from '../../core/domain/model/index.js';
import type { CashierSessionSource, CashierTokenRepository } from '../../core/ports/cashier-token-repository.port.js';
import type { Page, PageRequest } from '../../core/ports/page.js';
import { readSessionBySingleReads } from '../../core/application/cashier-session-reads.js';
import { toStoredPaymentRequest } from '../records/cashier-token-record.js';
import type { CashierTokenDocument } from './mongo-documents.js';
import { guarded, insertionStamp, isDuplicateKey } from './mongo-support.js';
import { MongoCollectionTaskRepository } from './mongo-collection-task-repository.js';
import { NEWEST_FIRST } from './mongo-command-repository.js';
import { MongoDepositRepository } from './mongo-deposit-repository.js';
import { MongoDeveloperConfigRepository } from './mongo-developer-config-repository.js';
import { MongoWalletRepository } from './mongo-wallet-repository.js';
import { CASHIER_TOKEN_RECORD } from '../records/cashier-token-record.js';
import { MongoTable, replaceOf, toDocument, type MongoTableOf } from './mongo-table.js';

/**
 * ChangeSet.payments on MongoDB: sets only `payment` and `version`, when the stored version is `version - 1` (the
 * sliding expiresAt is left alone). False on a version miss.
 */
export async function replacePayment(
  tokens: Collection<CashierTokenDocument>, change: PaymentRequestChange, session?: ClientSession,
): Promise<boolean> {
  const result = await tokens.updateOne(
    { _id: change.tokenNo, version: change.version - 1 },
    { $set: { payment: toStoredPaymentRequest(change.payment), version: change.version } }, { session },
  );
  return result.matchedCount === 1;
}

/** Each round of an insert either ends or evicted one expired holder; more rounds than this means a livelock. */
const MAX_INSERT_ROUNDS = 16;

/**
 * Cashier tokens. "One active, unexpired token per address" is a unique index on `activeSlot` (partial: present
 * only on a token that may still be active). A plain index cannot know about time, so an insert that collides reads
 * the holder: unexpired and active → 'active-exists'; expired → it evicts the holder from the slot with a conditional
 * update (only if still the holder and still expired at `now`) and tries again. Racing inserts all end in exactly one
 * 'created', because the slot itself is only ever taken by an insert.
 */
export class MongoCashierTokenRepository implements CashierTokenRepository {
  private readonly table: MongoTableOf<typeof CASHIER_TOKEN_RECORD>;
  private readonly tokens: Collection<CashierTokenDocument>;

  constructor(private readonly db: Db) {
    this.table = new MongoTable(db, CASHIER_TOKEN_RECORD);
    this.tokens = this.table.typed();
  }

  /** The single reads, sent together after the slide (a collection per record; no join worth its cost here). */
  readSession(token: CashierToken, expiresAt: number): Promise<CashierSessionSource | null> {
    return readSessionBySingleReads({
      cashierTokens: this, wallets: new MongoWalletRepository(this.db, null), tasks: new MongoCollectionTaskRepository(this.db),
      developerConfigs: new MongoDeveloperConfigRepository(this.db), deposits: new MongoDepositRepository(this.db),
    }, token, expiresAt);
  }

  insert(token: CashierToken, now: number): Promise<'created' | 'active-exists'> {
    return guarded('cashier token insert', async () => {
      const doc: CashierTokenDocument = { ...toDocument(CASHIER_TOKEN_RECORD, token), insertedSeq: insertionStamp() };
      if (token.status === 'active') doc.activeSlot = token.address;
      for (let round = 0; round < MAX_INSERT_ROUNDS; round++) {
        try {
          await this.tokens.insertOne(doc);
          return 'created';
        } catch (error) {
          if (!isDuplicateKey(error)) throw error;
          if ((await this.tokens.countDocuments({ $or: [{ _id: doc._id }, { tokenHash: doc.tokenHash }] })) > 0) {
            throw new ConcurrencyConflict('cashier token', token.tokenNo);
          }
        }
        const holder = await this.tokens.findOne({ activeSlot: token.address });
        if (holder === null) continue; // the holder was disabled meanwhile: the slot is free, try again
        if (holder.status === 'active' && holder.expiresAt > now) return 'active-exists';
        await this.tokens.updateOne(
          { _id: holder._id, activeSlot: token.address, $or: [{ status: 'disabled' }, { expiresAt: { $lte: now } }] },
          { $unset: { activeSlot: '' } },
        );
      }
      throw new StoreError('SERVICE-UNAVAILABLE', 'cashier token insert kept colliding; retry later', { transient: true });
    });
  }

  findByTokenHash(tokenHash: string): Promise<CashierToken | null> {
    return guarded('cashier token read', () => this.table.first({ tokenHash }));
  }

  findByTokenNo(tokenNo: string): Promise<CashierToken | null> {
    return guarded('cashier token read', () => this.table.get(tokenNo));
  }

  listByUser(userId: UserId, page: PageRequest): Promise<Page<CashierToken>> {
    return guarded('cashier token list', () => this.table.page({ userId }, NEWEST_FIRST, page));
  }

  /** Walks the `by_reference` index (mongo-indexes.ts). */
  listByReference(userId: UserId, reference: string, page: PageRequest): Promise<Page<CashierToken>> {
    const query = { userId, 'payment.reference': reference };
    return guarded('cashier token list', () => this.table.page(query, NEWEST_FIRST, page));
  }

  findActiveByAddress(address: string, now: number): Promise<CashierToken | null> {
    return guarded('cashier token read', () => this.table.first({ address, status: 'active', expiresAt: { $gt: now } }, NEWEST_FIRST));
  }

  update(token: CashierToken): Promise<void> {
    return guarded('cashier token update', async () => {
      const { filter, set } = replaceOf(CASHIER_TOKEN_RECORD, token);
      // A disabled token frees the address's slot in the same write; an active one keeps whatever slot it holds.
      const update = token.status === 'active' ? { $set: set } : { $set: set, $unset: { activeSlot: '' as const } };
      const result = await this.tokens.updateOne(filter as Filter<CashierTokenDocument>, update as UpdateFilter<CashierTokenDocument>);
      if (result.matchedCount !== 1) throw new ConcurrencyConflict('cashier token', token.tokenNo);
    });
  }

  extendExpiry(tokenNo: string, expiresAt: number): Promise<void> {
    return guarded('cashier token extend', async () => {
      // No version bump: sliding the expiry must not make a concurrent disable fail.
      await this.tokens.updateOne({ _id: tokenNo, status: 'active', expiresAt: { $lt: expiresAt } }, { $set: { expiresAt } });
    });
  }

  listWatchedPayments(limit: number): Promise<CashierToken[]> {
    return guarded('cashier token read', async () => (limit <= 0 ? [] : this.table.find({ 'payment.watched': true }, { 'payment.deadline': 1, _id: 1 }, limit)));
  }
}
