import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Devnet } from './index.js';
import { startTestDevnet, trx, wallet, type Wallet } from './test-helpers.js';

describe('energy rental desk', () => {
  let devnet: Devnet;
  let user: Wallet;
  const call = async (method: string, path: string, body?: unknown) => {
    const r = await fetch(devnet.url + path, { method, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: r.status, body: (await r.json()) as Record<string, unknown> };
  };
  beforeAll(async () => {
    devnet = await startTestDevnet();
    user = wallet(devnet, 'renter');
    devnet.fund(user.address, trx(5));
    devnet.fundToken(user.address, 10_000_000n);
  });
  afterAll(() => devnet.close());

  it('quotes, takes idempotent orders and delivers energy by delegation in the next block', async () => {
    const q = await call('POST', '/rental/quote', { receiver: user.address, energy: 65_000, duration_hours: 1 });
    expect(q.body['price_sun']).toBe(65_000 * 37);
    const order = await call('POST', '/rental/order', { receiver: user.address, energy: 65_000, duration_hours: 1, reference: 'ref-1' });
    expect(order.status).toBe(201);
    const again = await call('POST', '/rental/order', { receiver: user.address, energy: 65_000, duration_hours: 1, reference: 'ref-1' });
    expect(again.status).toBe(200);
    expect(again.body['id']).toBe(order.body['id']);
    const clash = await call('POST', '/rental/order', { receiver: user.address, energy: 1, duration_hours: 1, reference: 'ref-1' });
    expect(clash.status).toBe(409);
    expect((await call('GET', `/rental/order?id=${order.body['id']}`)).body['status']).toBe('pending');
    devnet.mine(1);
    const done = (await call('GET', `/rental/order?id=${order.body['id']}`)).body;
    expect(done['status']).toBe('delivered');
    const info = await user.tw.trx.getUnconfirmedTransactionInfo(String(done['delivery_txid']));
    expect(info.blockNumber).toBe(devnet.chain.head.number);
    expect((await user.tw.trx.getAccountResources(user.address)).EnergyLimit).toBeGreaterThanOrEqual(65_000);
    // The rented energy pays for a USDT transfer to a holder: nothing burned for energy.
    const shop = wallet(devnet, 'shop');
    devnet.fundToken(shop.address, 1n);
    const usdt = await user.tw.contract().at(devnet.usdtAddress);
    const txid: string = await usdt.methods.transfer(shop.address, 1).send({ feeLimit: trx(20) });
    devnet.mine(1);
    const t = await user.tw.trx.getUnconfirmedTransactionInfo(txid);
    expect(t.receipt.energy_usage).toBe(64_285);
    expect(t.receipt.energy_fee).toBeUndefined();
  });

  it('reclaims the stake when the rental expires, and fails orders for inactive receivers', async () => {
    devnet.advance(3_600_000 + 3_000);
    expect((await user.tw.trx.getAccountResources(user.address)).EnergyLimit).toBeUndefined();
    const ghost = wallet(devnet, 'inactive');
    const o = await call('POST', '/rental/order', { receiver: ghost.address, energy: 40_000, duration_hours: 2, reference: 'ref-2' });
    devnet.mine(1);
    const st = (await call('GET', `/rental/order?id=${o.body['id']}`)).body;
    expect(st['status']).toBe('failed');
    expect(String(st['error'])).toContain('not exists');
    expect((await call('GET', '/rental/order?id=nope')).status).toBe(404);
  });
});
