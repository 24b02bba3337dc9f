import type pg from 'pg';
import type { WebhookEvent } from '../../core/domain/model/webhook.js';
import type { EventOutbox } from '../../core/ports/event-outbox.port.js';
import { WEBHOOK_EVENT_RECORD } from '../records/webhook-record.js';
import { guarded, type Queryable, type TogetherWrite } from './pg-support.js';
import { prepared } from './pg-prepared.js';
import { PgTable } from './pg-table.js';

/** The `webhook_events` table, from the record's descriptor. */
const EVENTS = new PgTable(WEBHOOK_EVENT_RECORD);

/** Appends an event (a taken event id is a unique violation for the caller to classify). */
export function insertEvent(q: Queryable, event: WebhookEvent): Promise<void> {
  return EVENTS.insert(prepared(q), event);
}

/** insertEvent as one write of a combined statement (writeTogether). */
export function eventInsertWrite(event: WebhookEvent): TogetherWrite {
  return EVENTS.insertWrite(event);
}

/** The outbox (appended only by PgUnitOfWork, in the transaction of the transition that caused the event). */
export class PgEventOutbox implements EventOutbox {
  constructor(private readonly pool: pg.Pool) {}

  listUndispatched(limit: number): Promise<WebhookEvent[]> {
    return guarded('outbox list', async () =>
      (limit <= 0 ? [] : EVENTS.select(this.pool, 'NOT dispatched', [], 'occurred_at, inserted_seq', limit)));
  }

  markDispatched(eventId: string): Promise<boolean> {
    return guarded('outbox mark', async () => {
      // The condition is the "first caller" rule: only the update that flips false -> true touches a row.
      const result = await this.pool.query('UPDATE webhook_events SET dispatched = true WHERE event_id = $1 AND NOT dispatched', [eventId]);
      return result.rowCount === 1;
    });
  }

  get(eventId: string): Promise<WebhookEvent | null> {
    return guarded('outbox read', () => EVENTS.get(this.pool, eventId));
  }

  getMany(eventIds: readonly string[]): Promise<WebhookEvent[]> {
    return guarded('outbox read', async () => {
      if (eventIds.length === 0) return [];
      return [...(await EVENTS.getMany(this.pool, [...new Set(eventIds)])).values()];
    });
  }
}
