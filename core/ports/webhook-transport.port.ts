/** The outcome of one delivery attempt: an HTTP status, or a transport error (timeout, refused, blocked). */
export type TransportResult =
  | { readonly ok: true; readonly status: number; readonly durationMs: number; readonly response?: string }
  | { readonly ok: false; readonly status: number | null; readonly error: string; readonly durationMs: number; readonly response?: string };

export interface WebhookRequest {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/**
 * Sends one signed webhook POST. Guarantees: https only on the default port (unless the explicit local-testing
 * allowance is on), the host resolved once and every address checked against the blocked ranges, the connection
 * pinned to the checked address, no redirects followed, 15 s total per request. `ok` means a 2xx in time.
 * `response` is the first 1 KiB of the response body, when one arrived (shown in the delivery log).
 * Never throws: every failure is a result.
 */
export interface WebhookTransport {
  post(request: WebhookRequest): Promise<TransportResult>;
}
