import { ConcurrencyConflict } from '../../core/domain/errors.js';
import { DELIVERY_STATUS, type UserId, type WebhookDelivery } from '../../core/domain/model/index.js';
import type { Page, PageRequest } from '../../core/ports/page.js';
import type { DeliveryFilter, WebhookDeliveryRepository } from '../../core/ports/webhook-delivery-repository.port.js';
import { outboundCopies, outboundCopy, storedCopy } from './frozen-copy.js';
import type { MemoryStore } from './memory-store.js';
import { newestFirst, pageOf } from './paging.js';

function isClaimable(delivery: WebhookDelivery, now: number): boolean {
  const waiting = delivery.status === DELIVERY_STATUS.PENDING || delivery.status === DELIVERY_STATUS.RETRYING;
  const due = delivery.nextAttemptAt !== null && delivery.nextAttemptAt <= now;
  const free = delivery.lease === null || delivery.lease.expiresAt <= now;
  return waiting && due && free;
}

/** Webhook deliveries, one per event; claims lease due deliveries in one synchronous step. */
export class MemoryWebhookDeliveryRepository implements WebhookDeliveryRepository {
  constructor(private readonly store: MemoryStore) {}

  async insert(delivery: WebhookDelivery): Promise<boolean> {
    for (const stored of this.store.deliveries.values()) {
      if (stored.eventId === delivery.eventId) return false;
    }
    if (this.store.deliveries.has(delivery.deliveryId)) throw new ConcurrencyConflict('webhook delivery', delivery.deliveryId);
    this.store.deliveries.set(delivery.deliveryId, storedCopy(delivery));
    return true;
  }

  async get(deliveryId: string): Promise<WebhookDelivery | null> {
    const delivery = this.store.deliveries.get(deliveryId);
    return delivery === undefined ? null : outboundCopy(delivery);
  }

  async update(delivery: WebhookDelivery): Promise<void> {
    const stored = this.store.deliveries.get(delivery.deliveryId);
    if (stored === undefined || stored.version !== delivery.version - 1) {
      throw new ConcurrencyConflict('webhook delivery', delivery.deliveryId);
    }
    this.store.deliveries.set(delivery.deliveryId, storedCopy(delivery));
  }

  async claimDue(now: number, owner: string, leaseMs: number, limit: number): Promise<WebhookDelivery[]> {
    const due = [...this.store.deliveries.values()]
      .filter((d) => isClaimable(d, now))
      .sort((a, b) => (a.nextAttemptAt ?? 0) - (b.nextAttemptAt ?? 0))
      .slice(0, Math.max(0, limit));
    const claimed = due.map((d): WebhookDelivery => ({ ...d, lease: { owner, expiresAt: now + leaseMs }, version: d.version + 1 }));
    for (const delivery of claimed) this.store.deliveries.set(delivery.deliveryId, storedCopy(delivery));
    return outboundCopies(claimed);
  }

  async listByUser(userId: UserId, page: PageRequest, filter: DeliveryFilter = {}): Promise<Page<WebhookDelivery>> {
    const mine = [...this.store.deliveries.values()]
      .filter((d) => d.userId === userId && (filter.status === undefined || d.status === filter.status));
    return pageOf(newestFirst(mine), page);
  }
}
