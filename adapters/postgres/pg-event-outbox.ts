import type pg from 'pg';
import type { WebhookEvent, WebhookEventType } from '../../core/domain/model/webhook.js';
import type { EventOutbox } from '../../core/ports/event-outbox.port.js';
import { fromStoredWebhookEvent, toStoredWebhookEvent, type StoredWebhookEvent } from '../records/webhook-record.js';
import { guarded, insertRow, insertStatement, type Queryable, type Row, type TogetherWrite } from './pg-support.js';
import { prepared } from './pg-prepared.js';

function fromRow(row: Row): StoredWebhookEvent {
  return {
    id: row['event_id'] as string, userId: row['user_id'] as number, eventType: row['event_type'] as WebhookEventType,
    occurredAt: row['occurred_at'] as number, payloadJson: row['payload_json'] as string, dispatched: row['dispatched'] as boolean,
  };
}

function eventFromRow(row: Row): WebhookEvent {
  return fromStoredWebhookEvent(fromRow(row));
}

/** Appends an event (a taken event id is a unique violation for the caller to classify). */
export function insertEvent(q: Queryable, event: WebhookEvent): Promise<void> {
  return insertRow(prepared(q), 'webhook_events', eventRow(event));
}

/** insertEvent as one write of a combined statement (writeTogether). */
export function eventInsertWrite(event: WebhookEvent): TogetherWrite {
  return { statement: (from) => insertStatement('webhook_events', eventRow(event), from) };
}

function eventRow(event: WebhookEvent): Row {
  const record = toStoredWebhookEvent(event);
  return {
    event_id: record.id, user_id: record.userId, event_type: record.eventType, occurred_at: record.occurredAt,
    payload_json: record.payloadJson, dispatched: record.dispatched,
  };
}

/** The outbox (appended only by PgUnitOfWork, in the transaction of the transition that caused the event). */
export class PgEventOutbox implements EventOutbox {
  constructor(private readonly pool: pg.Pool) {}

  listUndispatched(limit: number): Promise<WebhookEvent[]> {
    return guarded('outbox list', async () => {
      if (limit <= 0) return [];
      const { rows } = await this.pool.query(
        'SELECT * FROM webhook_events WHERE NOT dispatched ORDER BY occurred_at, inserted_seq LIMIT $1', [limit],
      );
      return (rows as Row[]).map(eventFromRow);
    });
  }

  markDispatched(eventId: string): Promise<boolean> {
    return guarded('outbox mark', async () => {
      // The condition is the "first caller" rule: only the update that flips false -> true touches a row.
      const result = await this.pool.query('UPDATE webhook_events SET dispatched = true WHERE event_id = $1 AND NOT dispatched', [eventId]);
      return result.rowCount === 1;
    });
  }

  get(eventId: string): Promise<WebhookEvent | null> {
    return guarded('outbox read', async () => {
      const { rows } = await this.pool.query('SELECT * FROM webhook_events WHERE event_id = $1', [eventId]);
      return rows.length === 0 ? null : eventFromRow(rows[0] as Row);
    });
  }

  getMany(eventIds: readonly string[]): Promise<WebhookEvent[]> {
    return guarded('outbox read', async () => {
      if (eventIds.length === 0) return [];
      const { rows } = await this.pool.query('SELECT * FROM webhook_events WHERE event_id = ANY($1::text[])', [[...new Set(eventIds)]]);
      return (rows as Row[]).map(eventFromRow);
    });
  }
}
