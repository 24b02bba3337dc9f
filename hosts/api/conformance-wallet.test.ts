import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type ApiHarness } from './test-harness.js';
import {
  createWallet, expectDocumented, fails, ok, signUp, userWithWallets, WALLET_TIME, type TestUser, expectAnswersDocumented } from './api-test-fixtures.js';

/** Spec §4 "Wallet" over real HTTP: success shapes, pagination defaults and maxima, every listed error. */
describe('spec §4 wallet endpoints', () => {
  let h: ApiHarness;
  let u: TestUser & { main: string; sub: string };

  beforeAll(async () => {
    h = await startHarness();
    u = await userWithWallets(h);
  });
  afterAll(async () => {
    expectAnswersDocumented(h);
    await h.close();
  });

  it('POST /wallets: 201 with exactly {wallet_address_id, network_code, address, address_type, status}', async () => {
    const user = await signUp(h);
    const data = ok(await h.call('POST', '/api/wallets', { token: user.apiToken, body: { network_code: 'TRON', address_type: 1 } }), 201);
    expect(Object.keys(data).sort()).toEqual(['address', 'address_type', 'network_code', 'status', 'wallet_address_id']);
    expect(data).toMatchObject({ network_code: 'TRON', address_type: 1, status: 1 });
    expect(data.address).toMatch(/^T[1-9A-HJ-NP-Za-km-z]{33}$/);
    expectDocumented(h, 'POST', '/api/wallets', data);
  });

  it('POST /wallets errors: 409 main exists, 422 network, type, main required, subscription required, quota, label', async () => {
    fails(await h.call('POST', '/api/wallets', { token: u.apiToken, body: { network_code: 'TRON', address_type: 1 } }), 409, 'BIZ-MAIN-ADDRESS-ALREADY-EXISTS');
    fails(await h.call('POST', '/api/wallets', { token: u.apiToken, body: { network_code: 'BTC', address_type: 1 } }), 422, 'BIZ-NETWORK-NOT-FOUND');
    fails(await h.call('POST', '/api/wallets', { token: u.apiToken, body: { network_code: 'TRON', address_type: 3 } }), 422, 'BIZ-ADDRESS-TYPE-NOT-ALLOWED');
    const fresh = await signUp(h);
    fails(await h.call('POST', '/api/wallets', { token: fresh.apiToken, body: { network_code: 'TRON', address_type: 2 } }), 422, 'BIZ-MAIN-ADDRESS-REQUIRED');
    const noSub = await signUp(h, { subPlan: null });
    await createWallet(h, noSub, 1);
    fails(await h.call('POST', '/api/wallets', { token: noSub.apiToken, body: { network_code: 'TRON', address_type: 2 } }), 422, 'BIZ-SUB-ADDRESS-SUBSCRIPTION-REQUIRED');
    const quota = await signUp(h);
    await createWallet(h, quota, 1);
    ok(await h.call('PUT', `/api/admin/users/${quota.userId}/quota`, { token: h.adminToken, body: { max_sub_addresses: 1 } }));
    await createWallet(h, quota, 2);
    fails(await h.call('POST', '/api/wallets', { token: quota.apiToken, body: { network_code: 'TRON', address_type: 2 } }), 422, 'BIZ-SUB-ADDRESS-QUOTA-EXCEEDED');
    const long = await h.call('POST', '/api/wallets', { token: u.apiToken, body: { network_code: 'TRON', address_type: 2, address_label: 'x'.repeat(121) } });
    fails(long, 422, 'VALIDATION-ERROR');
    expect(long.json.message).toContain('address_label');
    const missing = await h.call('POST', '/api/wallets', { token: u.apiToken, body: { address_type: 2 } });
    fails(missing, 422, 'VALIDATION-ERROR');
    expect(missing.json.message).toContain('network_code');
  });

  it('GET /wallets/{address}: the full record; 404 for an unknown address', async () => {
    const data = ok(await h.call('GET', `/api/wallets/${u.sub}`, { token: u.apiToken }));
    expect(Object.keys(data).sort()).toEqual(['address', 'address_label', 'address_type', 'created_at', 'network_code', 'status', 'wallet_address_id']);
    expect(data).toMatchObject({ address: u.sub, address_type: 2, address_label: 'shop', status: 1, network_code: 'TRON' });
    expect(data.created_at).toMatch(WALLET_TIME);
    expectDocumented(h, 'GET', '/api/wallets/:address', data);
    const main = ok(await h.call('GET', `/api/wallets/${u.main}`, { token: u.apiToken }));
    expect(main.address_label).toBeNull();
    for (const suffix of ['', '/balances', '/resources']) {
      fails(await h.call('GET', `/api/wallets/TUnknownAddressXXXXXXXXXXXXXXXXXXX${suffix}`, { token: u.apiToken }), 404, 'BIZ-WALLET-ADDRESS-NOT-FOUND');
    }
    fails(await h.call('POST', '/api/wallets/TUnknownAddressXXXXXXXXXXXXXXXXXXX/balances/refresh', { token: u.apiToken }), 404, 'BIZ-WALLET-ADDRESS-NOT-FOUND');
  });

  it('GET /wallets: items and pagination {page, per_page, total, pages}, default 20, max 100, type filter', async () => {
    const many = await signUp(h, { subPlan: 'unlimited' });
    await createWallet(h, many, 1);
    for (let i = 0; i < 21; i++) {
      // POST /wallets allows 20 per minute (spec §8): move to the next window halfway.
      if (i === 10) h.clock.advance(60_000);
      await createWallet(h, many, 2);
    }
    const first = ok(await h.call('GET', '/api/wallets', { token: many.apiToken }));
    expectDocumented(h, 'GET', '/api/wallets', first);
    expect(first.pagination).toEqual({ page: 1, per_page: 20, total: 22, pages: 2 });
    expect(first.items).toHaveLength(20);
    const second = ok(await h.call('GET', '/api/wallets?page=2', { token: many.apiToken }));
    expect(second.pagination).toEqual({ page: 2, per_page: 20, total: 22, pages: 2 });
    expect(second.items).toHaveLength(2);
    const ids = [...first.items, ...second.items].map((w: { wallet_address_id: number }) => w.wallet_address_id);
    expect(new Set(ids).size).toBe(22);
    const max = ok(await h.call('GET', '/api/wallets?per_page=100', { token: many.apiToken }));
    expect(max.pagination).toEqual({ page: 1, per_page: 100, total: 22, pages: 1 });
    const subs = ok(await h.call('GET', '/api/wallets?type=2&per_page=5', { token: many.apiToken }));
    expect(subs.pagination).toEqual({ page: 1, per_page: 5, total: 21, pages: 5 });
    expect(subs.items.every((w: { address_type: number }) => w.address_type === 2)).toBe(true);
    const mains = ok(await h.call('GET', '/api/wallets?type=1', { token: many.apiToken }));
    expect(mains.pagination.total).toBe(1);
    for (const q of ['per_page=101', 'per_page=0', 'page=0', 'type=3', 'page=abc']) {
      fails(await h.call('GET', `/api/wallets?${q}`, { token: many.apiToken }), 422, 'VALIDATION-ERROR');
    }
  });

  it('GET /wallets/{address}/balances: cached snapshot with wallet timestamps; refresh → refresh_source 2', async () => {
    const cached = ok(await h.call('GET', `/api/wallets/${u.sub}/balances`, { token: u.apiToken }));
    expectDocumented(h, 'GET', '/api/wallets/:address/balances', cached);
    expect(cached.address).toBe(u.sub);
    h.devnet.fund(u.sub, 3_000_000);
    h.devnet.fundToken(u.sub, 7_000_000n);
    h.devnet.mine(1);
    const refreshed = ok(await h.call('POST', `/api/wallets/${u.sub}/balances/refresh`, { token: u.apiToken, body: { force: true } }));
    expectDocumented(h, 'POST', '/api/wallets/:address/balances/refresh', refreshed);
    expect(refreshed.refresh_source).toBe(2);
    const bySymbol = Object.fromEntries(refreshed.items.map((i: { symbol: string; balance_available: string }) => [i.symbol, i.balance_available]));
    expect(bySymbol).toEqual({ TRX: '3000000', USDT: '7000000' });
    expect(refreshed.balance_updated_at).toMatch(WALLET_TIME);
    const after = ok(await h.call('GET', `/api/wallets/${u.sub}/balances`, { token: u.apiToken }));
    expect(after.items).toEqual(refreshed.items);
  });

  it('POST .../balances/refresh: within the cooldown the cache answers unless force is true; refresh_source is always 2', async () => {
    const user = await userWithWallets(h);
    const usdt = (data: { items: { symbol: string; balance_available: string }[] }): string | undefined =>
      data.items.find((i) => i.symbol === 'USDT')?.balance_available;
    const refresh = async (body?: unknown): Promise<any> =>
      ok(await h.call('POST', `/api/wallets/${user.sub}/balances/refresh`, { token: user.apiToken, ...(body === undefined ? {} : { body }) }));
    expect(usdt(await refresh())).toBe('0');
    h.devnet.fundToken(user.sub, 1_000_000n);
    const cached = await refresh({ force: false });
    expect({ usdt: usdt(cached), source: cached.refresh_source }).toEqual({ usdt: '0', source: 2 });
    h.clock.advance(30_000);
    const due = await refresh();
    expect({ usdt: usdt(due), source: due.refresh_source }).toEqual({ usdt: '1000000', source: 2 });
    h.devnet.fundToken(user.sub, 1_000_000n);
    expect(usdt(await refresh({ force: true }))).toBe('2000000');
    fails(await h.call('POST', `/api/wallets/${user.sub}/balances/refresh`, { token: user.apiToken, body: { force: 'yes' } }), 422, 'VALIDATION-ERROR');
  });

  it('POST .../balances/refresh: 502 CHAIN-BALANCE-QUERY-FAILED when the node is down', async () => {
    h.devnet.setFaults({ node_down: true });
    try {
      fails(await h.call('POST', `/api/wallets/${u.main}/balances/refresh`, { token: u.apiToken, body: { force: true } }), 502, 'CHAIN-BALANCE-QUERY-FAILED');
    } finally {
      h.devnet.setFaults({ node_down: false });
    }
  });

  it('GET /wallets/{address}/resources: the chain resources object', async () => {
    const data = ok(await h.call('GET', `/api/wallets/${u.main}/resources`, { token: u.apiToken }));
    expectDocumented(h, 'GET', '/api/wallets/:address/resources', data);
    expect(data.bandwidth.free_limit).toBe(600);
    expect(data.delegated_to).toEqual([]);
    expect(data.received_from).toEqual([]);
  });

  it('GET /commands and /commands/{commandNo}: shapes, filters, pagination, 404', async () => {
    const list = ok(await h.call('GET', '/api/commands', { token: u.apiToken }));
    expectDocumented(h, 'GET', '/api/commands', list);
    expect(list.pagination).toMatchObject({ page: 1, per_page: 20 });
    expect(list.items.length).toBeGreaterThan(0);
    const item = list.items[0];
    expect(item.created_at).toMatch(WALLET_TIME);
    const one = ok(await h.call('GET', `/api/commands/${item.command_no}`, { token: u.apiToken }));
    expectDocumented(h, 'GET', '/api/commands/:commandNo', one);
    expect(Object.keys(one).sort()).toEqual(['command_no', 'error_code', 'finished_at', 'last_error', 'started_at', 'status', 'type']);
    const queries = ok(await h.call('GET', '/api/commands?type=1&status=3&per_page=100', { token: u.apiToken }));
    expect(queries.pagination.per_page).toBe(100);
    expect(queries.items.every((c: { type: number; status: number }) => c.type === 1 && c.status === 3)).toBe(true);
    for (const q of ['type=9', 'type=0', 'status=7', 'per_page=101']) {
      fails(await h.call('GET', `/api/commands?${q}`, { token: u.apiToken }), 422, 'VALIDATION-ERROR');
    }
    fails(await h.call('GET', '/api/commands/CMD-NOPE', { token: u.apiToken }), 404, 'BIZ-COMMAND-NOT-FOUND');
  });
});
