import type pg from 'pg';
import { ConcurrencyConflict } from '../../core/domain/errors.js';
import { DELIVERY_STATUS, type DeliveryStatus, type UserId, type WebhookDelivery, type WebhookEventType } from '../../core/domain/model/index.js';
import type { Page, PageRequest } from '../../core/ports/page.js';
import type { DeliveryFilter, WebhookDeliveryRepository } from '../../core/ports/webhook-delivery-repository.port.js';
import { fromStoredWebhookDelivery, toStoredWebhookDelivery, type StoredWebhookDelivery } from '../records/webhook-record.js';
import { claimDue, guarded, insertOnce, isUniqueViolation, json, pageOf, versionedReplace, type Row } from './pg-support.js';

const TABLE = 'webhook_deliveries';
const WAITING = `status IN (${DELIVERY_STATUS.PENDING}, ${DELIVERY_STATUS.RETRYING})`;
const NEWEST_FIRST = 'created_at DESC, inserted_seq DESC';

/** Record -> row of `webhook_deliveries` (lease flattened into the two columns its claim filters on). */
function toRow(record: StoredWebhookDelivery): Row & { version: number } {
  return {
    delivery_id: record.id, event_id: record.eventId, user_id: record.userId, event_type: record.eventType,
    url: record.url, status: record.status, attempts: json(record.attempts), next_attempt_at: record.nextAttemptAt,
    lease_owner: record.lease?.owner ?? null, lease_expires_at: record.lease?.expiresAt ?? null,
    created_at: record.createdAt, version: record.version,
  };
}

/** Row of `webhook_deliveries` -> record. */
function fromRow(row: Row): StoredWebhookDelivery {
  const owner = row['lease_owner'] as string | null;
  return {
    id: row['delivery_id'] as string, eventId: row['event_id'] as string, userId: row['user_id'] as number,
    eventType: row['event_type'] as WebhookEventType, url: row['url'] as string | null, status: row['status'] as DeliveryStatus,
    attempts: row['attempts'] as StoredWebhookDelivery['attempts'], nextAttemptAt: row['next_attempt_at'] as number | null,
    lease: owner === null ? null : { owner, expiresAt: row['lease_expires_at'] as number },
    createdAt: row['created_at'] as number, version: row['version'] as number,
  };
}

function deliveryFromRow(row: Row): WebhookDelivery {
  return fromStoredWebhookDelivery(fromRow(row));
}

/**
 * Webhook deliveries; the unique constraint on `event_id` makes "one delivery per event" a store rule. A claim is one
 * UPDATE over rows picked FOR UPDATE SKIP LOCKED, so racing dispatchers never wait on, nor share, a delivery.
 */
export class PgWebhookDeliveryRepository implements WebhookDeliveryRepository {
  constructor(private readonly pool: pg.Pool) {}

  insert(delivery: WebhookDelivery): Promise<boolean> {
    return guarded('webhook delivery insert', async () => {
      try {
        // Only the event rule is an outcome (false); a reused delivery id alone is a caller bug.
        return await insertOnce(this.pool, TABLE, toRow(toStoredWebhookDelivery(delivery)), '(event_id)');
      } catch (error) {
        if (isUniqueViolation(error)) throw new ConcurrencyConflict('webhook delivery', delivery.deliveryId);
        throw error;
      }
    });
  }

  get(deliveryId: string): Promise<WebhookDelivery | null> {
    return guarded('webhook delivery read', async () => {
      const { rows } = await this.pool.query(`SELECT * FROM ${TABLE} WHERE delivery_id = $1`, [deliveryId]);
      return rows.length === 0 ? null : deliveryFromRow(rows[0] as Row);
    });
  }

  update(delivery: WebhookDelivery): Promise<void> {
    return guarded('webhook delivery update', async () => {
      const written = await versionedReplace(this.pool, TABLE, { column: 'delivery_id', value: delivery.deliveryId },
        toRow(toStoredWebhookDelivery(delivery)));
      if (!written) throw new ConcurrencyConflict('webhook delivery', delivery.deliveryId);
    });
  }

  claimDue(now: number, owner: string, leaseMs: number, limit: number): Promise<WebhookDelivery[]> {
    return guarded('webhook delivery claim', async () => {
      // claimDue writes the limit into the statement: only ever a non-negative integer.
      const count = Math.max(0, Math.floor(limit));
      if (!Number.isSafeInteger(count) || count === 0) return [];
      const rows = await claimDue(this.pool, TABLE, {
        key: 'delivery_id',
        where: `${WAITING} AND next_attempt_at <= $1 AND (lease_owner IS NULL OR lease_expires_at <= $1)`,
        order: 'next_attempt_at, inserted_seq',
        set: 'lease_owner = $2, lease_expires_at = $3, version = version + 1',
        params: [now, owner, now + leaseMs],
        limit: count,
      });
      // RETURNING follows no order: put the claimed rows back in claim order.
      rows.sort((a, b) => (a['next_attempt_at'] as number) - (b['next_attempt_at'] as number)
        || (a['inserted_seq'] as number) - (b['inserted_seq'] as number));
      return rows.map(deliveryFromRow);
    });
  }

  listByUser(userId: UserId, page: PageRequest, filter: DeliveryFilter = {}): Promise<Page<WebhookDelivery>> {
    return guarded('webhook delivery list', () => {
      const params: unknown[] = [userId];
      let where = 'user_id = $1';
      if (filter.status !== undefined) where += ` AND status = $${params.push(filter.status)}`;
      return pageOf(this.pool, { table: TABLE, where, order: NEWEST_FIRST, params }, deliveryFromRow, page);
    });
  }

  listByStatus(status: DeliveryStatus, page: PageRequest): Promise<Page<WebhookDelivery>> {
    // DEAD (the console's list) walks webhook_deliveries_dead_newest (migration 0029), whose predicate a planner matches
    // only against a literal, not a parameter: the status (a small integer of the domain) is written into the query.
    if (!Number.isSafeInteger(status)) throw new TypeError(`not a delivery status: ${String(status)}`);
    return guarded('webhook delivery list', () =>
      pageOf(this.pool, { table: TABLE, where: `status = ${status}`, order: NEWEST_FIRST, params: [] }, deliveryFromRow, page));
  }
}
