/**
 * Issue #24, end to end through the real `npm start` (a child process on free ports, a block every 100 ms): a user opts
 * into deposit events and automatic collection, a payer pays the sub-address with the faucet (a real devnet transfer),
 * and with no API call in between the receiver gets `deposit.confirmed` and then `collection.completed` for that
 * sub-address, each with both signatures valid.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifySpecSignature, verifyStandardWebhook } from '../../packages/client/src/webhooks.js';
import { startNpmStart, until, type NpmStart } from './npm-start-fixture.js';

const SECRET = 'whsec-deposit-e2e-secret';

describe('deposits through npm start: a payment, deposit.confirmed, the automatic collection, collection.completed', () => {
  let dev: NpmStart;
  beforeAll(async () => {
    dev = await startNpmStart('deposit');
  }, 90_000);
  afterAll(() => dev?.stop(), 20_000);

  it('with no API call between the payment and the end, both events arrive signed', async () => {
    const { api, events } = dev;
    const { token } = await dev.merchant('deposit-e2e', SECRET, {
      event_types: ['deposit.confirmed'], auto_collect: { USDT: { min_amount: '1000000', max_fee_sun: '100000000' } },
    });
    await api('POST', '/api/wallets', token, { network_code: 'TRON', address_type: 1 });
    const sub = await api('POST', '/api/wallets', token, { network_code: 'TRON', address_type: 2, address_label: 'order-1' });

    // The payer pays (a real devnet transfer); from here on only the receiver is watched.
    await api('POST', '/dev/faucet', null, { address: sub.address, asset_symbol: 'USDT', amount: '25000000' });
    const completed = await until('collection.completed', 120_000, () =>
      events().find(({ event }) => event['event_type'] === 'collection.completed' && event['address'] === sub.address));
    const deposit = events().find(({ event }) => event['event_type'] === 'deposit.confirmed' && event['address'] === sub.address);

    expect(deposit?.event).toMatchObject({ asset_symbol: 'USDT', amount: '25000000', network_code: 'TRON' });
    expect(completed.event).toMatchObject({ asset_symbol: 'USDT' });
    // The deposit was told before the collection ended, once (the main address's own TRX from the dev faucet is a
    // deposit of its own).
    expect(events().filter(({ event }) => event['event_type'] === 'deposit.confirmed' && event['address'] === sub.address)).toHaveLength(1);
    expect(deposit!.raw.at).toBeLessThanOrEqual(completed.raw.at);
    for (const { raw } of [deposit!, completed]) {
      expect(verifySpecSignature(raw.body, SECRET, raw.headers['x-webhook-signature'] as string | undefined)).toBe(true);
      expect(verifyStandardWebhook(raw.body, raw.headers, SECRET, { receivedAt: raw.at })).toMatchObject({ ok: true });
      expect(verifySpecSignature(raw.body.replace('USDT', 'TRX'), SECRET, raw.headers['x-webhook-signature'] as string | undefined)).toBe(false);
    }
  }, 180_000);
});
