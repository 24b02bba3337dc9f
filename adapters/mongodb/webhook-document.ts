import { StoreError } from '../../core/domain/errors.js';
import type {
  DeliveryAttempt, DeliveryStatus, DeveloperConfig, JsonValue, WebhookDelivery, WebhookEvent, WebhookEventType,
} from '../../core/domain/model/webhook.js';
import { fromEnvelopeDocument, toEnvelopeDocument, type EnvelopeDocument } from './wallet-document.js';
import { fromLeaseDocument, toLeaseDocument, type LeaseDocument } from './collection-task-document.js';
import { decodeMoney, encodeMoney, nullable } from './mongo-support.js';

/** `developer_configs`: `_id` is the user id; minimums are (symbol, decimal string) pairs. */
export interface DeveloperConfigDocument {
  _id: number;
  url: string | null;
  pendingUrl: string | null;
  pendingSince: number | null;
  verifiedAt: number | null;
  reviewNote: string | null;
  secret: EnvelopeDocument | null;
  /** The replaced secret while its 24 h overlap lasts; absent on documents written before issue #15. */
  previousSecret?: { secret: EnvelopeDocument; validUntil: number } | null;
  minCollectAmounts: { symbol: string; amount: string }[];
  version: number;
}

/** Domain value -> stored document: pure, a fresh object (amounts, where any, as decimal strings). */
export function toDeveloperConfigDocument(config: DeveloperConfig): DeveloperConfigDocument {
  return {
    _id: config.userId,
    url: config.url,
    pendingUrl: config.pendingUrl,
    pendingSince: config.pendingSince,
    verifiedAt: config.verifiedAt,
    reviewNote: config.reviewNote,
    secret: config.secret === null ? null : toEnvelopeDocument(config.secret),
    previousSecret: config.previousSecret === null
      ? null
      : { secret: toEnvelopeDocument(config.previousSecret.secret), validUntil: config.previousSecret.validUntil },
    minCollectAmounts: Object.entries(config.minCollectAmounts).map(([symbol, amount]) => ({ symbol, amount: encodeMoney(amount) })),
    version: config.version,
  };
}

/** Stored document -> domain value; BSON null and a missing field both read as null. */
export function fromDeveloperConfigDocument(doc: DeveloperConfigDocument): DeveloperConfig {
  return {
    userId: doc._id,
    url: nullable(doc.url),
    pendingUrl: nullable(doc.pendingUrl),
    pendingSince: nullable(doc.pendingSince),
    verifiedAt: nullable(doc.verifiedAt),
    reviewNote: nullable(doc.reviewNote),
    secret: doc.secret === null || doc.secret === undefined ? null : fromEnvelopeDocument(doc.secret),
    previousSecret: doc.previousSecret === null || doc.previousSecret === undefined
      ? null
      : { secret: fromEnvelopeDocument(doc.previousSecret.secret), validUntil: doc.previousSecret.validUntil },
    minCollectAmounts: Object.fromEntries(
      doc.minCollectAmounts.map(({ symbol, amount }) => [symbol, decodeMoney(amount, `minimum ${symbol}`)]),
    ),
    version: doc.version,
  };
}

/**
 * `webhook_events` (the outbox): `_id` is event_id. The payload is kept as its JSON text: it is JSON-safe by type,
 * round-trips exactly, and its keys never become field names (no `$`/`.` surprises).
 */
export interface WebhookEventDocument {
  _id: string;
  userId: number;
  eventType: WebhookEventType;
  occurredAt: number;
  payloadJson: string;
  dispatched: boolean;
  insertedSeq?: number;
}

/** Domain value -> stored document: pure, a fresh object (amounts, where any, as decimal strings). */
export function toWebhookEventDocument(event: WebhookEvent): WebhookEventDocument {
  return {
    _id: event.eventId,
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

/** Stored document -> domain value; BSON null and a missing field both read as null. */
export function fromWebhookEventDocument(doc: WebhookEventDocument): WebhookEvent {
  return {
    eventId: doc._id,
    userId: doc.userId,
    eventType: doc.eventType,
    occurredAt: doc.occurredAt,
    payload: parsePayload(doc.payloadJson),
    dispatched: doc.dispatched,
  };
}

/** `webhook_deliveries`: `_id` is the delivery id; `eventId` is unique (one delivery per event). */
export interface WebhookDeliveryDocument {
  _id: string;
  eventId: string;
  userId: number;
  eventType: WebhookEventType;
  url: string | null;
  status: DeliveryStatus;
  attempts: {
    at: number; httpStatus: number | null; error: string | null; durationMs: number; response?: string | null; redelivery?: boolean; url?: string | null;
  }[];
  nextAttemptAt: number | null;
  lease: LeaseDocument | null;
  createdAt: number;
  version: number;
  insertedSeq?: number;
}

function fromAttempt(doc: WebhookDeliveryDocument['attempts'][number]): DeliveryAttempt {
  return {
    at: doc.at, httpStatus: nullable(doc.httpStatus), error: nullable(doc.error), durationMs: doc.durationMs,
    // Attempts stored before issue #15 have neither field: no response kept, not a redelivery.
    response: nullable(doc.response), redelivery: doc.redelivery === true, url: nullable(doc.url),
  };
}

/** Domain value -> stored document: pure, a fresh object (amounts, where any, as decimal strings). */
export function toWebhookDeliveryDocument(delivery: WebhookDelivery): WebhookDeliveryDocument {
  return {
    _id: delivery.deliveryId,
    eventId: delivery.eventId,
    userId: delivery.userId,
    eventType: delivery.eventType,
    url: delivery.url,
    status: delivery.status,
    attempts: delivery.attempts.map((a) => ({
      at: a.at, httpStatus: a.httpStatus, error: a.error, durationMs: a.durationMs, response: a.response, redelivery: a.redelivery, url: a.url,
    })),
    nextAttemptAt: delivery.nextAttemptAt,
    lease: toLeaseDocument(delivery.lease),
    createdAt: delivery.createdAt,
    version: delivery.version,
  };
}

/** Stored document -> domain value; BSON null and a missing field both read as null. */
export function fromWebhookDeliveryDocument(doc: WebhookDeliveryDocument): WebhookDelivery {
  return {
    deliveryId: doc._id,
    eventId: doc.eventId,
    userId: doc.userId,
    eventType: doc.eventType,
    url: nullable(doc.url),
    status: doc.status,
    attempts: doc.attempts.map(fromAttempt),
    nextAttemptAt: nullable(doc.nextAttemptAt),
    lease: fromLeaseDocument(doc.lease),
    createdAt: doc.createdAt,
    version: doc.version,
  };
}
