/**
 * The service signs webhooks with core/domain; @custody-hub/client/webhooks verifies them with its own copy of the
 * receiver's half (the package cannot import the server). This file is where the two meet: the service's signer
 * gives the known-answer vectors, and on random payloads, bodies and secrets whatever the service signs, the
 * package accepts, and both compute the same canonical JSON. The package's own tests cannot hold this check: they
 * never see the server.
 */
import { runs } from '../../../contracts-tests/support/depth.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../../../core/domain/model/webhook.js';
import { canonicalJson as serviceCanonicalJson, signPayload } from '../../../core/domain/signature.js';
import { signStandardWebhook, standardWebhookSignatures } from '../../../core/domain/standard-webhooks.js';
import { ROTATION_VECTOR, WEBHOOK_VECTORS } from '../../../packages/client/test/webhook-test-vectors.js';
import { canonicalJson, verifySpecSignature, verifyStandardWebhook } from '../../../packages/client/src/webhooks.js';

/** Keys that tell UTF-8 byte order from UTF-16 order, and lone surrogates (equal bytes once encoded). */
const keyArb = fc.oneof(fc.string({ unit: 'grapheme', maxLength: 12 }), fc.string({ unit: 'binary', maxLength: 3 }),
  fc.constantFrom('\uD800', '\uDC00', '😀', '\uFF61a', 'B', 'a', 'é', 'ab'));
const payloadArb = fc.dictionary(keyArb, fc.jsonValue({ maxDepth: 2 }).map((v) => v as JsonValue), { maxKeys: 12, noNullPrototype: true })
  .filter((p) => !Object.hasOwn(p, '__proto__'));
const secretArb = fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 });

describe('the service\'s webhook signer and @custody-hub/client/webhooks agree', () => {
  it('the service signs every known-answer vector as the package expects it', () => {
    for (const v of WEBHOOK_VECTORS) {
      const payload = JSON.parse(v.body) as Record<string, JsonValue>;
      expect(serviceCanonicalJson(payload), v.name).toBe(v.canonical);
      expect(signPayload(payload, v.secret), v.name).toBe(v.specSignature);
      expect(signStandardWebhook(v.id, v.timestamp, v.body, v.secret), v.name).toBe(v.standardSignature);
    }
    const [v] = WEBHOOK_VECTORS;
    expect(standardWebhookSignatures(v!.id, v!.timestamp, v!.body, [v!.secret, ROTATION_VECTOR.previousSecret]))
      .toBe(`${v!.standardSignature} ${ROTATION_VECTOR.standardSignature}`);
  });

  it('the same canonical JSON, and a spec signature the package accepts, for any payload and secret', () => {
    fc.assert(fc.property(payloadArb, secretArb, (payload, secret) => {
      expect(canonicalJson(payload)).toBe(serviceCanonicalJson(payload));
      const header = signPayload(payload, secret);
      expect(verifySpecSignature(payload, secret, header)).toBe(true);
      expect(verifySpecSignature(JSON.stringify(payload), secret, header)).toBe(true);
    }), { numRuns: runs(300) });
  });

  it('a Standard Webhooks header the package accepts under each secret in force, and only those', () => {
    fc.assert(fc.property(fc.string({ minLength: 1, maxLength: 40 }), fc.string({ unit: 'grapheme', maxLength: 200 }),
      fc.uniqueArray(secretArb, { minLength: 1, maxLength: 3 }), fc.integer({ min: 0, max: 4_000_000_000 }), (id, body, secrets, timestamp) => {
        const headers = { 'webhook-id': id, 'webhook-timestamp': String(timestamp), 'webhook-signature': standardWebhookSignatures(id, timestamp, body, secrets) };
        for (const secret of secrets) {
          expect(verifyStandardWebhook(body, headers, secret, { receivedAt: timestamp * 1000 })).toEqual({ ok: true, id, timestamp });
        }
        expect(verifyStandardWebhook(body, headers, `${secrets[0]!}x`, { receivedAt: timestamp * 1000 }).ok).toBe(secrets.includes(`${secrets[0]!}x`));
      }), { numRuns: runs(300) });
  });
});
