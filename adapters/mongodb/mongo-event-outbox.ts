import type { Db } from 'mongodb';
import type { WebhookEvent } from '../../core/domain/model/index.js';
import type { EventOutbox } from '../../core/ports/event-outbox.port.js';
import { WEBHOOK_EVENT_RECORD } from '../records/webhook-record.js';
import type { WebhookEventDocument } from './mongo-documents.js';
import { guarded, insertionStamp } from './mongo-support.js';
import { MongoTable, toDocument, type MongoTableOf } from './mongo-table.js';

/** The document MongoUnitOfWork appends; stamped so equal occurredAt keeps the order of appending. */
export function eventInsertDocument(event: WebhookEvent): WebhookEventDocument {
  return { ...toDocument(WEBHOOK_EVENT_RECORD, event), insertedSeq: insertionStamp() };
}

/** The outbox (appended only by MongoUnitOfWork, in the transaction of the transition that caused the event). */
export class MongoEventOutbox implements EventOutbox {
  private readonly events: MongoTableOf<typeof WEBHOOK_EVENT_RECORD>;

  constructor(db: Db) {
    this.events = new MongoTable(db, WEBHOOK_EVENT_RECORD);
  }

  listUndispatched(limit: number): Promise<WebhookEvent[]> {
    return guarded('outbox list', async () => (limit <= 0 ? [] : this.events.find({ dispatched: false }, { occurredAt: 1, insertedSeq: 1 }, limit)));
  }

  markDispatched(eventId: string): Promise<boolean> {
    return guarded('outbox mark', async () => {
      // The filter is the "first caller" rule: only an update that flips false -> true reports a modification.
      const result = await this.events.collection.updateOne({ _id: eventId, dispatched: false }, { $set: { dispatched: true } });
      return result.modifiedCount === 1;
    });
  }

  getMany(eventIds: readonly string[]): Promise<WebhookEvent[]> {
    return guarded('outbox read', async () => (eventIds.length === 0 ? [] : this.events.find({ _id: { $in: [...new Set(eventIds)] } })));
  }

  get(eventId: string): Promise<WebhookEvent | null> {
    return guarded('outbox read', () => this.events.get(eventId));
  }
}
