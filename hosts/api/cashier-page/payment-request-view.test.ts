import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PAGE_LANGUAGES } from './messages.js';
import { paymentRequestView, type PaymentRequestInput } from './payment-request-view.js';

const STATUSES = ['awaiting', 'partially_paid', 'paid', 'overpaid', 'expired', 'paid_late'] as const;
const OPEN: readonly string[] = ['awaiting', 'partially_paid'];
/** The sentences that ask the payer to send something. */
const ASKING = ['req_awaiting', 'req_partial', 'req_confirming_rest'];
const USDT = 1_000_000n;
const DEADLINE = Date.parse('2026-05-25T10:30:00Z');
const BEFORE = DEADLINE - 60_000;

const amount = fc.bigInt({ min: 1n, max: 10n ** 15n });
const part = fc.oneof(fc.constant(0n), fc.bigInt({ min: 0n, max: 10n ** 15n }));
const input = fc.record({ status: fc.constantFrom(...STATUSES), amount, received: part, confirming: part }).map((p): PaymentRequestInput => ({
  status: p.status, amount: String(p.amount), received: String(p.received), confirming: String(p.confirming), deadline: new Date(DEADLINE).toISOString(),
}));
/** The page's clock: before the deadline, at it, or after it. */
const now = fc.oneof(fc.constant(DEADLINE), fc.integer({ min: DEADLINE - 3_600_000, max: DEADLINE + 3_600_000 }));
const taskStatus = fc.option(fc.integer({ min: 0, max: 12 }), { nil: null });
const leftOf = (p: PaymentRequestInput): bigint => {
  const left = BigInt(p.amount) - BigInt(p.received) - BigInt(p.confirming);
  return left > 0n ? left : 0n;
};

/** The request: 25 USDT, nothing received. */
const request: PaymentRequestInput = { status: 'awaiting', amount: String(25n * USDT), received: '0', confirming: '0', deadline: new Date(DEADLINE).toISOString() };

describe('paymentRequestView (issue #34: a payer page that cannot make anyone pay twice)', () => {
  it('asks for amount − received − confirming, only while the request is open, before its deadline and something is left; never 0, never negative', () => {
    fc.assert(fc.property(input, taskStatus, now, (p, task, at) => {
      const view = paymentRequestView(p, task, at);
      const left = leftOf(p);
      expect(view.pay).toBe(OPEN.includes(p.status) && at < DEADLINE && left > 0n ? left.toString() : null);
      if (view.pay !== null) expect(BigInt(view.pay) > 0n && BigInt(view.pay) <= BigInt(p.amount) - BigInt(p.received)).toBe(true);
    }));
  });

  it('never asks to send while what is confirming covers the rest, nor past the deadline, nor on a request that is no longer open', () => {
    fc.assert(fc.property(input, taskStatus, now, (p, task, at) => {
      const view = paymentRequestView(p, task, at);
      const asks = view.lines.filter((l) => ASKING.includes(l.key));
      if (leftOf(p) === 0n || !OPEN.includes(p.status) || at >= DEADLINE) expect(asks).toEqual([]);
      else expect(asks).toHaveLength(1);
      // The sentence asks for the same amount as the box shows and "Copy amount" copies.
      for (const line of asks) expect(line.params['remaining'] ?? line.params['amount']).toBe(view.pay);
    }));
  });

  it('every amount it names is positive, and every sentence exists in each language with exactly its placeholders', () => {
    fc.assert(fc.property(input, taskStatus, now, (p, task, at) => {
      for (const line of paymentRequestView(p, task, at).lines) {
        for (const value of Object.values(line.params)) expect(BigInt(value) > 0n).toBe(true);
        for (const language of PAGE_LANGUAGES) {
          const text = (language.messages as Record<string, string>)[line.key];
          expect(text, `${language.tag} ${line.key}`).toBeDefined();
          expect([...text!.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort()).toEqual(Object.keys(line.params).sort());
        }
      }
    }));
  });

  it('at the deadline it stops asking before the server judges: "expired", or "do not send more" while a payment seen in time confirms', () => {
    const partial = { ...request, status: 'partially_paid', received: '10000000' } as const;
    expect(paymentRequestView(partial, null, DEADLINE)).toEqual({
      phase: 'expired', pay: null, amountLabel: 'amount_left', lines: [{ key: 'req_expired_partial', params: { received: '10000000', amount: '25000000' } }],
    });
    expect(paymentRequestView({ ...partial, confirming: '5000000' }, null, DEADLINE).lines.map((l) => l.key)).toEqual(['req_received', 'req_closing']);
    expect(paymentRequestView({ ...partial, confirming: '15000000' }, null, DEADLINE).lines.map((l) => l.key)).toEqual(['req_received', 'req_confirming_all']);
  });

  it('the issue\'s page: 25 USDT asked, 10 confirmed and the missing 15 confirming, says "confirming" and asks for nothing', () => {
    const view = paymentRequestView({ ...request, status: 'partially_paid', received: String(10n * USDT), confirming: String(15n * USDT) }, null, BEFORE);
    expect(view).toEqual({
      phase: 'confirming', pay: null, amountLabel: 'amount_left',
      lines: [
        { key: 'req_received', params: { received: String(10n * USDT), amount: String(25n * USDT) } },
        { key: 'req_confirming_all', params: { confirming: String(15n * USDT) } },
      ],
    });
  });

  it('after a partial payment the amount asked is what is left, and only part of the rest confirming asks for the remainder', () => {
    const partial = paymentRequestView({ ...request, status: 'partially_paid', received: '10000000' }, null, BEFORE);
    expect(partial).toMatchObject({ phase: 'below', pay: '15000000', amountLabel: 'amount_left' });
    const some = paymentRequestView({ ...request, status: 'partially_paid', received: '10000000', confirming: '5000000' }, null, BEFORE);
    expect(some).toMatchObject({ phase: 'below', pay: '10000000' });
    expect(some.lines.map((l) => l.key)).toEqual(['req_received', 'req_confirming_rest']);
  });

  it('paid and overpaid follow the forwarding task: sweeping, done (11), forward_failed (12)', () => {
    const paid = { ...request, status: 'overpaid', received: '27000000' } as const;
    expect([null, 0, 11, 12].map((task) => paymentRequestView(paid, task, BEFORE).phase)).toEqual(['sweeping', 'sweeping', 'done', 'forward_failed']);
    expect(paymentRequestView(paid, 12, BEFORE).lines).toEqual([
      { key: 'req_overpaid', params: { excess: '2000000' } }, { key: 'req_paid_failed', params: {} },
    ]);
  });
});
