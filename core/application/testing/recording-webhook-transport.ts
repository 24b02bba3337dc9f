import type { TransportResult, WebhookRequest, WebhookTransport } from '../../ports/webhook-transport.port.js';

/**
 * A WebhookTransport for use-case tests: keeps every request and answers with the status the test set (200 unless
 * told otherwise). It never throws, as the port requires. The real transport is tested in adapters/http.
 */
export class RecordingWebhookTransport implements WebhookTransport {
  private readonly requests: WebhookRequest[] = [];
  private nextStatus = 200;

  /** Status of the following answers; a non-2xx is reported as not ok. */
  answerWith(status: number): void {
    this.nextStatus = status;
  }

  /** Every request posted so far, oldest first. */
  get sent(): readonly WebhookRequest[] {
    return [...this.requests];
  }

  async post(request: WebhookRequest): Promise<TransportResult> {
    this.requests.push(request);
    const status = this.nextStatus;
    if (status >= 200 && status < 300) return { ok: true, status, durationMs: 1 };
    return { ok: false, status, error: `HTTP ${status}`, durationMs: 1 };
  }
}
