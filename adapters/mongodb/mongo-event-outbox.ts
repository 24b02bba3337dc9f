import type { Collection, Db } from 'mongodb';
import type { WebhookEvent } from '../../core/domain/model/index.js';
import type { EventOutbox } from '../../core/ports/event-outbox.port.js';
import { COLLECTIONS } from './collections.js';
import { fromWebhookEventDocument, toWebhookEventDocument, type WebhookEventDocument } from './mongo-documents.js';
import { guarded, insertionStamp } from './mongo-support.js';

/** The document MongoUnitOfWork appends; stamped so equal occurredAt keeps the order of appending. */
export function eventInsertDocument(event: WebhookEvent): WebhookEventDocument {
  return { ...toWebhookEventDocument(event), insertedSeq: insertionStamp() };
}

/** The outbox (appended only by MongoUnitOfWork, in the transaction of the transition that caused the event). */
export class MongoEventOutbox implements EventOutbox {
  private readonly events: Collection<WebhookEventDocument>;

  constructor(db: Db) {
    this.events = db.collection<WebhookEventDocument>(COLLECTIONS.events);
  }

  listUndispatched(limit: number): Promise<WebhookEvent[]> {
    return guarded('outbox list', async () => {
      if (limit <= 0) return [];
      const docs = await this.events.find({ dispatched: false }).sort({ occurredAt: 1, insertedSeq: 1 }).limit(limit).toArray();
      return docs.map(fromWebhookEventDocument);
    });
  }

  markDispatched(eventId: string): Promise<boolean> {
    return guarded('outbox mark', async () => {
      // The filter is the "first caller" rule: only an update that flips false -> true reports a modification.
      const result = await this.events.updateOne({ _id: eventId, dispatched: false }, { $set: { dispatched: true } });
      return result.modifiedCount === 1;
    });
  }

  getMany(eventIds: readonly string[]): Promise<WebhookEvent[]> {
    return guarded('outbox read', async () => {
      if (eventIds.length === 0) return [];
      const docs = await this.events.find({ _id: { $in: [...new Set(eventIds)] } }).toArray();
      return docs.map(fromWebhookEventDocument);
    });
  }

  get(eventId: string): Promise<WebhookEvent | null> {
    return guarded('outbox read', async () => {
      const doc = await this.events.findOne({ _id: eventId });
      return doc === null ? null : fromWebhookEventDocument(doc);
    });
  }
}
