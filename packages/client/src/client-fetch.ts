/**
 * The fetch under the typed client: adds an Idempotency-Key to the routes that take one when the caller did not, and
 * retries an answer 429 after the Retry-After it names. A retry sends the same request, key included, so the server
 * sees a replay of one call, never a second payment.
 */
import { randomUUID } from 'node:crypto';
import { IDEMPOTENT_ROUTES } from './openapi-types.js';

/** Retry of rate-limited calls (HTTP 429 with `Retry-After: <seconds>`). */
export interface RetryOptions {
  /** Calls in all, the first included (default 3; 1 turns retrying off). */
  readonly maxAttempts?: number;
  /** The longest single wait; a 429 asking for more is returned as it is (default 60,000 ms). */
  readonly maxWaitMs?: number;
  /** How to wait (default: a timer). Tests pass one that records the waits or moves a test clock. */
  readonly sleep?: (ms: number) => Promise<void>;
}

/** What the wrapper needs: the fetch to call, the retry policy and where keys come from. */
export interface ClientFetchOptions {
  readonly fetch: (input: Request) => Promise<Response>;
  readonly retry: RetryOptions | false;
  readonly idempotencyKey: () => string;
}

/** A fresh Idempotency-Key (a random UUID). Make one yourself when you will retry a call after a lost reply. */
export function newIdempotencyKey(): string {
  return randomUUID();
}

const DEFAULT_ATTEMPTS = 3;
const DEFAULT_MAX_WAIT_MS = 60_000;
const timer = (ms: number): Promise<void> => new Promise((resolve) => { setTimeout(resolve, ms); });

/** `POST /api/wallets/{address}/stake` → a matcher of the request path's end (the base URL may carry a prefix). */
const IDEMPOTENT = IDEMPOTENT_ROUTES.map((route) => {
  const [method, path] = route.split(' ') as [string, string];
  const pattern = path.split('/').map((seg) => (seg.startsWith('{') ? '[^/]+' : seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))).join('/');
  return { method, pattern: new RegExp(`${pattern}/?$`) };
});

/** True when `method path` is an operation that takes an Idempotency-Key. */
export function isIdempotentRoute(method: string, pathname: string): boolean {
  return IDEMPOTENT.some((r) => r.method === method.toUpperCase() && r.pattern.test(pathname));
}

/** Delay named by a Retry-After header in delta-seconds, or null when absent or not a number of seconds. */
export function retryAfterMs(header: string | null): number | null {
  if (header === null || !/^\s*\d+\s*$/.test(header)) return null;
  return Number(header) * 1000;
}

/** The fetch the openapi-fetch client is built on. */
export function clientFetch(options: ClientFetchOptions): (input: Request) => Promise<Response> {
  const retry = options.retry === false ? { maxAttempts: 1 } : options.retry;
  const maxAttempts = Math.max(1, retry.maxAttempts ?? DEFAULT_ATTEMPTS);
  const maxWaitMs = retry.maxWaitMs ?? DEFAULT_MAX_WAIT_MS;
  const sleep = retry.sleep ?? timer;
  return async (request) => {
    if (!request.headers.has('idempotency-key') && isIdempotentRoute(request.method, new URL(request.url).pathname)) {
      request.headers.set('idempotency-key', options.idempotencyKey());
    }
    for (let attempt = 1; ; attempt += 1) {
      const response = await options.fetch(attempt < maxAttempts ? request.clone() : request);
      if (response.status !== 429 || attempt >= maxAttempts) return response;
      const wait = retryAfterMs(response.headers.get('retry-after'));
      if (wait === null || wait > maxWaitMs) return response;
      await response.body?.cancel();
      await sleep(wait);
    }
  };
}
