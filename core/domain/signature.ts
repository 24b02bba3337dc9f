import { createHmac, timingSafeEqual } from 'node:crypto';
import { Buffer } from 'node:buffer';
import type { JsonValue } from './model/webhook.js';

/**
 * Shorter UTF-8 byte length first, then byte order (spec §6 step 1; like PHP's strlen then strcmp). Lone surrogates
 * all encode as U+FFFD, so two distinct keys can have equal bytes: UTF-16 order breaks that tie, else the order (and
 * the signature) would follow insertion order.
 */
function compareKeys(a: string, b: string): number {
  const ab = Buffer.from(a, 'utf8');
  const bb = Buffer.from(b, 'utf8');
  return ab.length - bb.length || Buffer.compare(ab, bb) || (a < b ? -1 : a > b ? 1 : 0);
}

/** Non-finite numbers would silently become `null` in JSON and break the signature's meaning: refuse them. */
function finiteOnly(_key: string, value: unknown): unknown {
  if (typeof value === 'number' && !Number.isFinite(value)) throw new TypeError('payload contains a non-finite number');
  return value;
}

/**
 * The signed string of spec §6: top-level keys sorted (shorter first, then UTF-8 byte order), compact JSON,
 * non-ASCII unescaped.
 * - Only the top level is sorted, as the spec says; nested objects keep their insertion order — except that
 *   JavaScript always lists integer-like keys ("0", "42") first, ascending. Event payloads have no nested objects.
 * - `JSON.stringify` leaves non-ASCII (U+2028/U+2029 too) unescaped and does not escape `/`; it escapes control
 *   characters below U+0020, `"` and `\`, and writes a lone surrogate as a `\udXXX` escape (it has no UTF-8 form).
 * - Throws TypeError for NaN or ±Infinity anywhere in the payload.
 */
export function canonicalJson(payload: Readonly<Record<string, JsonValue>>): string {
  const keys = Object.keys(payload).sort(compareKeys);
  const members = keys.map((key) => `${JSON.stringify(key)}:${JSON.stringify(payload[key], finiteOnly)}`);
  return `{${members.join(',')}}`;
}

/** The `X-Webhook-Signature` header value. */
const HEADER = /^sha256=[0-9a-f]{64}$/;

/**
 * `sha256=` + lowercase hex HMAC-SHA256 of canonicalJson(payload) keyed by the webhook secret (UTF-8).
 * Known answer (checked with `openssl dgst -sha256 -hmac test_secret`, asserted in signature.test.ts):
 * signPayload({ event_type: 'collection.completed', event_id: 'e1', task_no: 'T1', status: 11, error: null }, 'test_secret')
 * signs `{"error":null,"status":11,"task_no":"T1","event_id":"e1","event_type":"collection.completed"}` and gives
 * 'sha256=cbbabb8493eec68c0994a7f5fb3c983caa9d247f8342bec8954ea37a19e40cf3'.
 */
export function signPayload(payload: Readonly<Record<string, JsonValue>>, secret: string): string {
  return `sha256=${createHmac('sha256', secret).update(canonicalJson(payload), 'utf8').digest('hex')}`;
}

/**
 * Checks a received header against the payload, in constant time over the digest. False (never throws) for a
 * malformed header, a wrong length, or a payload that cannot be canonicalised.
 */
export function verifySignature(payload: Readonly<Record<string, JsonValue>>, secret: string, header: string): boolean {
  if (typeof header !== 'string' || !HEADER.test(header)) return false;
  let expected: string;
  try {
    expected = signPayload(payload, secret);
  } catch {
    return false;
  }
  const a = Buffer.from(expected, 'utf8');
  const b = Buffer.from(header, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}
