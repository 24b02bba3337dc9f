import type pg from 'pg';
import { ConcurrencyConflict } from '../../core/domain/errors.js';
import { DELIVERY_STATUS, type DeliveryStatus, type UserId, type WebhookDelivery } from '../../core/domain/model/index.js';
import type { Page, PageRequest } from '../../core/ports/page.js';
import type { DeliveryFilter, WebhookDeliveryRepository } from '../../core/ports/webhook-delivery-repository.port.js';
import { WEBHOOK_DELIVERY_RECORD } from '../records/webhook-record.js';
import { claimDue, guarded, isUniqueViolation, type Row } from './pg-support.js';
import { PgTable } from './pg-table.js';

const WAITING = `status IN (${DELIVERY_STATUS.PENDING}, ${DELIVERY_STATUS.RETRYING})`;
const NEWEST_FIRST = 'created_at DESC, inserted_seq DESC';

/** The `webhook_deliveries` table, from the record's descriptor. */
const DELIVERIES = new PgTable(WEBHOOK_DELIVERY_RECORD);
const deliveryFromRow = (row: Row): WebhookDelivery => DELIVERIES.fromRow(row);

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
        return await DELIVERIES.insertOnce(this.pool, delivery, '(event_id)');
      } catch (error) {
        if (isUniqueViolation(error)) throw new ConcurrencyConflict('webhook delivery', delivery.deliveryId);
        throw error;
      }
    });
  }

  get(deliveryId: string): Promise<WebhookDelivery | null> {
    return guarded('webhook delivery read', () => DELIVERIES.get(this.pool, deliveryId));
  }

  update(delivery: WebhookDelivery): Promise<void> {
    return guarded('webhook delivery update', async () => {
      const written = await DELIVERIES.replace(this.pool, delivery);
      if (!written) throw new ConcurrencyConflict('webhook delivery', delivery.deliveryId);
    });
  }

  claimDue(now: number, owner: string, leaseMs: number, limit: number): Promise<WebhookDelivery[]> {
    return guarded('webhook delivery claim', async () => {
      // claimDue writes the limit into the statement: only ever a non-negative integer.
      const count = Math.max(0, Math.floor(limit));
      if (!Number.isSafeInteger(count) || count === 0) return [];
      const rows = await claimDue(this.pool, DELIVERIES.table, {
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
      return DELIVERIES.page(this.pool, { where, order: NEWEST_FIRST, params }, page);
    });
  }

  listByStatus(status: DeliveryStatus, page: PageRequest): Promise<Page<WebhookDelivery>> {
    // DEAD (the console's list) walks webhook_deliveries_dead_newest (migration 0029), whose predicate a planner matches
    // only against a literal, not a parameter: the status (a small integer of the domain) is written into the query.
    if (!Number.isSafeInteger(status)) throw new TypeError(`not a delivery status: ${String(status)}`);
    return guarded('webhook delivery list', () =>
      DELIVERIES.page(this.pool, { where: `status = ${status}`, order: NEWEST_FIRST, params: [] }, page));
  }
}
