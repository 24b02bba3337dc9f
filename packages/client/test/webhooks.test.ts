import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { canonicalJson, verifySpecSignature, verifyStandardWebhook } from '../src/webhooks.js';
import { ROTATION_VECTOR, WEBHOOK_VECTORS } from './webhook-test-vectors.js';

const [first] = WEBHOOK_VECTORS;
const v = first!;
const headersOf = (signature: string, over: Record<string, string> = {}) => ({
  'webhook-id': v.id, 'webhook-timestamp': String(v.timestamp), 'webhook-signature': signature, ...over,
});
const at = (seconds: number) => ({ receivedAt: seconds * 1000 });

describe('@custody-hub/client/webhooks against the known-answer vectors', () => {
  for (const vector of WEBHOOK_VECTORS) {
    it(`verifies ${vector.name}`, () => {
      const payload = JSON.parse(vector.body);
      expect(canonicalJson(payload)).toBe(vector.canonical);
      expect(verifySpecSignature(vector.body, vector.secret, vector.specSignature)).toBe(true);
      expect(verifySpecSignature(payload, vector.secret, vector.specSignature)).toBe(true);
      const headers = { 'webhook-id': vector.id, 'webhook-timestamp': String(vector.timestamp), 'webhook-signature': vector.standardSignature };
      expect(verifyStandardWebhook(vector.body, headers, vector.secret, at(vector.timestamp))).toEqual({ ok: true, id: vector.id, timestamp: vector.timestamp });
      expect(verifyStandardWebhook(new TextEncoder().encode(vector.body), new Headers(headers), vector.secret, at(vector.timestamp)).ok).toBe(true);
    });
  }

  it('spec signature: a wrong secret, a changed value or a malformed header is refused, never thrown', () => {
    expect(verifySpecSignature(v.body, 'wrong', v.specSignature)).toBe(false);
    expect(verifySpecSignature(v.body.replace('1500000', '1500001'), v.secret, v.specSignature)).toBe(false);
    expect(verifySpecSignature(v.body, v.secret, v.specSignature.toUpperCase())).toBe(false);
    expect(verifySpecSignature(v.body, v.secret, undefined)).toBe(false);
    expect(verifySpecSignature('not json', v.secret, v.specSignature)).toBe(false);
    expect(verifySpecSignature('[1]', v.secret, v.specSignature)).toBe(false);
    // Key order of the received body does not matter for the spec signature.
    const reordered = JSON.stringify(Object.fromEntries(Object.entries(JSON.parse(v.body)).reverse()));
    expect(verifySpecSignature(reordered, v.secret, v.specSignature)).toBe(true);
  });

  it('Standard Webhooks: the exact bytes count, and the timestamp is bound to the signature', () => {
    const ok = verifyStandardWebhook(v.body, headersOf(v.standardSignature), v.secret, at(v.timestamp));
    expect(ok.ok).toBe(true);
    expect(verifyStandardWebhook(`${v.body} `, headersOf(v.standardSignature), v.secret, at(v.timestamp)))
      .toEqual({ ok: false, reason: 'no-matching-signature' });
    const reordered = JSON.stringify(Object.fromEntries(Object.entries(JSON.parse(v.body)).reverse()));
    expect(verifyStandardWebhook(reordered, headersOf(v.standardSignature), v.secret, at(v.timestamp)).ok).toBe(false);
    // A replay with a fresh timestamp header does not match the old signature.
    const moved = headersOf(v.standardSignature, { 'webhook-timestamp': String(v.timestamp + 1) });
    expect(verifyStandardWebhook(v.body, moved, v.secret, at(v.timestamp + 1)).ok).toBe(false);
    expect(verifyStandardWebhook(v.body, headersOf(v.standardSignature, { 'webhook-id': 'other' }), v.secret, at(v.timestamp)).ok).toBe(false);
    expect(verifyStandardWebhook(v.body, headersOf(v.standardSignature), 'wrong', at(v.timestamp)).ok).toBe(false);
  });

  it('Standard Webhooks: tolerance 300 s by default, either way; configurable; missing or bad headers', () => {
    const h = headersOf(v.standardSignature);
    expect(verifyStandardWebhook(v.body, h, v.secret, at(v.timestamp + 300)).ok).toBe(true);
    expect(verifyStandardWebhook(v.body, h, v.secret, at(v.timestamp - 300)).ok).toBe(true);
    expect(verifyStandardWebhook(v.body, h, v.secret, at(v.timestamp + 301))).toEqual({ ok: false, reason: 'timestamp-outside-tolerance' });
    expect(verifyStandardWebhook(v.body, h, v.secret, at(v.timestamp - 301))).toEqual({ ok: false, reason: 'timestamp-outside-tolerance' });
    expect(verifyStandardWebhook(v.body, h, v.secret, { receivedAt: (v.timestamp + 30) * 1000, toleranceSeconds: 10 }).ok).toBe(false);
    const { 'webhook-id': _id, ...noId } = h;
    expect(verifyStandardWebhook(v.body, noId, v.secret, at(v.timestamp))).toEqual({ ok: false, reason: 'missing-headers' });
    expect(verifyStandardWebhook(v.body, { ...h, 'webhook-timestamp': '17e8' }, v.secret, at(v.timestamp))).toEqual({ ok: false, reason: 'bad-timestamp' });
    expect(verifyStandardWebhook(v.body, { ...h, 'webhook-signature': 'v1,###' }, v.secret, at(v.timestamp)).ok).toBe(false);
    expect(verifyStandardWebhook(v.body, { 'Webhook-Id': v.id, 'WEBHOOK-TIMESTAMP': String(v.timestamp), 'webhook-signature': v.standardSignature }, v.secret, at(v.timestamp)).ok).toBe(true);
  });

  it('rotation: either secret verifies while both entries are sent; a receiver may hold both secrets', () => {
    const both = `${v.standardSignature} ${ROTATION_VECTOR.standardSignature}`;
    expect(verifyStandardWebhook(v.body, headersOf(both), v.secret, at(v.timestamp)).ok).toBe(true);
    expect(verifyStandardWebhook(v.body, headersOf(both), ROTATION_VECTOR.previousSecret, at(v.timestamp)).ok).toBe(true);
    expect(verifyStandardWebhook(v.body, headersOf(v.standardSignature), ['old', v.secret], at(v.timestamp)).ok).toBe(true);
    expect(verifyStandardWebhook(v.body, headersOf(`v2,xyz ${v.standardSignature}`), v.secret, at(v.timestamp)).ok).toBe(true);
  });

  it('is what the package exports as @custody-hub/client/webhooks (its build under dist/)', () => {
    const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { exports: Record<string, Record<string, string>> };
    expect(manifest.exports['./webhooks']).toEqual({ types: './dist/webhooks.d.ts', default: './dist/webhooks.js' });
  });
});
