import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { countedRefunds, refundRefusal } from './refund-rules.js';

const amount = fc.bigInt({ min: 1n, max: 10n ** 20n });

describe('refunds of a payment request (issue #36 item 4)', () => {
  it('any sequence of accepted refunds never gives back more than was received, and fills it exactly when asked to', () => {
    fc.assert(fc.property(fc.bigInt({ min: 0n, max: 10n ** 20n }), fc.array(amount, { maxLength: 12 }), (received, asks) => {
      let refunded = 0n;
      for (const ask of asks) {
        const refusal = refundRefusal(received, refunded, ask);
        if (received === 0n) expect(refusal).toBe('REFUND-PAYMENT-UNPAID');
        else expect(refusal === null).toBe(refunded + ask <= received);
        if (refusal === null) refunded += ask;
      }
      expect(refunded <= received).toBe(true);
      // What is left can always be refunded in one more, and not a unit more.
      if (received > refunded) {
        expect(refundRefusal(received, refunded, received - refunded)).toBeNull();
        expect(refundRefusal(received, refunded, received - refunded + 1n)).toBe('REFUND-EXCEEDS-RECEIVED');
      }
    }));
  });

  it('a refund that ended without paying (FAILED, REJECTED) stops counting; every other counts', () => {
    fc.assert(fc.property(fc.array(fc.record({ amount, ended: fc.boolean() }), { maxLength: 8 }), (made) => {
      const refunds = made.map((m, i) => ({ commandNo: `C${i}`, amount: m.amount, requestedAt: i }));
      const ended = new Set(made.flatMap((m, i) => (m.ended ? [`C${i}`] : [])));
      expect(countedRefunds(refunds, (no) => ended.has(no))).toBe(made.filter((m) => !m.ended).reduce((s, m) => s + m.amount, 0n));
    }));
  });
});
