/**
 * `@custody-hub/client`: a typed client of the Custody Hub HTTP API. Requests go through openapi-fetch with the paths
 * and schemas generated from the OpenAPI document (./openapi-types.ts), so a path, its parameters, its body and its
 * answer are all checked by the compiler. On top of it:
 * - an Idempotency-Key on every route that takes one (a random UUID unless you pass your own in `params.header`);
 * - a 429 is retried after its Retry-After (seconds), with the same key, up to `retry.maxAttempts`;
 * - `paginate` walks either list shape as one async iterator; `unwrap` turns a failure envelope into CustodyApiError.
 */
import createClient, { type Client } from 'openapi-fetch';
import { clientFetch, newIdempotencyKey, type RetryOptions } from './client-fetch.js';
import { unwrap } from './errors.js';
import { paginate } from './pagination.js';
import type { components, paths, webhooks } from './openapi-types.js';

export { isIdempotentRoute, newIdempotencyKey, retryAfterMs, type RetryOptions } from './client-fetch.js';
export { CustodyApiError, isCustodyApiError, unwrap, type ApiResult, type DataOf, type ErrorCodeOf } from './errors.js';
export { paginate, type DataMetaPage, type ItemsPage, type PageItem } from './pagination.js';
export type { components, operations, paths, webhooks } from './openapi-types.js';

/** A schema of the API by its name in the document (`Schema<'Wallet'>`). */
export type Schema<Name extends keyof components['schemas']> = components['schemas'][Name];

/** The event types a webhook can carry (`collection.completed`…). */
export type WebhookEventType = keyof webhooks;

/**
 * The body of a webhook of one type (`WebhookEvent<'collection.completed'>`), or, with no argument, of any type: a
 * union on `event_type`, so a `switch` narrows it. Parse it only after a signature checked out (@custody-hub/client/webhooks).
 */
export type WebhookEvent<T extends WebhookEventType = WebhookEventType> = {
  [K in T]: webhooks[K] extends { post: { requestBody: { content: { 'application/json': infer B } } } } ? B : never;
}[T];

/** Options of {@link createCustodyClient}. */
export interface CustodyClientOptions {
  /** Where the service runs, without `/api` (`http://127.0.0.1:3000`); the paths carry `/api`. */
  readonly baseUrl: string;
  /** Bearer token sent on every call: a Developer API Token `dk_…`, a session `st_…`, a cashier `ct_…` or the admin token. */
  readonly token?: string;
  /** The fetch to use (default: the global one). */
  readonly fetch?: (input: Request) => Promise<Response>;
  /** Retry of 429 answers after Retry-After (default: 3 attempts, waits up to 60 s each); `false` turns it off. */
  readonly retry?: RetryOptions | false;
  /** Source of Idempotency-Keys the client adds itself (default: crypto.randomUUID). */
  readonly idempotencyKey?: () => string;
}

/** The openapi-fetch client over the API's paths (GET, POST, PUT, DELETE…), plus the helpers. */
export interface CustodyClient extends Client<paths> {
  /** {@link unwrap}: the success envelope's `data`, or a thrown CustodyApiError. */
  readonly unwrap: typeof unwrap;
  /** {@link paginate}: every item of a list of either shape. */
  readonly paginate: typeof paginate;
}

/**
 * A client of one Custody Hub for one bearer token.
 * @example
 * const hub = createCustodyClient({ baseUrl: 'http://127.0.0.1:3000', token: process.env.CUSTODY_TOKEN });
 * const sub = await hub.unwrap(hub.POST('/api/wallets', { body: { network_code: 'TRON', address_type: 2 } }));
 */
export function createCustodyClient(options: CustodyClientOptions): CustodyClient {
  const baseFetch = options.fetch ?? ((input: Request) => globalThis.fetch(input));
  const client = createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    fetch: clientFetch({ fetch: baseFetch, retry: options.retry ?? {}, idempotencyKey: options.idempotencyKey ?? newIdempotencyKey }),
    ...(options.token === undefined ? {} : { headers: { authorization: `Bearer ${options.token}` } }),
  });
  return Object.assign(client, { unwrap, paginate });
}
