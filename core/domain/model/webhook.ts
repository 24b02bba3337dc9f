import type { EncryptedEnvelope, Millis, UserId, Versioned } from './common.js';

export type WebhookReviewStatus = 'unconfigured' | 'pending' | 'verified';

/** The developer subscription's configuration: webhook URL review state, secret, collection minimums. */
export interface DeveloperConfig extends Versioned {
  readonly userId: UserId;
  /** The active approved URL, or null. */
  readonly url: string | null;
  readonly pendingUrl: string | null;
  readonly pendingSince: Millis | null;
  readonly verifiedAt: Millis | null;
  readonly reviewNote: string | null;
  /** AES-256-GCM encrypted webhook_secret; never returned. */
  readonly secret: EncryptedEnvelope | null;
  /**
   * The secret replaced last, still signing beside the new one until `validUntil` (24 h after the change; null when
   * none). Never returned either.
   */
  readonly previousSecret: { readonly secret: EncryptedEnvelope; readonly validUntil: Millis } | null;
  /** Asset symbol -> smallest-unit minimum for a cashier collection; empty = no minimum. */
  readonly minCollectAmounts: Readonly<Record<string, bigint>>;
  /** The opt-in event types the user added to config.event_types (the spec's four are always sent); absent = none. */
  readonly optInEventTypes?: readonly OptInEventType[];
  /** Asset symbol -> its automatic collection rule (issue #24 item 4); absent or empty = none. */
  readonly autoCollect?: Readonly<Record<string, AutoCollectRule>>;
  /** The merchant's name shown to payers on the payer page (config.display_name, issue #25); absent = none. */
  readonly displayName?: string;
}

/** When the worker collects an asset by itself after a confirmed deposit (config.auto_collect, issue #24 item 4). */
export interface AutoCollectRule {
  /** The sweepable amount (smallest unit) the sub-address must hold; dust never counts toward it. */
  readonly minAmount: bigint;
  /** The most the cheapest sweep plan may cost, in SUN; a dearer plan waits. */
  readonly maxFeeSun: bigint;
}

/** The spec §6 event types: every subscription receives them, and config.event_types always lists them. */
export const SPEC_EVENT_TYPES = ['withdrawal.completed', 'withdrawal.failed', 'collection.completed', 'collection.failed'] as const;
/**
 * Extension event types (deposits, issue #24; payment requests, issue #25; the books against the chain, issue #36) a
 * user receives only after opting in.
 */
export const OPT_IN_EVENT_TYPES = [
  'deposit.pending', 'deposit.confirmed', 'deposit.reverted', 'payment.paid', 'payment.expired', 'payment.paid_late', 'ledger.discrepancy',
] as const;
export type OptInEventType = (typeof OPT_IN_EVENT_TYPES)[number];

export const WEBHOOK_EVENT_TYPES = [...SPEC_EVENT_TYPES, 'webhook.test', ...OPT_IN_EVENT_TYPES] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** JSON-safe payload value (money already rendered as integer strings or integers per spec §6). */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** An outbox entry: written together with the terminal transition that caused it. */
export interface WebhookEvent {
  readonly eventId: string;
  readonly userId: UserId;
  readonly eventType: WebhookEventType;
  readonly occurredAt: Millis;
  /** The full top-level body, including event_id, event_type and occurred_at. */
  readonly payload: Readonly<Record<string, JsonValue>>;
  readonly dispatched: boolean;
}

export const DELIVERY_STATUS = {
  PENDING: 1, DELIVERING: 2, SUCCEEDED: 3, RETRYING: 4, DEAD: 5, SKIPPED: 6,
} as const;
export type DeliveryStatus = (typeof DELIVERY_STATUS)[keyof typeof DELIVERY_STATUS];

export interface DeliveryAttempt {
  readonly at: Millis;
  readonly httpStatus: number | null;
  readonly error: string | null;
  readonly durationMs: number;
  /** The first 1 KiB of the response body (UTF-8, a cut character replaced); null when no response arrived. */
  readonly response: string | null;
  /** True for an attempt a user asked for (POST /webhooks/deliveries/{id}/redeliver), outside the retry schedule. */
  readonly redelivery: boolean;
  /** Where the attempt was sent: the delivery's URL, or for a redelivery the URL approved then; null if unknown. */
  readonly url: string | null;
}

export interface WebhookDelivery extends Versioned {
  readonly deliveryId: string;
  readonly eventId: string;
  readonly userId: UserId;
  readonly eventType: WebhookEventType;
  /** The approved URL at the time the delivery was created; null when SKIPPED. */
  readonly url: string | null;
  readonly status: DeliveryStatus;
  readonly attempts: readonly DeliveryAttempt[];
  readonly nextAttemptAt: Millis | null;
  readonly lease: { readonly owner: string; readonly expiresAt: Millis } | null;
  readonly createdAt: Millis;
}
