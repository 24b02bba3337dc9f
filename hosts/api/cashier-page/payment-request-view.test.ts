import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PAGE_LANGUAGES } from './messages.js';
import { paymentRequestView, type PaymentRequestInput } from './payment-request-view.js';

const STATUSES = ['awaiting', 'partially_paid', 'paid', 'overpaid', 'expired', 'paid_late'] as const;
const OPEN: readonly string[] = ['awaiting', 'partially_paid'];
/** The sentences that ask the payer to send something. */
const ASKING = ['req_awaiting', 'req_partial', 'req_confirming_rest'];
const USDT = 1_000_000n;

const amount = fc.bigInt({ min: 1n, max: 10n ** 15n });
const part = fc.oneof(fc.constant(0n), fc.bigInt({ min: 0n, max: 10n ** 15n }));
const input = fc.record({ status: fc.constantFrom(...STATUSES), amount, received: part, confirming: part })
  .map((p): PaymentRequestInput => ({ status: p.status, amount: String(p.amount), received: String(p.received), confirming: String(p.confirming) }));
const taskStatus = fc.option(fc.integer({ min: 0, max: 12 }), { nil: null });
const leftOf = (p: PaymentRequestInput): bigint => {
  const left = BigInt(p.amount) - BigInt(p.received) - BigInt(p.confirming);
  return left > 0n ? left : 0n;
};

describe('paymentRequestView (issue #34: a payer page that cannot make anyone pay twice)', () => {
  it('asks for amount − received − confirming, only while the request is open and something is left; never 0, never negative', () => {
    fc.assert(fc.property(input, taskStatus, (p, task) => {
      const view = paymentRequestView(p, task);
      const left = leftOf(p);
      expect(view.pay).toBe(OPEN.includes(p.status) && left > 0n ? left.toString() : null);
      if (view.pay !== null) expect(BigInt(view.pay) > 0n && BigInt(view.pay) <= BigInt(p.amount) - BigInt(p.received)).toBe(true);
    }));
  });

  it('never asks to send while what is confirming covers the rest, nor on a request that is no longer open', () => {
    fc.assert(fc.property(input, taskStatus, (p, task) => {
      const view = paymentRequestView(p, task);
      const asks = view.lines.filter((l) => ASKING.includes(l.key));
      if (leftOf(p) === 0n || !OPEN.includes(p.status)) expect(asks).toEqual([]);
      else expect(asks).toHaveLength(1);
      // The sentence asks for the same amount as the box shows and "Copy amount" copies.
      for (const line of asks) expect(line.params['remaining'] ?? line.params['amount']).toBe(view.pay);
    }));
  });

  it('every amount it names is positive, and every sentence exists in each language with exactly its placeholders', () => {
    fc.assert(fc.property(input, taskStatus, (p, task) => {
      for (const line of paymentRequestView(p, task).lines) {
        for (const value of Object.values(line.params)) expect(BigInt(value) > 0n).toBe(true);
        for (const language of PAGE_LANGUAGES) {
          const text = (language.messages as Record<string, string>)[line.key];
          expect(text, `${language.tag} ${line.key}`).toBeDefined();
          expect([...text!.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort()).toEqual(Object.keys(line.params).sort());
        }
      }
    }));
  });

  it('the issue\'s page: 25 USDT asked, 10 confirmed and the missing 15 confirming, says "confirming" and asks for nothing', () => {
    const view = paymentRequestView({ status: 'partially_paid', amount: String(25n * USDT), received: String(10n * USDT), confirming: String(15n * USDT) }, null);
    expect(view).toEqual({
      phase: 'confirming', pay: null, amountLabel: 'amount_left',
      lines: [
        { key: 'req_received', params: { received: String(10n * USDT), amount: String(25n * USDT) } },
        { key: 'req_confirming_all', params: { confirming: String(15n * USDT) } },
      ],
    });
  });

  it('after a partial payment the amount asked is what is left, and only part of the rest confirming asks for the remainder', () => {
    const partial = paymentRequestView({ status: 'partially_paid', amount: '25000000', received: '10000000', confirming: '0' }, null);
    expect(partial).toMatchObject({ phase: 'below', pay: '15000000', amountLabel: 'amount_left' });
    const some = paymentRequestView({ status: 'partially_paid', amount: '25000000', received: '10000000', confirming: '5000000' }, null);
    expect(some).toMatchObject({ phase: 'below', pay: '10000000' });
    expect(some.lines.map((l) => l.key)).toEqual(['req_received', 'req_confirming_rest']);
  });

  it('paid and overpaid follow the forwarding task: sweeping, done (11), forward_failed (12)', () => {
    const paid = { status: 'overpaid', amount: '25000000', received: '27000000', confirming: '0' } as const;
    expect([null, 0, 11, 12].map((task) => paymentRequestView(paid, task).phase)).toEqual(['sweeping', 'sweeping', 'done', 'forward_failed']);
    expect(paymentRequestView(paid, 12).lines).toEqual([
      { key: 'req_overpaid', params: { excess: '2000000' } }, { key: 'req_paid_failed', params: {} },
    ]);
  });
});
