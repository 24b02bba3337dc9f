/**
 * The itrx simulation at the wire: API-KEY on GETs and the HMAC signature on POSTs (the signing page's known answer),
 * errno replies, the price endpoint (minimum, small-order addition, estimate from to_address), orders delivered in
 * parts above the largest single delegation, refunds (status 41) and the 1H rental taken back once used up.
 */
import { createHmac } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Devnet } from './index.js';
import { DEVNET_ITRX_API_KEY, DEVNET_ITRX_API_SECRET, itrxSigningString } from './rental-itrx.js';
import { solidify, startTestDevnet, trx, wallet, type Wallet } from './test-helpers.js';

type Body = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe('itrx simulation', () => {
  let devnet: Devnet;
  let user: Wallet;
  const get = async (path: string, key: string | null = DEVNET_ITRX_API_KEY) => {
    const r = await fetch(devnet.url + path, { headers: key === null ? {} : { 'API-KEY': key } });
    return { status: r.status, body: (await r.json()) as Body };
  };
  const order = async (body: Body, sign: { secret?: string; timestamp?: string; signature?: string } = {}) => {
    const timestamp = sign.timestamp ?? String(Math.floor(devnet.chain.now / 1_000));
    const signature = sign.signature ?? createHmac('sha256', sign.secret ?? DEVNET_ITRX_API_SECRET).update(itrxSigningString(timestamp, body)).digest('hex');
    const r = await fetch(`${devnet.url}/api/v1/frontend/order`, {
      method: 'POST', body: JSON.stringify(body),
      headers: { 'API-KEY': DEVNET_ITRX_API_KEY, TIMESTAMP: timestamp, SIGNATURE: signature, 'Content-Type': 'application/json' },
    });
    return (await r.json()) as Body;
  };
  const query = async (serial: string) => (await get(`/api/v1/frontend/order/query?serial=${serial}`)).body;
  const balance = () => devnet.itrx.balanceOf(DEVNET_ITRX_API_KEY)!;

  beforeEach(async () => {
    devnet = await startTestDevnet({ seed: 'itrx-sim' });
    user = wallet(devnet, 'itrx-receiver');
    devnet.fund(user.address, trx(5));
  });
  afterEach(() => devnet.close());

  it('signs like the documentation: sorted compact JSON after the timestamp (the signing page\'s known answer)', () => {
    const body = { receive_address: 'TExWKszFWYTKZH8LYiovAPKzS3L9MLZ4kw', period: '1D', out_trade_no: '123456', energy_amount: 32000, callback_url: 'http://{mydomain}/callback' };
    const signed = itrxSigningString('1686796826', body);
    expect(signed).toBe('1686796826&{"callback_url":"http://{mydomain}/callback","energy_amount":32000,"out_trade_no":"123456","period":"1D","receive_address":"TExWKszFWYTKZH8LYiovAPKzS3L9MLZ4kw"}');
    expect(createHmac('sha256', '0285A2741D0E76E2E187260EB23E51851D48403A756333E7D0CF845406ABF3E8').update(signed).digest('hex'))
      .toBe('07c125cabfe006614a02131f927cca9e7a654f7644a817b155fad591e1c50f7b');
  });

  it('prices by period with the documented minimum and the small-order addition, or from a transfer\'s destination', async () => {
    expect((await get('/api/v1/frontend/order/price?period=1H&energy_amount=65000')).body).toEqual({ period: '1H', energy_amount: 65_000, price: 45, total_price: 2_925_000, addition: 0 });
    expect((await get('/api/v1/frontend/order/price?period=3D&energy_amount=32000')).body).toMatchObject({ price: 52, total_price: 52 * 32_000 * 3 + 600_000, addition: 600_000 });
    expect((await get('/api/v1/frontend/order/price?period=1H&energy_amount=9999')).body).toMatchObject({ errno: 400 });
    expect((await get('/api/v1/frontend/order/price?period=2H&energy_amount=65000')).body).toMatchObject({ errno: 400 });
    expect((await get(`/api/v1/frontend/order/price?period=1H&to_address=${user.address}`)).body.energy_amount).toBe(131_000);
    devnet.fundToken(user.address, 1n);
    expect((await get(`/api/v1/frontend/order/price?period=1H&to_address=${user.address}`)).body.energy_amount).toBe(65_000);
  });

  it('refuses a missing or wrong key, timestamp or signature, and answers index-data empty to a wrong key', async () => {
    const body = { energy_amount: 65_000, period: '1H', receive_address: user.address };
    expect(await get('/api/v1/frontend/order/price?period=1H&energy_amount=65000', null)).toEqual({ status: 200, body: { errno: 401, message: 'invalid API-KEY' } });
    expect((await get('/api/v1/frontend/index-data', 'wrong')).body).toEqual({});
    expect((await order(body, { secret: 'wrong' })).errno).toBe(401);
    expect((await order(body, { timestamp: '123' })).errno).toBe(401);
    const timestamp = String(Math.floor(devnet.chain.now / 1_000));
    const signedOther = createHmac('sha256', DEVNET_ITRX_API_SECRET).update(itrxSigningString(timestamp, body)).digest('hex');
    expect((await order({ ...body, energy_amount: 65_001 }, { timestamp, signature: signedOther })).errno).toBe(401);
    devnet.itrx.configure({ timestampWindowSec: 60 });
    expect((await order(body, { timestamp: String(Math.floor(devnet.chain.now / 1_000) - 61) })).errno).toBe(401);
    expect((await order(body)).errno).toBe(0);
  });

  it('charges at the order, delivers in parts above the largest single delegation (31, then 40), and finds orders by out_trade_no', async () => {
    devnet.itrx.configure({ maxSingleDelegation: 40_000 });
    const before = balance();
    const placed = await order({ energy_amount: 65_000, period: '1H', receive_address: user.address, out_trade_no: 'sweep-7' });
    expect(placed).toEqual({ errno: 0, serial: expect.stringMatching(/^[0-9a-f]{32}$/), amount: 2_925_000, balance: Number(before) - 2_925_000 });
    expect(await query(placed.serial)).toMatchObject({ status: 30, pay_amount: 0, details: [] });
    devnet.mine(1);
    expect(await query(placed.serial)).toMatchObject({ status: 31, pay_amount: 40_000, details: [{ status: 20 }] });
    devnet.mine(1);
    const done = await query(placed.serial);
    expect(done).toMatchObject({ errno: 0, receive_address: user.address, order_no: placed.serial, energy_amount: 65_000, pay_amount: 65_000, amount: 2_925_000, period: 0, status: 40, refund_amount: 0 });
    expect(done.details).toHaveLength(2);
    expect((await get('/api/v1/frontend/order/query?out_trade_no=sweep-7')).body.order_no).toBe(placed.serial);
    expect((await get('/api/v1/frontend/order/query?out_trade_no=nope')).body).toEqual({ errno: 404, message: 'Order not found' });
    expect((await user.tw.trx.getAccountResources(user.address)).EnergyLimit).toBeGreaterThanOrEqual(65_000);
  });

  it('ends 41 with a refund: all of it for an inactive receiver, the undelivered share when supply never returns', async () => {
    const before = balance();
    const ghost = await order({ energy_amount: 65_000, period: '1H', receive_address: wallet(devnet, 'ghost').address });
    devnet.mine(1);
    expect(await query(ghost.serial)).toMatchObject({ status: 41, refund_amount: 2_925_000 });
    expect(balance()).toBe(before);
    devnet.itrx.configure({ available: 13_000 });
    const short = await order({ energy_amount: 65_000, period: '1H', receive_address: user.address });
    devnet.mine(2);
    expect(await query(short.serial)).toMatchObject({ status: 32, pay_amount: 13_000 });
    devnet.advance(600_000);
    expect(await query(short.serial)).toMatchObject({ status: 41, refund_amount: Math.floor((2_925_000 * 52_000) / 65_000) });
  });

  it('takes a 1H rental back once its energy is used (seen solidified), not before', async () => {
    const shop = wallet(devnet, 'itrx-shop');
    devnet.fundToken(shop.address, 1n);
    devnet.fundToken(user.address, 5_000_000n);
    const placed = await order({ energy_amount: 65_000, period: '1H', receive_address: user.address });
    devnet.mine(1);
    solidify(devnet);
    expect((await query(placed.serial)).details[0]).toMatchObject({ status: 20, reclaim_hash: null });
    const usdt = await user.tw.contract().at(devnet.usdtAddress);
    await usdt.methods.transfer(shop.address, 1).send({ feeLimit: trx(20) });
    devnet.mine(1);
    expect((await query(placed.serial)).details[0].status).toBe(20);
    solidify(devnet);
    devnet.mine(1);
    expect((await query(placed.serial)).details[0]).toMatchObject({ status: 30, reclaim_hash: expect.any(String), reclaim_time_real: expect.any(String) });
    expect((await user.tw.trx.getAccountResources(user.address)).EnergyLimit).toBeUndefined();
  });
});
