import { ConcurrencyConflict } from '../../core/domain/errors.js';
import { type DeliveryStatus, type UserId, type WebhookDelivery } from '../../core/domain/model/index.js';
import type { Page, PageRequest } from '../../core/ports/page.js';
import type { DeliveryFilter, WebhookDeliveryRepository } from '../../core/ports/webhook-delivery-repository.port.js';
import { outboundCopies, outboundCopy, storedCopy } from './frozen-copy.js';
import type { MemoryStore } from './memory-store.js';
import { pageOf, pageOfKeys } from './paging.js';

/** Webhook deliveries, one per event; claims lease due deliveries (from the table's due index) in one synchronous step. */
export class MemoryWebhookDeliveryRepository implements WebhookDeliveryRepository {
  constructor(private readonly store: MemoryStore) {}

  async insert(delivery: WebhookDelivery): Promise<boolean> {
    if (this.store.deliveries.byEvent.keys(delivery.eventId).size > 0) return false;
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
    const due = this.store.deliveries.due.queue.first(now, Math.max(0, limit)).map((d) => this.store.deliveries.get(d.key)!);
    const claimed = due.map((d): WebhookDelivery => ({ ...d, lease: { owner, expiresAt: now + leaseMs }, version: d.version + 1 }));
    for (const delivery of claimed) this.store.deliveries.set(delivery.deliveryId, storedCopy(delivery));
    return outboundCopies(claimed);
  }

  async listByUser(userId: UserId, page: PageRequest, filter: DeliveryFilter = {}): Promise<Page<WebhookDelivery>> {
    const byUser = this.store.deliveries.byUser;
    if (filter.status === undefined) return pageOfKeys(this.store.deliveries, byUser.slice(userId, page.offset, page.limit));
    const mine = byUser.keys(userId).map((id) => this.store.deliveries.get(id)!).filter((d) => d.status === filter.status);
    return pageOf(mine, page);
  }

  async listByStatus(status: DeliveryStatus, page: PageRequest): Promise<Page<WebhookDelivery>> {
    // listByUser's newest first: createdAt, then the later inserted (the table's insertion sequence) first.
    const table = this.store.deliveries;
    const all = [...table.values()].filter((d) => d.status === status);
    return pageOf(all.sort((a, b) => b.createdAt - a.createdAt || table.seqOf(b.deliveryId) - table.seqOf(a.deliveryId)), page);
  }
}
