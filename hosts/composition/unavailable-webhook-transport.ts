import type { TransportResult, WebhookRequest, WebhookTransport } from '../../core/ports/webhook-transport.port.js';

/**
 * Stand-in until the SSRF-safe transport of adapters/http lands: every delivery attempt fails with a clear error
 * (the dispatcher then retries and finally marks it DEAD, as for an unreachable receiver). Never throws, per the port.
 */
export class UnavailableWebhookTransport implements WebhookTransport {
  post(_request: WebhookRequest): Promise<TransportResult> {
    return Promise.resolve({ ok: false, status: null, error: 'webhook transport not available yet (adapters/http)', durationMs: 0 });
  }
}
