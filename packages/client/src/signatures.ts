/**
 * The two webhook signatures, computed on the receiver's side. The service signs with core/domain/signature.ts and
 * core/domain/standard-webhooks.ts; this package cannot import the server, so the receiver's half is written here
 * once more, and hosts/api/client/webhook-parity.test.ts checks on random payloads that both halves agree (and the
 * known-answer vectors pin both to values computed with openssl).
 */
import { Buffer } from 'node:buffer';
import { createHmac } from 'node:crypto';

/** A JSON value as it arrives in a webhook body. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/**
 * Shorter UTF-8 byte length first, then byte order (spec §6 step 1). Lone surrogates all encode as U+FFFD, so two
 * distinct keys can have equal bytes: UTF-16 order breaks that tie, as the service does.
 */
function compareKeys(a: string, b: string): number {
  const ab = Buffer.from(a, 'utf8');
  const bb = Buffer.from(b, 'utf8');
  return ab.length - bb.length || Buffer.compare(ab, bb) || (a < b ? -1 : a > b ? 1 : 0);
}

function finiteOnly(_key: string, value: unknown): unknown {
  if (typeof value === 'number' && !Number.isFinite(value)) throw new TypeError('payload contains a non-finite number');
  return value;
}

/**
 * The string spec §6 signs: the top-level keys sorted (shorter first, then UTF-8 byte order), compact JSON,
 * non-ASCII unescaped; nested values as `JSON.stringify` writes them. Throws TypeError for NaN or ±Infinity.
 */
export function canonicalJson(payload: Readonly<Record<string, JsonValue>>): string {
  const keys = Object.keys(payload).sort(compareKeys);
  return `{${keys.map((key) => `${JSON.stringify(key)}:${JSON.stringify(payload[key], finiteOnly)}`).join(',')}}`;
}

/** `sha256=` + hex HMAC-SHA256 of canonicalJson(payload), keyed by the secret's UTF-8 bytes (`X-Webhook-Signature`). */
export function specSignature(payload: Readonly<Record<string, JsonValue>>, secret: string): string {
  return `sha256=${createHmac('sha256', Buffer.from(secret, 'utf8')).update(canonicalJson(payload), 'utf8').digest('hex')}`;
}

/** The HMAC-SHA256 digest of `id.timestamp.body` keyed by the secret's UTF-8 bytes (a `v1,` entry, decoded). */
export function standardDigest(id: string, timestamp: string, body: string, secret: string): Buffer {
  return createHmac('sha256', Buffer.from(secret, 'utf8')).update(`${id}.${timestamp}.${body}`, 'utf8').digest();
}
