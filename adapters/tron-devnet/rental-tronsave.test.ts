/**
 * The TronSave simulation at the wire: the documented paths, envelope, error bodies and codes, payment and refund
 * from the internal balance, partial fills from a short market, delivery by the rental pool and the reclaim at the
 * end of durationSec (docs/rental-providers.md lists the facts and the pages they come from).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Devnet } from './index.js';
import { DEVNET_TRONSAVE_API_KEY, tronSavePayout } from './rental-tronsave.js';
import { startTestDevnet, trx, wallet } from './test-helpers.js';

type Body = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe('TronSave simulation', () => {
  let devnet: Devnet;
  let receiver: string;
  const call = async (method: 'GET' | 'POST', path: string, body?: unknown, apikey: string | null = DEVNET_TRONSAVE_API_KEY) => {
    const r = await fetch(devnet.url + path, {
      method, headers: { 'content-type': 'application/json', ...(apikey === null ? {} : { apikey }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: r.status, body: (await r.json()) as Body };
  };
  const buy = (extra: Body = {}, options: Body = {}) =>
    call('POST', '/v2/buy-resource', { resourceType: 'ENERGY', receiver, resourceAmount: 65_000, durationSec: 3_600, unitPrice: 'MEDIUM', options, ...extra });
  const balance = () => devnet.tronsave.balanceOf(DEVNET_TRONSAVE_API_KEY)!;

  beforeEach(async () => {
    devnet = await startTestDevnet({ seed: 'tronsave-sim' });
    receiver = wallet(devnet, 'tronsave-receiver').address;
    devnet.fund(receiver, trx(1));
  });
  afterEach(() => devnet.close());

  it('answers a missing or unknown apikey with 401 TSAS:106 / TSAS:107 on every endpoint', async () => {
    for (const [method, path] of [['POST', '/v2/buy-resource'], ['POST', '/v2/order-book/estimate-buy-resource'], ['GET', '/v2/order/x'], ['GET', '/v2/orders'], ['GET', '/v2/user-info']] as const) {
      expect(await call(method, path, method === 'POST' ? {} : undefined, null)).toEqual({ status: 401, body: { error: true, message: 'TSAS:106 API_KEY_REQUIRED', data: null } });
      expect(await call(method, path, method === 'POST' ? {} : undefined, 'wrong')).toEqual({ status: 401, body: { error: true, message: 'TSAS:107 INVALID_API_KEY', data: null } });
    }
  });

  it('estimates in the documented shape, prices a day or more per day, and validates like the API', async () => {
    const est = await call('POST', '/v2/order-book/estimate-buy-resource', { receiver, resourceAmount: 65_000, durationSec: 3_600 });
    expect(est).toEqual({ status: 200, body: { error: false, message: 'Success', data: { unitPrice: 40, durationSec: 3_600, estimateTrx: 2_600_000, availableResource: 65_000 } } });
    expect(tronSavePayout(64, 32_000, 259_200)).toBe(6_144_000n); // the estimate page's example: 3 days
    expect(tronSavePayout(90, 32_000, 300)).toBe(2_880_000n); // the order-details example: 5 minutes
    expect((await call('POST', '/v2/order-book/estimate-buy-resource', { receiver })).body)
      .toEqual({ statusCode: 400, code: 'FST_ERR_VALIDATION', error: 'Bad Request', message: "body must have required property 'resourceAmount'" });
    expect((await buy({ resourceAmount: 31_999 })).body).toEqual({ error: true, message: 'TSAS:400 INVALID_PARAMS', data: null });
    expect((await buy({ receiver: 'nobody' })).body.message).toBe('TSAS:400 INVALID_PARAMS');
    expect((await buy({ unitPrice: 29 })).body.message).toBe('TSAS:400 MIN_PRICE_INVALID');
    expect((await buy({}, { maxPriceAccepted: 39 })).body.message).toBe('TSAS:400 PRICE_EXCEED_MAX_PRICE_REQUIRED');
  });

  it('takes payment at the order, delivers by pool delegation, and takes the stake back after durationSec', async () => {
    const before = balance();
    const order = await buy();
    expect(order).toEqual({ status: 201, body: { error: false, message: 'Success', data: { orderId: expect.stringMatching(/^[0-9a-f]{24}$/) } } });
    expect(before - balance()).toBe(2_600_000n);
    const id = order.body.data.orderId as string;
    expect((await call('GET', `/v2/order/${id}`)).body.data).toMatchObject({ fulfilledPercent: 0, remainAmount: 65_000, delegates: [] });
    devnet.mine(1);
    const done = (await call('GET', `/v2/order/${id}`)).body.data;
    expect(done).toMatchObject({
      id, receiver, resourceAmount: 65_000, resourceType: 'ENERGY', remainAmount: 0, price: 40, durationSec: 3_600, orderType: 'NORMAL',
      allowPartialFill: false, payoutAmount: 2_600_000, fulfilledPercent: 100, delegates: [{ amount: 65_000, txid: expect.any(String) }],
    });
    expect(done).not.toHaveProperty('status');
    const tw = wallet(devnet, 'tronsave-receiver').tw;
    expect((await tw.trx.getUnconfirmedTransactionInfo(done.delegates[0].txid)).blockNumber).toBe(devnet.chain.head.number);
    expect((await tw.trx.getAccountResources(receiver)).EnergyLimit).toBeGreaterThanOrEqual(65_000);
    devnet.advance(3_600_000 + 3_000);
    expect((await tw.trx.getAccountResources(receiver)).EnergyLimit).toBeUndefined();
  });

  it('fills part of an order from a short market when allowed, refuses it otherwise, and lists orders newest first', async () => {
    devnet.tronsave.configure({ supply: 20_000 });
    expect((await buy({}, { onlyCreateWhenFulfilled: true })).body.message).toBe('TSAS:400 CANNOT_FULFILLED');
    const partial = (await buy({}, { allowPartialFill: true, onlyCreateWhenFulfilled: true, preventDuplicateIncompleteOrders: true })).body.data.orderId as string;
    expect((await buy({}, { preventDuplicateIncompleteOrders: true })).body.message).toBe('TSAS:400 MUST_BE_WAIT_PREVIOUS_ORDER_FILLED');
    devnet.mine(2);
    expect((await call('GET', `/v2/order/${partial}`)).body.data).toMatchObject({ fulfilledPercent: 30, remainAmount: 45_000 });
    const list = (await call('GET', '/v2/orders?status=Active')).body.data;
    expect(list).toMatchObject({ total: 1, data: [{ id: partial, status: 'Active' }] });
    devnet.tronsave.configure({ supply: 1_000_000 });
    devnet.mine(2);
    expect((await call('GET', `/v2/order/${partial}`)).body.data).toMatchObject({ fulfilledPercent: 100, remainAmount: 0 });
    expect((await call('GET', '/v2/orders?page=0&pageSize=1')).body.data).toMatchObject({ total: 1, data: [{ id: partial, status: 'Completed' }] });
    expect((await call('GET', '/v2/orders?status=Open')).body.code).toBe('FST_ERR_VALIDATION');
  });

  it('refunds an order the chain refuses to delegate (inactive receiver) and closes it short of 100 %', async () => {
    const before = balance();
    const id = (await buy({ receiver: wallet(devnet, 'never-activated').address })).body.data.orderId as string;
    devnet.mine(1);
    expect(balance()).toBe(before);
    expect((await call('GET', `/v2/orders`)).body.data.data[0]).toMatchObject({ id, status: 'Completed', fulfilledPercent: 0, payoutAmount: 0 });
    devnet.tronsave.addApiKey('poor', 1_000n);
    expect((await call('POST', '/v2/buy-resource', { receiver, resourceAmount: 65_000 }, 'poor')).body.message).toBe('TSAS:400 INTERNAL_BALANCE_ACCOUNT_TOO_LOW');
    expect(await call('GET', '/v2/order/000000000000000000000000')).toEqual({ status: 404, body: { error: true, message: 'TSAS:404 ORDER_NOT_FOUND', data: null } });
    expect((await call('GET', '/v2/user-info')).body.data).toMatchObject({ balance: String(before), representAddress: devnet.info().rental_pool });
  });

  it('answers forced 429 / 5xx, then serves normally; a delay holds delivery back in virtual time', async () => {
    devnet.configureRental({ tronsave: { failNext: [429, 502], deliveryDelayMs: 30_000 } });
    expect(await buy()).toEqual({ status: 429, body: { error: true, message: 'Rate limit reached' } });
    expect((await buy()).status).toBe(502);
    const id = (await buy()).body.data.orderId as string;
    devnet.mine(9);
    expect((await call('GET', `/v2/order/${id}`)).body.data.fulfilledPercent).toBe(0);
    devnet.mine(2);
    expect((await call('GET', `/v2/order/${id}`)).body.data.fulfilledPercent).toBe(100);
    expect(() => devnet.tronsave.configure({ supply: -1 })).toThrow();
  });
});
