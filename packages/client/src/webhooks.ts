/**
 * `@custody-hub/client/webhooks`: checks that a webhook came from Custody Hub. Two signatures arrive on every delivery:
 * - spec §6 `X-Webhook-Signature: sha256=<hex>`, HMAC-SHA256 of the payload re-encoded with its top-level keys in
 *   canonical order (shorter first, then byte order): `verifySpecSignature`. It carries no timestamp.
 * - Standard Webhooks `webhook-id`, `webhook-timestamp`, `webhook-signature: v1,<base64> [v1,<base64>…]`, HMAC-SHA256
 *   of `id.timestamp.rawBody`: `verifyStandardWebhook`, which also refuses a timestamp outside the tolerance (replays).
 * Both use the webhook_secret exactly as it was set (its UTF-8 bytes are the key) and compare in constant time. The time
 * of receipt is an input, never read from a global clock.
 */
import { Buffer } from 'node:buffer';
import { timingSafeEqual } from 'node:crypto';
import { specSignature, standardDigest, type JsonValue } from './signatures.js';

export { canonicalJson, type JsonValue } from './signatures.js';

/** The only header accepted: then both sides of the comparison are 71 ASCII bytes, as timingSafeEqual needs. */
const SPEC_HEADER = /^sha256=[0-9a-f]{64}$/;

/** Standard Webhooks' recommended tolerance between `webhook-timestamp` and the time of receipt. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

/** Why a delivery was refused; `ok` when one signature matched. */
export type VerifyResult =
  | { readonly ok: true; readonly id: string; readonly timestamp: number }
  | { readonly ok: false; readonly reason: 'missing-headers' | 'bad-timestamp' | 'timestamp-outside-tolerance' | 'no-matching-signature' };

/** Received headers: a plain object (any case; Node's `req.headers`) or a fetch `Headers`. */
export type ReceivedHeaders = { get(name: string): string | null } | Readonly<Record<string, string | readonly string[] | undefined>>;

export interface StandardVerifyOptions {
  /** When the request arrived (ms since the epoch). */
  readonly receivedAt: number;
  /** Largest allowed distance between `webhook-timestamp` and `receivedAt`, either way; default 300 s. */
  readonly toleranceSeconds?: number;
}

/**
 * Spec §6: true when `header` is `sha256=` + the HMAC of the canonical JSON of `payload` under `secret`. `payload` is
 * the parsed body or the raw body text (parsed here; anything but a JSON object is refused). Never throws.
 */
export function verifySpecSignature(payload: string | Readonly<Record<string, JsonValue>>, secret: string, header: string | null | undefined): boolean {
  if (typeof header !== 'string') return false;
  let body: unknown = payload;
  if (typeof payload === 'string') {
    try {
      body = JSON.parse(payload);
    } catch {
      return false;
    }
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body) || !SPEC_HEADER.test(header)) return false;
  let expected: string;
  try {
    expected = specSignature(body as Record<string, JsonValue>, secret);
  } catch {
    return false;
  }
  return timingSafeEqual(Buffer.from(expected, 'utf8'), Buffer.from(header, 'utf8'));
}

/**
 * Standard Webhooks: checks `webhook-timestamp` against `receivedAt` within the tolerance, then accepts when any
 * `v1,` entry of `webhook-signature` matches the HMAC of `id.timestamp.rawBody` under any of `secrets` (pass the old
 * and the new secret while you rotate). `rawBody` must be the bytes received, before any JSON parsing. Never throws.
 */
export function verifyStandardWebhook(
  rawBody: string | Uint8Array, headers: ReceivedHeaders, secrets: string | readonly string[], options: StandardVerifyOptions,
): VerifyResult {
  const id = header(headers, 'webhook-id');
  const stamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (id === null || stamp === null || signatures === null) return { ok: false, reason: 'missing-headers' };
  if (!/^\d{1,12}$/.test(stamp)) return { ok: false, reason: 'bad-timestamp' };
  const timestamp = Number(stamp);
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (!Number.isFinite(options.receivedAt) || Math.abs(options.receivedAt / 1000 - timestamp) > tolerance) {
    return { ok: false, reason: 'timestamp-outside-tolerance' };
  }
  const body = typeof rawBody === 'string' ? rawBody : Buffer.from(rawBody).toString('utf8');
  const received = signatures.split(' ').filter((entry) => entry.startsWith('v1,')).map((entry) => Buffer.from(entry.slice(3), 'base64'));
  let matched = false;
  for (const secret of typeof secrets === 'string' ? [secrets] : secrets) {
    const expected = standardDigest(id, stamp, body, secret);
    // Every entry is compared (no early exit), each in constant time.
    for (const candidate of received) {
      if (candidate.length === expected.length && timingSafeEqual(candidate, expected)) matched = true;
    }
  }
  return matched ? { ok: true, id, timestamp } : { ok: false, reason: 'no-matching-signature' };
}

function header(headers: ReceivedHeaders, name: string): string | null {
  if (typeof (headers as { get?: unknown }).get === 'function') return (headers as { get(n: string): string | null }).get(name);
  const record = headers as Readonly<Record<string, string | readonly string[] | undefined>>;
  const key = Object.keys(record).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : record[key];
  if (value === undefined) return null;
  return typeof value === 'string' ? value : value.join(' ');
}
