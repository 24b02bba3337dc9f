import type { Collection, Db } from 'mongodb';
import type { BalanceSnapshot } from '../../core/domain/model/index.js';
import type { BalanceRepository } from '../../core/ports/balance-repository.port.js';
import { COLLECTIONS } from './collections.js';
import { guarded, isDuplicateKey } from './mongo-support.js';
import { fromBalanceDocument, toBalanceDocument, type BalanceDocument } from './wallet-document.js';

/** Cached balance snapshots per address; an older snapshot never replaces a newer one. */
export class MongoBalanceRepository implements BalanceRepository {
  private readonly balances: Collection<BalanceDocument>;

  constructor(db: Db) {
    this.balances = db.collection<BalanceDocument>(COLLECTIONS.balances);
  }

  get(address: string): Promise<BalanceSnapshot | null> {
    return guarded('balance read', async () => {
      const doc = await this.balances.findOne({ _id: address });
      return doc === null ? null : fromBalanceDocument(doc);
    });
  }

  put(snapshot: BalanceSnapshot): Promise<void> {
    return guarded('balance write', async () => {
      const doc = toBalanceDocument(snapshot);
      try {
        // One conditional upsert: it replaces a snapshot that is not newer, or inserts when there is none. When a
        // newer one is stored the filter misses and the upsert collides on _id — exactly "keep the newer one".
        await this.balances.replaceOne({ _id: doc._id, updatedAt: { $lte: doc.updatedAt } }, doc, { upsert: true });
      } catch (error) {
        if (!isDuplicateKey(error)) throw error;
      }
    });
  }
}
