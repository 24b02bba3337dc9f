import { createHmac } from 'node:crypto';
import { Buffer } from 'node:buffer';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { JsonValue } from './model/webhook.js';
import { canonicalJson, signPayload, verifySignature } from './signature.js';

/** HMAC-SHA256 of a hand-written string, computed here with node:crypto (not through the code under test). */
function expectedHeader(canonical: string, secret: string): string {
  return `sha256=${createHmac('sha256', secret).update(Buffer.from(canonical, 'utf8')).digest('hex')}`;
}

/** Spec §6 step 1 as a comparator: shorter (UTF-8 bytes) first, then byte order (code units when bytes tie). */
function specOrder(a: string, b: string): boolean {
  const ab = Buffer.from(a, 'utf8');
  const bb = Buffer.from(b, 'utf8');
  const bytes = Buffer.compare(ab, bb);
  return ab.length < bb.length || (ab.length === bb.length && (bytes < 0 || (bytes === 0 && a < b)));
}

/** Payloads as webhook events have them: a flat record of JSON values (objects and arrays allowed as values). */
/** Keys that tell byte order from UTF-16 order, and lone surrogates (equal bytes once encoded). */
const trickyKeyArb = fc.constantFrom('\uD800', '\uD801', '\uDC00', '😀', '\uFF61a', 'B', 'a', 'é', 'ab');
const keyArb = fc.oneof(fc.string({ unit: 'grapheme', maxLength: 12 }), fc.string({ unit: 'binary', maxLength: 3 }), trickyKeyArb);
const payloadArb = fc.dictionary(keyArb, fc.jsonValue({ maxDepth: 2 }).map((v) => v as JsonValue), { maxKeys: 12, noNullPrototype: true })
  .filter((p) => !Object.hasOwn(p, '__proto__'));

/** The same entries inserted in another order. */
function reordered(payload: Record<string, JsonValue>, order: readonly number[]): Record<string, JsonValue> {
  const entries = Object.entries(payload);
  const out: Record<string, JsonValue> = {};
  for (const i of order) {
    const entry = entries[i];
    if (entry !== undefined) out[entry[0]] = entry[1];
  }
  return out;
}

describe('canonicalJson (spec §6 steps 1-2)', () => {
  it('matches a hand-written canonical string: keys by length then byte order, compact, non-ASCII unescaped', () => {
    const payload = {
      event_type: 'collection.completed', address: 'TXYZ', a: 1, bb: null, note: 'Zahlung für 付款 ✓ — ok',
      nested: { z: 1, a: [true, 'x'] }, B: 'upper', event_id: 'e1',
    };
    // B (0x42) before a (0x61): byte order, not case-insensitive.
    const hand = '{"B":"upper","a":1,"bb":null,"note":"Zahlung für 付款 ✓ — ok","nested":{"z":1,"a":[true,"x"]},'
      + '"address":"TXYZ","event_id":"e1","event_type":"collection.completed"}';
    expect(canonicalJson(payload)).toBe(hand);
  });

  it('orders same-length keys by UTF-8 bytes, not by UTF-16 code units', () => {
    // U+FF61 + "a" is EF BD A1 61, the emoji F0 9F 98 80: both 4 bytes, U+FF61 first by bytes
    // (a JavaScript sort would put the emoji's surrogate 0xD83D first).
    expect(canonicalJson({ '😀': 1, '\uFF61a': 2 })).toBe('{"\uFF61a":2,"😀":1}');
  });

  it('orders keys whose UTF-8 bytes are equal (lone surrogates) by code units, whatever the insertion order', () => {
    // Both lone surrogates encode as EF BF BD; without a tie-break the order would be the insertion order.
    const text = '{"\\ud800":1,"\\ud801":2}';
    expect(canonicalJson({ '\uD800': 1, '\uD801': 2 })).toBe(text);
    expect(canonicalJson({ '\uD801': 2, '\uD800': 1 })).toBe(text);
  });

  it('escapes only what JSON must: quotes, backslashes and control characters; "/" and U+2028 stay raw', () => {
    expect(canonicalJson({ k: 'a"b\\c\n/\u2028é' })).toBe('{"k":"a\\"b\\\\c\\n/\u2028é"}');
  });

  it('refuses non-finite numbers anywhere', () => {
    expect(() => canonicalJson({ a: Number.NaN })).toThrow(TypeError);
    expect(() => canonicalJson({ a: [1, { b: Number.POSITIVE_INFINITY }] })).toThrow(TypeError);
  });

  it('parses back to the same value', () => {
    fc.assert(fc.property(payloadArb, (payload) => {
      // JSON has no -0: the only value that does not come back as itself, through JSON.stringify just the same.
      const asJson = JSON.parse(JSON.stringify(payload)) as unknown;
      expect(JSON.parse(canonicalJson(payload))).toStrictEqual(asJson);
    }));
  });

  it('lists the top-level keys in spec order with no whitespace between members', () => {
    fc.assert(fc.property(fc.uniqueArray(fc.oneof(fc.string({ unit: 'binary', maxLength: 4 }), trickyKeyArb), { maxLength: 10 }), (keys) => {
      fc.pre(!keys.includes('__proto__'));
      // Distinct integer values make each member findable: `,"key":7,` cannot occur inside an encoded string.
      const payload = Object.fromEntries(keys.map((k, i) => [k, i]));
      const text = canonicalJson(payload);
      const positions = keys.map((k, i) => {
        const member = `${JSON.stringify(k)}:${i}`;
        const at = [`{${member},`, `{${member}}`, `,${member},`, `,${member}}`].map((m) => text.indexOf(m)).find((p) => p >= 0);
        expect(at, `member ${member} in ${text}`).toBeDefined();
        return { key: k, at: at! };
      });
      const order = positions.sort((x, y) => x.at - y.at).map((p) => p.key);
      for (let i = 1; i < order.length; i += 1) expect(specOrder(order[i - 1]!, order[i]!)).toBe(true);
      expect(text.length).toBe(2 + keys.reduce((n, k, i) => n + JSON.stringify(k).length + 1 + String(i).length, 0)
        + Math.max(0, keys.length - 1));
    }));
  });
});

describe('signPayload / verifySignature (spec §6 step 3)', () => {
  it('known vector: HMAC-SHA256 hex of the canonical string with the sha256= prefix', () => {
    const payload = {
      event_type: 'collection.completed', event_id: 'e1', task_no: 'T1', status: 11, error: null, address: 'Tä',
    };
    const canonical = '{"error":null,"status":11,"address":"Tä","task_no":"T1","event_id":"e1","event_type":"collection.completed"}';
    const header = expectedHeader(canonical, 'test_secret');
    expect(header).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(signPayload(payload, 'test_secret')).toBe(header);
    expect(verifySignature(payload, 'test_secret', header)).toBe(true);
  });

  it('the documented known answer of signature.ts holds', () => {
    const payload = { event_type: 'collection.completed', event_id: 'e1', task_no: 'T1', status: 11, error: null };
    const canonical = '{"error":null,"status":11,"task_no":"T1","event_id":"e1","event_type":"collection.completed"}';
    expect(expectedHeader(canonical, 'test_secret'))
      .toBe('sha256=cbbabb8493eec68c0994a7f5fb3c983caa9d247f8342bec8954ea37a19e40cf3');
    expect(signPayload(payload, 'test_secret')).toBe(expectedHeader(canonical, 'test_secret'));
  });

  it('the secret is used as UTF-8 bytes', () => {
    const canonical = '{"a":"ü"}';
    expect(signPayload({ a: 'ü' }, 'sécret✓')).toBe(expectedHeader(canonical, 'sécret✓'));
  });

  it('does not depend on the insertion order of the keys', () => {
    fc.assert(fc.property(payloadArb, fc.string(), fc.infiniteStream(fc.nat()), (payload, secret, rnd) => {
      const n = Object.keys(payload).length;
      const order = [...Array(n).keys()];
      const it = rnd[Symbol.iterator]();
      for (let i = n - 1; i > 0; i -= 1) {
        const j = it.next().value! % (i + 1);
        [order[i], order[j]] = [order[j]!, order[i]!];
      }
      expect(signPayload(reordered(payload, order), secret)).toBe(signPayload(payload, secret));
    }));
  });

  it('verify accepts the right signature and rejects every single-character change of it', () => {
    fc.assert(fc.property(payloadArb, fc.string({ minLength: 1 }), fc.nat(), fc.string({ minLength: 1, maxLength: 1 }), (payload, secret, pos, ch) => {
      const header = signPayload(payload, secret);
      expect(verifySignature(payload, secret, header)).toBe(true);
      const i = pos % header.length;
      fc.pre(header[i] !== ch);
      const changed = header.slice(0, i) + ch + header.slice(i + 1);
      expect(verifySignature(payload, secret, changed)).toBe(false);
    }));
  });

  it('verify rejects another secret, a changed value, and malformed headers without throwing', () => {
    fc.assert(fc.property(payloadArb, fc.string(), fc.string(), (payload, secret, other) => {
      fc.pre(secret !== other);
      const header = signPayload(payload, secret);
      expect(verifySignature(payload, other, header)).toBe(false);
      expect(verifySignature({ ...payload, __changed: 1 }, secret, header)).toBe(false);
      expect(verifySignature(payload, secret, header.toUpperCase())).toBe(false);
      expect(verifySignature(payload, secret, header.slice('sha256='.length))).toBe(false);
      expect(verifySignature(payload, secret, `${header} `)).toBe(false);
    }));
    expect(verifySignature({ a: Number.NaN }, 's', `sha256=${'0'.repeat(64)}`)).toBe(false);
  });
});
