import type pg from 'pg';
import { ConcurrencyConflict } from '../../core/domain/errors.js';
import type { ServiceCode, Subscription, UserId } from '../../core/domain/model/index.js';
import type { SubscriptionRepository } from '../../core/ports/subscription-repository.port.js';
import {
  fromStoredSubscription, subscriptionKey, toStoredSubscription, type StoredSubscription,
} from '../records/account-record.js';
import { guarded, insertOnce, versionedReplace, type Row } from './pg-support.js';

/** Record -> row of `subscriptions`. */
function toRow(record: StoredSubscription): Row & { version: number } {
  return {
    subscription_key: record.id, user_id: record.userId, service_code: record.serviceCode, plan_code: record.planCode,
    status: record.status, max_sub_addresses: record.maxSubAddresses, activated_at: record.activatedAt, version: record.version,
  };
}

/** Row of `subscriptions` -> record. */
function fromRow(row: Row): StoredSubscription {
  return {
    id: row['subscription_key'] as string, userId: row['user_id'] as number, serviceCode: row['service_code'] as ServiceCode,
    planCode: row['plan_code'] as string, status: row['status'] as StoredSubscription['status'],
    maxSubAddresses: row['max_sub_addresses'] as number | null, activatedAt: row['activated_at'] as number,
    version: row['version'] as number,
  };
}

/** One subscription per (user, service), the primary key, saved with optimistic versions. */
export class PgSubscriptionRepository implements SubscriptionRepository {
  constructor(private readonly pool: pg.Pool) {}

  find(userId: UserId, serviceCode: ServiceCode): Promise<Subscription | null> {
    return guarded('subscription read', async () => {
      const { rows } = await this.pool.query('SELECT * FROM subscriptions WHERE subscription_key = $1', [subscriptionKey(userId, serviceCode)]);
      return rows.length === 0 ? null : fromStoredSubscription(fromRow(rows[0] as Row));
    });
  }

  save(subscription: Subscription): Promise<void> {
    return guarded('subscription save', async () => {
      const row = toRow(toStoredSubscription(subscription));
      const written = subscription.version === 1
        ? await insertOnce(this.pool, 'subscriptions', row, '(subscription_key)')
        : await versionedReplace(this.pool, 'subscriptions', { column: 'subscription_key', value: row.subscription_key }, row);
      if (!written) throw new ConcurrencyConflict('subscription', row.subscription_key as string);
    });
  }
}
