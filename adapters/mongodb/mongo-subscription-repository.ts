import type { Collection, Db } from 'mongodb';
import { ConcurrencyConflict } from '../../core/domain/errors.js';
import type { ServiceCode, Subscription, UserId } from '../../core/domain/model/index.js';
import type { SubscriptionRepository } from '../../core/ports/subscription-repository.port.js';
import { subscriptionKey } from '../records/account-record.js';
import { COLLECTIONS } from './collections.js';
import { fromSubscriptionDocument, toSubscriptionDocument, type SubscriptionDocument } from './mongo-documents.js';
import { guarded, isDuplicateKey } from './mongo-support.js';

/** One subscription per (user, service) — the `_id` — saved with optimistic versions. */
export class MongoSubscriptionRepository implements SubscriptionRepository {
  private readonly subscriptions: Collection<SubscriptionDocument>;

  constructor(db: Db) {
    this.subscriptions = db.collection<SubscriptionDocument>(COLLECTIONS.subscriptions);
  }

  find(userId: UserId, serviceCode: ServiceCode): Promise<Subscription | null> {
    return guarded('subscription read', async () => {
      const doc = await this.subscriptions.findOne({ _id: subscriptionKey(userId, serviceCode) });
      return doc === null ? null : fromSubscriptionDocument(doc);
    });
  }

  save(subscription: Subscription): Promise<void> {
    return guarded('subscription save', async () => {
      const doc = toSubscriptionDocument(subscription);
      if (subscription.version === 1) {
        try {
          await this.subscriptions.insertOne(doc);
          return;
        } catch (error) {
          if (!isDuplicateKey(error)) throw error;
          throw new ConcurrencyConflict('subscription', doc._id);
        }
      }
      const { _id, ...fields } = doc;
      const result = await this.subscriptions.updateOne({ _id, version: subscription.version - 1 }, { $set: fields });
      if (result.matchedCount !== 1) throw new ConcurrencyConflict('subscription', _id);
    });
  }
}
