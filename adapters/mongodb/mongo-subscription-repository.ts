import type { Db } from 'mongodb';
import type { ServiceCode, Subscription, UserId } from '../../core/domain/model/index.js';
import type { SubscriptionRepository } from '../../core/ports/subscription-repository.port.js';
import { SUBSCRIPTION_RECORD, subscriptionKey } from '../records/account-record.js';
import { guarded } from './mongo-support.js';
import { MongoTable, type MongoTableOf } from './mongo-table.js';

/** One subscription per (user, service) — the `_id` — saved with optimistic versions. */
export class MongoSubscriptionRepository implements SubscriptionRepository {
  private readonly subscriptions: MongoTableOf<typeof SUBSCRIPTION_RECORD>;

  constructor(db: Db) {
    this.subscriptions = new MongoTable(db, SUBSCRIPTION_RECORD);
  }

  find(userId: UserId, serviceCode: ServiceCode): Promise<Subscription | null> {
    return guarded('subscription read', () => this.subscriptions.get(subscriptionKey(userId, serviceCode)));
  }

  save(subscription: Subscription): Promise<void> {
    return guarded('subscription save', () => this.subscriptions.save(subscription));
  }
}
