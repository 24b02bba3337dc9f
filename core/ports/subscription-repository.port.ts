import type { ServiceCode, Subscription } from '../domain/model/account.js';
import type { UserId } from '../domain/model/common.js';

export interface SubscriptionRepository {
  /** The user's subscription to the service (active or not), or null. One per (user, service). */
  find(userId: UserId, serviceCode: ServiceCode): Promise<Subscription | null>;
  /**
   * Inserts (version 1, when none exists) or replaces (when stored version is `version - 1`);
   * throws ConcurrencyConflict otherwise.
   */
  save(subscription: Subscription): Promise<void>;
}
