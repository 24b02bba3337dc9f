import type { Collection, Db, MongoClient } from 'mongodb';
import { ConcurrencyConflict } from '../../core/domain/errors.js';
import { ADDRESS_TYPE, type AddressType, type UserId, type WalletAddress } from '../../core/domain/model/index.js';
import type { Page, PageRequest } from '../../core/ports/page.js';
import type { WalletInsertOutcome, WalletRepository } from '../../core/ports/wallet-repository.port.js';
import { COLLECTIONS } from './collections.js';
import { walletQuotaKey, type WalletDocument, type WalletQuotaDocument } from './mongo-documents.js';
import { guarded, isDuplicateKey, storeUnavailable } from './mongo-support.js';
import { inTransaction } from './mongo-transaction.js';
import { WALLET_RECORD } from '../records/wallet-record.js';
import { MongoTable, toDocument, type MongoTableOf } from './mongo-table.js';

/**
 * Wallet addresses. "One main address per (user, network)" is a partial unique index; the sub-address quota is a
 * counter document incremented in the same transaction as the insert: concurrent inserts for one (user, network)
 * write the same counter, so the server serialises them (write conflict, retried) and each sees the others' count.
 * `client` null means a standalone server without transactions: see insertSubReserving.
 */
export class MongoWalletRepository implements WalletRepository {
  private readonly table: MongoTableOf<typeof WALLET_RECORD>;
  private readonly wallets: Collection<WalletDocument>;
  private readonly quotas: Collection<WalletQuotaDocument>;

  constructor(db: Db, private readonly client: MongoClient | null) {
    this.table = new MongoTable(db, WALLET_RECORD);
    this.wallets = this.table.typed();
    this.quotas = db.collection<WalletQuotaDocument>(COLLECTIONS.walletQuotas);
  }

  insert(wallet: WalletAddress, limits: { readonly maxSubAddresses: number }): Promise<WalletInsertOutcome> {
    return guarded('wallet insert', async () => {
      const doc = toDocument(WALLET_RECORD, wallet);
      try {
        if (wallet.addressType === ADDRESS_TYPE.MAIN) {
          await this.wallets.insertOne(doc);
          return 'created';
        }
        const key = walletQuotaKey(wallet.userId, wallet.networkCode);
        await this.createQuotaCounter(key);
        return this.client === null ? await this.insertSubReserving(doc, key, limits.maxSubAddresses)
          : await this.insertSubInTransaction(this.client, doc, key, limits.maxSubAddresses);
      } catch (error) {
        if (!isDuplicateKey(error)) throw error;
        return this.classifyDuplicate(wallet, error);
      }
    });
  }

  /**
   * The counter exists before any transaction touches it: two transactions that both upserted it would collide on
   * its `_id` (a duplicate key, not a retried write conflict).
   */
  private async createQuotaCounter(key: string): Promise<void> {
    try {
      await this.quotas.updateOne({ _id: key }, { $setOnInsert: { subs: 0 } }, { upsert: true });
    } catch (error) {
      if (!isDuplicateKey(error)) throw error;
    }
  }

  private insertSubInTransaction(client: MongoClient, doc: WalletDocument, key: string, max: number): Promise<WalletInsertOutcome> {
    return inTransaction<WalletInsertOutcome, WalletInsertOutcome>(client, async (session, abort) => {
      // Same precedence as the memory adapter: a known address wins over the quota verdict.
      if ((await this.wallets.findOne({ address: doc.address }, { session })) !== null) abort('address-exists');
      const counter = await this.quotas.findOneAndUpdate({ _id: key }, { $inc: { subs: 1 } }, { returnDocument: 'after', session });
      if (max !== -1 && (counter?.subs ?? Number.POSITIVE_INFINITY) > max) abort('quota-exceeded');
      await this.wallets.insertOne(doc, { session });
      return 'created';
    });
  }

  /**
   * Standalone server (no transactions): reserve a slot by incrementing the counter, give it back when the quota
   * is exceeded or the insert fails. Racing inserts never exceed the quota; one may see a slot that a failing
   * insert holds for a moment as taken (a spurious quota-exceeded), which is why production needs a replica set.
   */
  private async insertSubReserving(doc: WalletDocument, key: string, max: number): Promise<WalletInsertOutcome> {
    if ((await this.wallets.findOne({ address: doc.address })) !== null) return 'address-exists';
    const counter = await this.quotas.findOneAndUpdate({ _id: key }, { $inc: { subs: 1 } }, { returnDocument: 'after' });
    const release = () => this.quotas.updateOne({ _id: key }, { $inc: { subs: -1 } });
    if (max !== -1 && (counter?.subs ?? Number.POSITIVE_INFINITY) > max) {
      await release();
      return 'quota-exceeded';
    }
    try {
      await this.wallets.insertOne(doc);
      return 'created';
    } catch (error) {
      await release();
      throw error;
    }
  }

  findByAddress(address: string): Promise<WalletAddress | null> {
    return guarded('wallet read', () => this.table.first({ address }));
  }

  findById(id: number): Promise<WalletAddress | null> {
    return guarded('wallet read', () => this.table.get(id));
  }

  findMain(userId: UserId, networkCode: string): Promise<WalletAddress | null> {
    return guarded('wallet read', () => this.table.first({ userId, networkCode, addressType: ADDRESS_TYPE.MAIN }));
  }

  countSubs(userId: UserId, networkCode: string): Promise<number> {
    return guarded('wallet count', () =>
      this.wallets.countDocuments({ userId, networkCode: networkCode as WalletDocument['networkCode'], addressType: ADDRESS_TYPE.SUB }));
  }

  listByUser(userId: UserId, filter: { readonly addressType?: AddressType }, page: PageRequest): Promise<Page<WalletAddress>> {
    return guarded('wallet list', () => {
      const query = filter.addressType === undefined ? { userId } : { userId, addressType: filter.addressType };
      return this.table.page(query, { _id: 1 }, page);
    });
  }

  findManaged(addresses: readonly string[]): Promise<WalletAddress[]> {
    return guarded('wallet read', async () => {
      const unique = [...new Set(addresses)];
      if (unique.length === 0) return [];
      const byAddress = new Map((await this.table.find({ address: { $in: unique } })).map((wallet) => [wallet.address, wallet]));
      // In the order asked, like the memory adapter.
      return unique.flatMap((address) => byAddress.get(address) ?? []);
    });
  }

  /** Which rule a unique-index violation stands for; reads settle what the error's key pattern leaves open. */
  private async classifyDuplicate(wallet: WalletAddress, error: unknown): Promise<WalletInsertOutcome> {
    if (isDuplicateKey(error, 'address') || (await this.wallets.countDocuments({ address: wallet.address })) > 0) {
      return 'address-exists';
    }
    if ((await this.wallets.countDocuments({ _id: wallet.id })) > 0) throw new ConcurrencyConflict('wallet address', String(wallet.id));
    if (wallet.addressType === ADDRESS_TYPE.MAIN && (await this.findMain(wallet.userId, wallet.networkCode)) !== null) {
      return 'main-exists';
    }
    throw storeUnavailable('wallet insert', error);
  }
}
