import { ConcurrencyConflict } from '../../core/domain/errors.js';
import type { ServiceCode, Subscription, UserId } from '../../core/domain/model/index.js';
import type { SubscriptionRepository } from '../../core/ports/subscription-repository.port.js';
import { outboundCopy, storedCopy } from './frozen-copy.js';
import type { MemoryStore } from './memory-store.js';

function keyOf(userId: UserId, serviceCode: ServiceCode): string {
  return `${userId}:${serviceCode}`;
}

/** One subscription per (user, service), saved with optimistic versions. */
export class MemorySubscriptionRepository implements SubscriptionRepository {
  constructor(private readonly store: MemoryStore) {}

  async find(userId: UserId, serviceCode: ServiceCode): Promise<Subscription | null> {
    const subscription = this.store.subscriptions.get(keyOf(userId, serviceCode));
    return subscription === undefined ? null : outboundCopy(subscription);
  }

  async save(subscription: Subscription): Promise<void> {
    const key = keyOf(subscription.userId, subscription.serviceCode);
    const storedVersion = this.store.subscriptions.get(key)?.version ?? 0;
    if (storedVersion !== subscription.version - 1) throw new ConcurrencyConflict('subscription', key);
    this.store.subscriptions.set(key, storedCopy(subscription));
  }
}
