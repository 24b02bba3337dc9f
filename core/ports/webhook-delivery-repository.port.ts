import type { UserId } from '../domain/model/common.js';
import type { DeliveryStatus, WebhookDelivery } from '../domain/model/webhook.js';
import type { Page, PageRequest } from './page.js';

export interface WebhookDeliveryRepository {
  /** Inserts; false when a delivery for the same eventId exists already (one delivery per event). */
  insert(delivery: WebhookDelivery): Promise<boolean>;
  get(deliveryId: string): Promise<WebhookDelivery | null>;
  /** Optimistic replace: stored version must be `delivery.version - 1`, else ConcurrencyConflict. */
  update(delivery: WebhookDelivery): Promise<void>;
  /**
   * Claims up to `limit` deliveries that are PENDING or RETRYING with nextAttemptAt <= now and no live lease,
   * leasing each to `owner` until now + leaseMs (version bumped) — atomically.
   */
  claimDue(now: number, owner: string, leaseMs: number, limit: number): Promise<WebhookDelivery[]>;
  /** The user's deliveries, newest first; `filter.status` keeps only those in that status (total counts them only). */
  listByUser(userId: UserId, page: PageRequest, filter?: DeliveryFilter): Promise<Page<WebhookDelivery>>;
  /**
   * Every user's deliveries in `status`, newest first as listByUser orders them (createdAt, then the later inserted
   * first), one page with the total: the operator console's DEAD deliveries across accounts (issue #38 item 2).
   */
  listByStatus(status: DeliveryStatus, page: PageRequest): Promise<Page<WebhookDelivery>>;
}

/** What the delivery log may be narrowed to. */
export interface DeliveryFilter {
  readonly status?: DeliveryStatus;
}
