import { createHmac } from 'node:crypto';
import { Buffer } from 'node:buffer';

/**
 * The Standard Webhooks signature (an extension beside spec §6's; docs/decisions.md 67): `v1,` + base64
 * HMAC-SHA256 of `<webhook-id>.<webhook-timestamp>.<body>` over the exact bytes sent. The HMAC key is the UTF-8 bytes
 * of the webhook_secret, the same key as the spec's `X-Webhook-Signature` (a Standard Webhooks library takes it as
 * `whsec_` + base64 of those bytes).
 * Known answer (checked with `printf 'e1.1700000000.{"a":1}' | openssl dgst -sha256 -hmac test_secret -binary | base64`,
 * asserted in standard-webhooks.test.ts): signStandardWebhook('e1', 1700000000, '{"a":1}', 'test_secret') gives
 * 'v1,+izqTdmXoZ7W3fAyVyLUnIwsIbKfAF0Lvoyk5kuGnlo='.
 */
export function signStandardWebhook(id: string, timestampSeconds: number | string, body: string, secret: string): string {
  const content = `${id}.${timestampSeconds}.${body}`;
  return `v1,${createHmac('sha256', Buffer.from(secret, 'utf8')).update(content, 'utf8').digest('base64')}`;
}

/**
 * The `webhook-signature` header: one space-separated `v1,…` entry per secret in force, the newest first (during a
 * rotation's 24 h overlap, the previous secret's signature follows the new one's).
 */
export function standardWebhookSignatures(id: string, timestampSeconds: number, body: string, secrets: readonly string[]): string {
  return secrets.map((secret) => signStandardWebhook(id, timestampSeconds, body, secret)).join(' ');
}
