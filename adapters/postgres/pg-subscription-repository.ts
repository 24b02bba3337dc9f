import type pg from 'pg';
import type { ServiceCode, Subscription, UserId } from '../../core/domain/model/index.js';
import type { SubscriptionRepository } from '../../core/ports/subscription-repository.port.js';
import { SUBSCRIPTION_RECORD, subscriptionKey } from '../records/account-record.js';
import { guarded } from './pg-support.js';
import { PgTable } from './pg-table.js';

/** The `subscriptions` table, from the record's descriptor. */
const SUBSCRIPTIONS = new PgTable(SUBSCRIPTION_RECORD);

/** One subscription per (user, service), the primary key, saved with optimistic versions. */
export class PgSubscriptionRepository implements SubscriptionRepository {
  constructor(private readonly pool: pg.Pool) {}

  find(userId: UserId, serviceCode: ServiceCode): Promise<Subscription | null> {
    return guarded('subscription read', () => SUBSCRIPTIONS.get(this.pool, subscriptionKey(userId, serviceCode)));
  }

  save(subscription: Subscription): Promise<void> {
    return guarded('subscription save', () => SUBSCRIPTIONS.save(this.pool, subscription));
  }
}
