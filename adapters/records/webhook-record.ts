import { StoreError } from '../../core/domain/errors.js';
import type {
  DeliveryAttempt, DeliveryStatus, DeveloperConfig, JsonValue, OptInEventType, WebhookDelivery, WebhookEvent, WebhookEventType,
} from '../../core/domain/model/webhook.js';
import { fromStoredEnvelope, toStoredEnvelope, type StoredEnvelope } from './wallet-record.js';
import { fromStoredLease, leaseColumns, toStoredLease, type StoredLease } from './lease-record.js';
import { describeRecord } from './record-descriptor.js';
import { decodeMoney, encodeMoney, nullable } from './record-support.js';

/** `developer_configs`: `id` is the user id; minimums are (symbol, decimal string) pairs. */
export interface StoredDeveloperConfig {
  id: number;
  url: string | null;
  pendingUrl: string | null;
  pendingSince: number | null;
  verifiedAt: number | null;
  reviewNote: string | null;
  secret: StoredEnvelope | null;
  /** The replaced secret while its 24 h overlap lasts; absent on records written before issue #15. */
  previousSecret?: { secret: StoredEnvelope; validUntil: number } | null;
  minCollectAmounts: { symbol: string; amount: string }[];
  /** The opt-in event types (issue #24); absent when none were ever set (and on records written before). */
  optInEventTypes?: OptInEventType[] | null;
  /** config.auto_collect (issue #24 item 4); absent when never set (and on records written before). */
  autoCollect?: { symbol: string; minAmount: string; maxFeeSun: string }[] | null;
  /** config.display_name (issue #25); absent when never set (and on records written before). */
  displayName?: string | null;
  version: number;
}

/** Domain value -> stored record: pure, a fresh object (amounts, where any, as decimal strings). */
export function toStoredDeveloperConfig(config: DeveloperConfig): StoredDeveloperConfig {
  return {
    id: config.userId,
    url: config.url,
    pendingUrl: config.pendingUrl,
    pendingSince: config.pendingSince,
    verifiedAt: config.verifiedAt,
    reviewNote: config.reviewNote,
    secret: config.secret === null ? null : toStoredEnvelope(config.secret),
    previousSecret: config.previousSecret === null
      ? null
      : { secret: toStoredEnvelope(config.previousSecret.secret), validUntil: config.previousSecret.validUntil },
    minCollectAmounts: Object.entries(config.minCollectAmounts).map(([symbol, amount]) => ({ symbol, amount: encodeMoney(amount) })),
    ...(config.optInEventTypes === undefined ? {} : { optInEventTypes: [...config.optInEventTypes] }),
    ...(config.autoCollect === undefined ? {} : {
      autoCollect: Object.entries(config.autoCollect).map(([symbol, rule]) => ({
        symbol, minAmount: encodeMoney(rule.minAmount), maxFeeSun: encodeMoney(rule.maxFeeSun),
      })),
    }),
    ...(config.displayName === undefined ? {} : { displayName: config.displayName }),
    version: config.version,
  };
}

/** Stored record -> domain value; null and a missing field both read as null. */
export function fromStoredDeveloperConfig(doc: StoredDeveloperConfig): DeveloperConfig {
  return {
    userId: doc.id,
    url: nullable(doc.url),
    pendingUrl: nullable(doc.pendingUrl),
    pendingSince: nullable(doc.pendingSince),
    verifiedAt: nullable(doc.verifiedAt),
    reviewNote: nullable(doc.reviewNote),
    secret: doc.secret === null || doc.secret === undefined ? null : fromStoredEnvelope(doc.secret),
    previousSecret: doc.previousSecret === null || doc.previousSecret === undefined
      ? null
      : { secret: fromStoredEnvelope(doc.previousSecret.secret), validUntil: doc.previousSecret.validUntil },
    minCollectAmounts: Object.fromEntries(
      doc.minCollectAmounts.map(({ symbol, amount }) => [symbol, decodeMoney(amount, `minimum ${symbol}`)]),
    ),
    ...(doc.optInEventTypes === undefined || doc.optInEventTypes === null ? {} : { optInEventTypes: [...doc.optInEventTypes] }),
    ...(doc.autoCollect === undefined || doc.autoCollect === null ? {} : {
      autoCollect: Object.fromEntries(doc.autoCollect.map(({ symbol, minAmount, maxFeeSun }) => [symbol, {
        minAmount: decodeMoney(minAmount, `auto_collect ${symbol} min_amount`),
        maxFeeSun: decodeMoney(maxFeeSun, `auto_collect ${symbol} max_fee_sun`),
      }])),
    }),
    ...(doc.displayName === undefined || doc.displayName === null ? {} : { displayName: doc.displayName }),
    version: doc.version,
  };
}

/**
 * `webhook_events` (the outbox): `id` is event_id. The payload is kept as its JSON text: it is JSON-safe by type,
 * round-trips exactly, and its keys never become field names (no `$`/`.` surprises).
 */
export interface StoredWebhookEvent {
  id: string;
  userId: number;
  eventType: WebhookEventType;
  occurredAt: number;
  payloadJson: string;
  dispatched: boolean;
}

/** Domain value -> stored record: pure, a fresh object (amounts, where any, as decimal strings). */
export function toStoredWebhookEvent(event: WebhookEvent): StoredWebhookEvent {
  return {
    id: event.eventId,
    userId: event.userId,
    eventType: event.eventType,
    occurredAt: event.occurredAt,
    payloadJson: JSON.stringify(event.payload),
    dispatched: event.dispatched,
  };
}

function parsePayload(text: string): Record<string, JsonValue> {
  const parsed: unknown = JSON.parse(text);
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new StoreError('INTERNAL-ERROR', 'stored webhook payload is not a JSON object', { transient: false });
  }
  return parsed as Record<string, JsonValue>;
}

/** Stored record -> domain value; null and a missing field both read as null. */
export function fromStoredWebhookEvent(doc: StoredWebhookEvent): WebhookEvent {
  return {
    eventId: doc.id,
    userId: doc.userId,
    eventType: doc.eventType,
    occurredAt: doc.occurredAt,
    payload: parsePayload(doc.payloadJson),
    dispatched: doc.dispatched,
  };
}

/** `webhook_deliveries`: `id` is the delivery id; `eventId` is unique (one delivery per event). */
export interface StoredWebhookDelivery {
  id: string;
  eventId: string;
  userId: number;
  eventType: WebhookEventType;
  url: string | null;
  status: DeliveryStatus;
  attempts: {
    at: number; httpStatus: number | null; error: string | null; durationMs: number; response?: string | null; redelivery?: boolean; url?: string | null;
  }[];
  nextAttemptAt: number | null;
  lease: StoredLease | null;
  createdAt: number;
  version: number;
}

function fromAttempt(doc: StoredWebhookDelivery['attempts'][number]): DeliveryAttempt {
  return {
    at: doc.at, httpStatus: nullable(doc.httpStatus), error: nullable(doc.error), durationMs: doc.durationMs,
    // Attempts stored before issue #15 have neither field: no response kept, not a redelivery.
    response: nullable(doc.response), redelivery: doc.redelivery === true, url: nullable(doc.url),
  };
}

/** Domain value -> stored record: pure, a fresh object (amounts, where any, as decimal strings). */
export function toStoredWebhookDelivery(delivery: WebhookDelivery): StoredWebhookDelivery {
  return {
    id: delivery.deliveryId,
    eventId: delivery.eventId,
    userId: delivery.userId,
    eventType: delivery.eventType,
    url: delivery.url,
    status: delivery.status,
    attempts: delivery.attempts.map((a) => ({
      at: a.at, httpStatus: a.httpStatus, error: a.error, durationMs: a.durationMs, response: a.response, redelivery: a.redelivery, url: a.url,
    })),
    nextAttemptAt: delivery.nextAttemptAt,
    lease: toStoredLease(delivery.lease),
    createdAt: delivery.createdAt,
    version: delivery.version,
  };
}

/** Stored record -> domain value; null and a missing field both read as null. */
export function fromStoredWebhookDelivery(doc: StoredWebhookDelivery): WebhookDelivery {
  return {
    deliveryId: doc.id,
    eventId: doc.eventId,
    userId: doc.userId,
    eventType: doc.eventType,
    url: nullable(doc.url),
    status: doc.status,
    attempts: doc.attempts.map(fromAttempt),
    nextAttemptAt: nullable(doc.nextAttemptAt),
    lease: fromStoredLease(doc.lease),
    createdAt: doc.createdAt,
    version: doc.version,
  };
}

/** Developer configurations, one per user; nested values as JSONB (the minimums keep their decimal strings). */
export const DEVELOPER_CONFIG_RECORD = describeRecord({
  name: 'developer config', table: 'developer_configs', collection: 'developer_configs',
  encode: toStoredDeveloperConfig, decode: fromStoredDeveloperConfig,
  fields: {
    id: 'user_id', url: 'url', pendingUrl: 'pending_url', pendingSince: 'pending_since', verifiedAt: 'verified_at',
    reviewNote: 'review_note', secret: { column: 'secret', codec: 'jsonb' }, previousSecret: { column: 'previous_secret', codec: 'jsonb' },
    minCollectAmounts: { column: 'min_collect_amounts', codec: 'jsonb' }, optInEventTypes: { column: 'opt_in_event_types', codec: 'jsonb' },
    autoCollect: { column: 'auto_collect', codec: 'jsonb' }, displayName: 'display_name', version: 'version',
  },
});

/** The outbox's events, appended once; the payload stays its JSON text. */
export const WEBHOOK_EVENT_RECORD = describeRecord({
  name: 'webhook event', table: 'webhook_events', collection: 'webhook_events', encode: toStoredWebhookEvent, decode: fromStoredWebhookEvent,
  fields: {
    id: 'event_id', userId: 'user_id', eventType: 'event_type', occurredAt: 'occurred_at', payloadJson: 'payload_json', dispatched: 'dispatched',
  },
});

/** Webhook deliveries: the attempts as JSON text (a receiver's response may hold U+0000), the lease in two columns. */
export const WEBHOOK_DELIVERY_RECORD = describeRecord({
  name: 'webhook delivery', table: 'webhook_deliveries', collection: 'webhook_deliveries',
  encode: toStoredWebhookDelivery, decode: fromStoredWebhookDelivery,
  fields: {
    id: 'delivery_id', eventId: 'event_id', userId: 'user_id', eventType: 'event_type', url: 'url', status: 'status',
    attempts: { column: 'attempts', codec: 'json' }, nextAttemptAt: 'next_attempt_at', lease: leaseColumns(), createdAt: 'created_at',
    version: 'version',
  },
});
