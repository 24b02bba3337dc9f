import { DomainError } from '../domain/errors.js';
import { afterRedelivery, isRedeliverable } from '../domain/delivery-schedule.js';
import { parsePageQuery, toItemsPage } from '../domain/pagination.js';
import { signPayload } from '../domain/signature.js';
import { standardWebhookSignatures } from '../domain/standard-webhooks.js';
import { formatIsoTime } from '../domain/time.js';
import type { Millis, UserId } from '../domain/model/common.js';
import {
  DELIVERY_STATUS, type DeliveryAttempt, type DeliveryStatus, type DeveloperConfig, type JsonValue, type WebhookDelivery,
} from '../domain/model/webhook.js';
import type { KeyCipher } from '../ports/key-cipher.port.js';
import type { TransportResult, WebhookRequest } from '../ports/webhook-transport.port.js';
import type { WebhooksService } from './application.js';
import type { ResolvedDeps } from './deps.js';
import { secretAad } from './developer-config.js';
import { fieldsOf, optionalEnum } from './input.js';
import { retryOnConflict } from './retry-on-conflict.js';
import type { DeliveryAttemptView, DeliveryView, ItemsPage, RedeliveryView, WebhookTestView } from './views.js';

/** Spec §6 / §8: a delivery succeeds only on a 2xx within 15 s total per request. */
export const WEBHOOK_TIMEOUT_MS = 15_000;

const STATUSES = Object.values(DELIVERY_STATUS);

function toAttemptView(a: DeliveryAttempt): DeliveryAttemptView {
  return {
    at: formatIsoTime(a.at), http_status: a.httpStatus, error: a.error, duration_ms: a.durationMs,
    response: a.response, redelivery: a.redelivery, url: a.url,
  };
}

function toDeliveryView(d: WebhookDelivery, payload: Readonly<Record<string, JsonValue>> | null): DeliveryView {
  return {
    delivery_id: d.deliveryId,
    event_id: d.eventId,
    event_type: d.eventType,
    status: d.status,
    url: d.url,
    attempts: d.attempts.map(toAttemptView),
    next_attempt_at: d.nextAttemptAt === null ? null : formatIsoTime(d.nextAttemptAt),
    created_at: formatIsoTime(d.createdAt),
    payload,
  };
}

/**
 * The signed request of an event. Spec §6 headers exactly as written (`X-Webhook-Signature` over the canonical JSON,
 * keyed by the newest secret), plus the Standard Webhooks headers: `webhook-id` = event_id, `webhook-timestamp` = the
 * send time in seconds, `webhook-signature` = one `v1,…` per secret in force over `id.timestamp.body`, where body is
 * exactly the bytes sent. `secrets` is newest first and never empty. Shared with the worker's dispatcher.
 */
export function webhookRequest(
  url: string, payload: Readonly<Record<string, JsonValue>>, secrets: readonly [string, ...string[]], sentAt: Millis,
): WebhookRequest {
  const body = JSON.stringify(payload);
  const id = String(payload['event_id']);
  const timestamp = Math.floor(sentAt / 1000);
  return {
    url,
    headers: {
      'Content-Type': 'application/json',
      'X-Webhook-Signature': signPayload(payload, secrets[0]),
      'X-Event-Id': id,
      'X-Event-Type': String(payload['event_type']),
      'webhook-id': id,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': standardWebhookSignatures(id, timestamp, body, secrets),
    },
    body,
  };
}

/**
 * The secrets that sign now, newest first: the current one, then the previous one while its 24 h overlap lasts. A
 * previous secret that no longer opens (its KEK retired after `keys:rotate`) is left out rather than failing the
 * send; the current one must open. Null when no secret is set.
 */
export async function secretsInForce(
  config: DeveloperConfig, cipher: KeyCipher, now: Millis,
): Promise<[string, ...string[]] | null> {
  if (config.secret === null) return null;
  const aad = secretAad(config.userId);
  const decode = (bytes: Uint8Array): string => new TextDecoder().decode(bytes);
  const current = decode(await cipher.decrypt(config.secret, aad));
  const previous = config.previousSecret;
  if (previous == null || previous.validUntil <= now) return [current];
  try {
    const old = decode(await cipher.decrypt(previous.secret, aad));
    return old === current ? [current] : [current, old];
  } catch {
    return [current];
  }
}

/** One attempt's record from a transport result (a result later than the 15 s budget is a failure, spec §6). */
export function attemptRecord(
  at: Millis, result: TransportResult, redelivery: boolean, url: string | null,
): { ok: boolean; attempt: DeliveryAttempt } {
  const late = result.ok && result.durationMs > WEBHOOK_TIMEOUT_MS;
  const ok = result.ok && !late;
  const attempt: DeliveryAttempt = {
    at,
    httpStatus: result.status,
    error: ok ? null : late ? `no 2xx within ${WEBHOOK_TIMEOUT_MS} ms` : (result as { error: string }).error,
    durationMs: Math.max(0, Math.round(result.durationMs)),
    response: result.response ?? null,
    redelivery,
    url,
  };
  return { ok, attempt };
}

/** The ports the webhook use cases touch. */
export type WebhooksDeps = Pick<ResolvedDeps, 'clock' | 'ids' | 'cipher' | 'transport' | 'developerConfigs' | 'deliveries' | 'outbox'>;

/** Webhook test, the delivery log and redelivery (session token). */
export class WebhooksUseCases implements WebhooksService {
  constructor(private readonly deps: WebhooksDeps) {}

  /**
   * Sends one signed `webhook.test` event to the approved URL and reports the attempt; nothing is recorded or retried.
   * 422 BIZ-WEBHOOK-URL-UNVERIFIED while no URL is approved (a pending URL is never called).
   */
  async test(userId: UserId): Promise<WebhookTestView> {
    const config = await this.deps.developerConfigs.get(userId);
    const now = this.deps.clock.now();
    const secrets = config === null || config.url === null ? null : await secretsInForce(config, this.deps.cipher, now);
    if (config === null || config.url === null || secrets === null) throw new DomainError('BIZ-WEBHOOK-URL-UNVERIFIED');
    const eventId = this.deps.ids.uuid();
    const payload = { event_id: eventId, event_type: 'webhook.test', occurred_at: formatIsoTime(now) };
    const result = await this.deps.transport.post(webhookRequest(config.url, payload, secrets, now));
    return {
      event_id: eventId,
      url: config.url,
      delivered: result.ok,
      http_status: result.status,
      error: result.ok ? null : result.error,
      duration_ms: result.durationMs,
      response: result.response ?? null,
    };
  }

  async deliveries(userId: UserId, query: unknown): Promise<ItemsPage<DeliveryView>> {
    const fields = fieldsOf(query, 'query');
    const page = parsePageQuery(fields, 'standard');
    const status: DeliveryStatus | undefined = optionalEnum(fields, 'status', STATUSES);
    const found = await this.deps.deliveries.listByUser(userId, page, status === undefined ? {} : { status });
    const events = new Map((await this.deps.outbox.getMany(found.items.map((d) => d.eventId))).map((e) => [e.eventId, e.payload]));
    const views = found.items.map((d) => toDeliveryView(d, events.get(d.eventId) ?? null));
    return toItemsPage(views, found.total, page.page, page.perPage);
  }

  /**
   * POST /webhooks/deliveries/{id}/redeliver. One attempt, outside the retry schedule, to the CURRENT approved URL
   * (not the one recorded on the delivery), signed with the secrets in force now; the event body and event_id are
   * the original's. Success turns DEAD into SUCCEEDED; a failure leaves the status as it was.
   */
  async redeliver(userId: UserId, deliveryId: string): Promise<RedeliveryView> {
    const delivery = await this.deps.deliveries.get(deliveryId);
    if (delivery === null || delivery.userId !== userId) throw new DomainError('WEBHOOK-DELIVERY-NOT-FOUND');
    if (delivery.status === DELIVERY_STATUS.SKIPPED) throw new DomainError('WEBHOOK-DELIVERY-SKIPPED');
    if (!isRedeliverable(delivery.status)) throw new DomainError('WEBHOOK-DELIVERY-IN-PROGRESS');
    const event = await this.deps.outbox.get(delivery.eventId);
    if (event === null) throw new DomainError('WEBHOOK-DELIVERY-NOT-FOUND');
    const config = await this.deps.developerConfigs.get(userId);
    const at = this.deps.clock.now();
    const secrets = config === null || config.url === null ? null : await secretsInForce(config, this.deps.cipher, at);
    if (config === null || config.url === null || secrets === null) throw new DomainError('BIZ-WEBHOOK-URL-UNVERIFIED');
    const result = await this.deps.transport.post(webhookRequest(config.url, event.payload, secrets, at));
    const { ok, attempt } = attemptRecord(at, result, true, config.url);
    const saved = await retryOnConflict(async () => {
      const current = await this.deps.deliveries.get(deliveryId);
      if (current === null) throw new DomainError('WEBHOOK-DELIVERY-NOT-FOUND');
      const next: WebhookDelivery = {
        ...current,
        attempts: [...current.attempts, attempt],
        status: afterRedelivery(current.status, ok),
        version: current.version + 1,
      };
      await this.deps.deliveries.update(next);
      return next;
    }, 5);
    return { delivered: ok, attempt: toAttemptView(attempt), delivery: toDeliveryView(saved, event.payload) };
  }
}
