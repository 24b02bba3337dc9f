/**
 * Issue #25, end to end through the real `npm start` (a child process on free ports, a block every 100 ms): a merchant
 * makes a payment request for 25 USDT, the payer pays 10 and then 15 with the faucet (real devnet transfers), and with
 * no call that starts anything the receiver gets `payment.paid`, the request's collection starts by itself (seen on the
 * payer's session), and `collection.completed` follows, each event with both signatures valid.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifySpecSignature, verifyStandardWebhook } from '../../packages/client/src/webhooks.js';
import { startNpmStart, until, type NpmStart } from './npm-start-fixture.js';

const SECRET = 'whsec-payment-e2e-secret';

describe('payment requests through npm start: 25 USDT asked, 10 then 15 paid, payment.paid, the collection by itself, collection.completed', () => {
  let dev: NpmStart;
  beforeAll(async () => {
    dev = await startNpmStart('payment');
  }, 90_000);
  afterAll(() => dev?.stop(), 20_000);

  it('pay 10 then 15: partially paid, then payment.paid and the collection starts with no call, then collection.completed', async () => {
    const { api, events } = dev;
    // No auto_collect: the collection that follows is the paid request's own.
    const { token } = await dev.merchant('payment-e2e', SECRET, {
      display_name: 'Acme Store', event_types: ['payment.paid', 'payment.expired', 'payment.paid_late'],
    });
    await api('POST', '/api/wallets', token, { network_code: 'TRON', address_type: 1 });
    const sub = await api('POST', '/api/wallets', token, { network_code: 'TRON', address_type: 2 });
    const request = await api('POST', '/api/cashier/tokens', token, {
      address: sub.address, amount: '25000000', asset_symbol: 'USDT', reference: 'order-2501', pay_within_minutes: 30,
    });
    expect(request.payment).toMatchObject({ status: 'awaiting', amount: '25000000', remaining: '25000000' });
    const payer = request.token as string;

    // The payer pays 10 (a real devnet transfer); the payer's session (a read) shows it once confirmed.
    await api('POST', '/dev/faucet', null, { address: sub.address, asset_symbol: 'USDT', amount: '10000000' });
    const partial = await until('partially_paid', 120_000, async () => {
      const s = await api('GET', '/api/cashier/session', payer);
      return s.payment.status === 'partially_paid' ? s : undefined;
    });
    expect(partial.payment).toMatchObject({ received: '10000000', remaining: '15000000', merchant_name: 'Acme Store' });
    expect(partial.active_task).toBeNull();

    // The rest; from here on only the receiver and reads are watched.
    await api('POST', '/dev/faucet', null, { address: sub.address, asset_symbol: 'USDT', amount: '15000000' });
    const paid = await until('payment.paid', 120_000, () =>
      events().find(({ event }) => event['event_type'] === 'payment.paid' && event['address'] === sub.address));
    expect(paid.event).toMatchObject({
      token_no: request.token_no, reference: 'order-2501', asset_symbol: 'USDT', amount: '25000000', received: '25000000',
      remaining: '0', status: 'paid',
    });
    const started = await until('the collection to start', 60_000, async () => {
      const s = await api('GET', '/api/cashier/session', payer);
      return s.active_task === null ? undefined : s;
    });
    expect(started.payment.status).toBe('paid');
    const completed = await until('collection.completed', 120_000, () =>
      events().find(({ event }) => event['event_type'] === 'collection.completed' && event['address'] === sub.address));
    expect(completed.event).toMatchObject({ asset_symbol: 'USDT', task_no: started.active_task.task_no, swept_amount: 25000000 });
    expect(events().filter(({ event }) => event['event_type'] === 'payment.paid')).toHaveLength(1);
    expect(events().filter(({ event }) => String(event['event_type']).startsWith('payment.') && event['event_type'] !== 'payment.paid')).toEqual([]);
    expect(paid.raw.at).toBeLessThanOrEqual(completed.raw.at);
    for (const { raw } of [paid, completed]) {
      expect(verifySpecSignature(raw.body, SECRET, raw.headers['x-webhook-signature'] as string | undefined)).toBe(true);
      expect(verifyStandardWebhook(raw.body, raw.headers, SECRET, { receivedAt: raw.at })).toMatchObject({ ok: true });
      expect(verifySpecSignature(raw.body.replace('USDT', 'TRX'), SECRET, raw.headers['x-webhook-signature'] as string | undefined)).toBe(false);
    }
    // Only one collection was made: the task the session shows is the sub-address's only one.
    const commands = await api('GET', '/api/commands?per_page=100', token);
    expect(commands.items.filter((c: { type: number }) => c.type === 3)).toHaveLength(1);
  }, 240_000);
});
