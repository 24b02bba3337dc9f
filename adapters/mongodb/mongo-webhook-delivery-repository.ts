import type { Collection, Db } from 'mongodb';
import { ConcurrencyConflict } from '../../core/domain/errors.js';
import { DELIVERY_STATUS, type DeliveryStatus, type UserId, type WebhookDelivery } from '../../core/domain/model/index.js';
import type { Page, PageRequest } from '../../core/ports/page.js';
import type { DeliveryFilter, WebhookDeliveryRepository } from '../../core/ports/webhook-delivery-repository.port.js';
import { WEBHOOK_DELIVERY_RECORD } from '../records/webhook-record.js';
import type { WebhookDeliveryDocument } from './mongo-documents.js';
import { guarded, insertionStamp, isDuplicateKey } from './mongo-support.js';
import { MongoTable, type MongoTableOf } from './mongo-table.js';
import { NEWEST_FIRST } from './mongo-command-repository.js';

const WAITING: DeliveryStatus[] = [DELIVERY_STATUS.PENDING, DELIVERY_STATUS.RETRYING];

/**
 * Webhook deliveries; a unique index on `eventId` makes "one delivery per event" a store rule. A claim leases
 * deliveries one findOneAndUpdate at a time (each atomic), so racing dispatchers never share a delivery.
 */
export class MongoWebhookDeliveryRepository implements WebhookDeliveryRepository {
  private readonly table: MongoTableOf<typeof WEBHOOK_DELIVERY_RECORD>;

  constructor(db: Db) {
    this.table = new MongoTable(db, WEBHOOK_DELIVERY_RECORD);
  }

  private get deliveries(): Collection<WebhookDeliveryDocument> {
    return this.table.typed();
  }

  insert(delivery: WebhookDelivery): Promise<boolean> {
    return guarded('webhook delivery insert', async () => {
      try {
        await this.table.insert(delivery, { insertedSeq: insertionStamp() });
        return true;
      } catch (error) {
        if (!isDuplicateKey(error)) throw error;
        // The documented outcome is the event rule; a reused delivery id alone is a caller bug.
        if ((await this.deliveries.countDocuments({ eventId: delivery.eventId })) > 0) return false;
        throw new ConcurrencyConflict('webhook delivery', delivery.deliveryId);
      }
    });
  }

  get(deliveryId: string): Promise<WebhookDelivery | null> {
    return guarded('webhook delivery read', () => this.table.get(deliveryId));
  }

  update(delivery: WebhookDelivery): Promise<void> {
    return guarded('webhook delivery update', async () => {
      if (!(await this.table.replace(delivery))) throw new ConcurrencyConflict('webhook delivery', delivery.deliveryId);
    });
  }

  claimDue(now: number, owner: string, leaseMs: number, limit: number): Promise<WebhookDelivery[]> {
    return guarded('webhook delivery claim', async () => {
      const claimed: WebhookDelivery[] = [];
      while (claimed.length < limit) {
        const doc = await this.deliveries.findOneAndUpdate(
          {
            // A zero-length lease is already expired: never hand the same delivery out twice in one claim.
            _id: { $nin: claimed.map((d) => d.deliveryId) },
            status: { $in: WAITING },
            nextAttemptAt: { $lte: now },
            $or: [{ lease: null }, { 'lease.expiresAt': { $lte: now } }],
          },
          { $set: { lease: { owner, expiresAt: now + leaseMs } }, $inc: { version: 1 } },
          { sort: { nextAttemptAt: 1, insertedSeq: 1 }, returnDocument: 'after' },
        );
        if (doc === null) break;
        claimed.push(this.table.fromDocument(doc));
      }
      return claimed;
    });
  }

  listByUser(userId: UserId, page: PageRequest, filter: DeliveryFilter = {}): Promise<Page<WebhookDelivery>> {
    const query = filter.status === undefined ? { userId } : { userId, status: filter.status };
    return guarded('webhook delivery list', () => this.table.page(query, NEWEST_FIRST, page));
  }

  listByStatus(status: DeliveryStatus, page: PageRequest): Promise<Page<WebhookDelivery>> {
    return guarded('webhook delivery list', () => this.table.page({ status }, NEWEST_FIRST, page));
  }
}
