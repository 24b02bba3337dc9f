import { DomainError } from '../domain/errors.js';
import { parsePageQuery, toItemsPage } from '../domain/pagination.js';
import { signPayload } from '../domain/signature.js';
import { formatIsoTime } from '../domain/time.js';
import type { UserId } from '../domain/model/common.js';
import type { JsonValue, WebhookDelivery } from '../domain/model/webhook.js';
import type { WebhookRequest } from '../ports/webhook-transport.port.js';
import type { WebhooksService } from './application.js';
import type { ResolvedDeps } from './deps.js';
import { secretAad } from './developer-config.js';
import { fieldsOf } from './input.js';
import type { DeliveryView, ItemsPage, WebhookTestView } from './views.js';

function toDeliveryView(d: WebhookDelivery): DeliveryView {
  return {
    delivery_id: d.deliveryId,
    event_id: d.eventId,
    event_type: d.eventType,
    status: d.status,
    url: d.url,
    attempts: d.attempts.map((a) => ({ at: formatIsoTime(a.at), http_status: a.httpStatus, error: a.error, duration_ms: a.durationMs })),
    next_attempt_at: d.nextAttemptAt === null ? null : formatIsoTime(d.nextAttemptAt),
    created_at: formatIsoTime(d.createdAt),
  };
}

/** The signed request of an event (spec §6 headers); shared with the worker's dispatcher. */
export function webhookRequest(url: string, payload: Readonly<Record<string, JsonValue>>, secret: string): WebhookRequest {
  return {
    url,
    headers: {
      'Content-Type': 'application/json',
      'X-Webhook-Signature': signPayload(payload, secret),
      'X-Event-Id': String(payload['event_id']),
      'X-Event-Type': String(payload['event_type']),
    },
    body: JSON.stringify(payload),
  };
}

/** Webhook test and the delivery log (session token). */
export class WebhooksUseCases implements WebhooksService {
  constructor(private readonly deps: ResolvedDeps) {}

  /**
   * Sends one signed `webhook.test` event to the approved URL and reports the attempt; nothing is recorded or retried.
   * 422 BIZ-WEBHOOK-URL-UNVERIFIED while no URL is approved (a pending URL is never called).
   */
  async test(userId: UserId): Promise<WebhookTestView> {
    const config = await this.deps.developerConfigs.get(userId);
    if (config === null || config.url === null || config.secret === null) throw new DomainError('BIZ-WEBHOOK-URL-UNVERIFIED');
    const secret = new TextDecoder().decode(await this.deps.cipher.decrypt(config.secret, secretAad(userId)));
    const eventId = this.deps.ids.uuid();
    const payload = { event_id: eventId, event_type: 'webhook.test', occurred_at: formatIsoTime(this.deps.clock.now()) };
    const result = await this.deps.transport.post(webhookRequest(config.url, payload, secret));
    return {
      event_id: eventId,
      url: config.url,
      delivered: result.ok,
      http_status: result.status,
      error: result.ok ? null : result.error,
      duration_ms: result.durationMs,
    };
  }

  async deliveries(userId: UserId, query: unknown): Promise<ItemsPage<DeliveryView>> {
    const page = parsePageQuery(fieldsOf(query, 'query'), 'standard');
    const found = await this.deps.deliveries.listByUser(userId, page);
    return toItemsPage(found.items.map(toDeliveryView), found.total, page.page, page.perPage);
  }
}
