import { createHash, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type ApiHarness } from './test-harness.js';
import {
  cacheCollectable, createWallet, expectDocumented, fails, ISO_TIME, ok, userWithWallets, WALLET_TIME, expectAnswersDocumented,
} from './api-test-fixtures.js';

type User = Awaited<ReturnType<typeof userWithWallets>>;

/** Spec §4 "Collection", "Cashier token management" and "Cashier payment API" over real HTTP. */
describe('spec §4 collection and cashier endpoints', () => {
  let h: ApiHarness;
  let u: User;
  const key = (): Record<string, string> => ({ 'idempotency-key': randomUUID() });

  beforeAll(async () => {
    h = await startHarness();
    u = await userWithWallets(h);
  });
  afterAll(async () => {
    expectAnswersDocumented(h);
    await h.close();
  });

  it('POST /collections: 201 PENDING task with wallet timestamps; GET returns the same fields', async () => {
    const user = await userWithWallets(h);
    await cacheCollectable(h, user.sub);
    const created = ok(await h.call('POST', '/api/collections', { token: user.apiToken, headers: key(), body: { address: user.sub, asset_symbol: 'USDT' } }), 201);
    expectDocumented(h, 'POST', '/api/collections', created);
    expect(Object.keys(created).sort()).toEqual(['command_no', 'error_code', 'finished_at', 'last_error', 'started_at', 'status', 'task_no']);
    expect(created).toMatchObject({ status: 1, error_code: null, last_error: null, finished_at: null });
    expect(created.started_at).toMatch(WALLET_TIME);
    const got = ok(await h.call('GET', `/api/collections/${created.task_no}`, { token: user.apiToken }));
    expect(got).toEqual(created);
    const command = ok(await h.call('GET', `/api/commands/${created.command_no}`, { token: user.apiToken }));
    expect(command).toMatchObject({ command_no: created.command_no, type: 3, status: 1 });
    fails(await h.call('POST', '/api/collections', { token: user.apiToken, headers: key(), body: { address: user.sub, asset_symbol: 'TRX' } }), 409, 'BIZ-COMMAND-LOCKED');
  });

  it('POST /collections errors: 403 risk, 422 not sub, 422 unknown address, 422 asset, 422 missing key; GET 404', async () => {
    const body = (address: string, asset = 'USDT'): unknown => ({ address, asset_symbol: asset });
    fails(await h.call('POST', '/api/collections', { token: u.apiToken, headers: key(), body: body(u.main) }), 422, 'BIZ-ADDRESS-TYPE-NOT-SUB');
    fails(await h.call('POST', '/api/collections', { token: u.apiToken, headers: key(), body: body('TUnknownAddressXXXXXXXXXXXXXXXXXXX') }), 422, 'BIZ-WALLET-ADDRESS-NOT-FOUND');
    fails(await h.call('POST', '/api/collections', { token: u.apiToken, headers: key(), body: body(u.sub, 'DOGE') }), 422, 'BIZ-ASSET-NOT-FOUND');
    const noKey = await h.call('POST', '/api/collections', { token: u.apiToken, body: body(u.sub) });
    fails(noKey, 422, 'VALIDATION-ERROR');
    expect(noKey.json.message).toContain('Idempotency-Key');
    const risky = await userWithWallets(h);
    ok(await h.call('POST', '/api/admin/risk/deny', { token: h.adminToken, body: { kind: 'address', value: risky.sub, reason: 'test' } }), 201);
    fails(await h.call('POST', '/api/collections', { token: risky.apiToken, headers: key(), body: body(risky.sub) }), 403, 'RISK-REVIEW-BLOCKED');
    fails(await h.call('GET', '/api/collections/TASK-NOPE', { token: u.apiToken }), 404, 'BIZ-COLLECTION-TASK-NOT-FOUND');
  });

  it('POST /cashier/tokens: 201 record with ct_ token and ISO times; errors 422/422/409', async () => {
    const user = await userWithWallets(h);
    const created = ok(await h.call('POST', '/api/cashier/tokens', { token: user.apiToken, body: { address: user.sub } }), 201);
    expectDocumented(h, 'POST', '/api/cashier/tokens', created);
    expect(created).toMatchObject({ address: user.sub, network_code: 'TRON', status: 'active', ttl_minutes: 60, disabled_at: null, disable_reason: null });
    expect(created.token).toMatch(/^ct_/);
    expect(created.expires_at).toMatch(ISO_TIME);
    expect(Date.parse(created.expires_at) - Date.parse(created.created_at)).toBe(60 * 60_000);
    fails(await h.call('POST', '/api/cashier/tokens', { token: user.apiToken, body: { address: user.sub } }), 409, 'CASHIER-TOKEN-ACTIVE-EXISTS');
    fails(await h.call('POST', '/api/cashier/tokens', { token: user.apiToken, body: { address: user.main } }), 422, 'BIZ-ADDRESS-TYPE-NOT-SUB');
    fails(await h.call('POST', '/api/cashier/tokens', { token: user.apiToken, body: { address: 'TUnknownAddressXXXXXXXXXXXXXXXXXXX' } }), 422, 'BIZ-WALLET-ADDRESS-NOT-FOUND');
    const other = await createWallet(h, user, 2);
    for (const ttl of [120, 480, 1440]) {
      const sub = await createWallet(h, user, 2);
      expect(ok(await h.call('POST', '/api/cashier/tokens', { token: user.apiToken, body: { address: sub, ttl_minutes: ttl } }), 201).ttl_minutes).toBe(ttl);
    }
    const bad = await h.call('POST', '/api/cashier/tokens', { token: user.apiToken, body: { address: other, ttl_minutes: 30 } });
    fails(bad, 422, 'VALIDATION-ERROR');
    expect(bad.json.message).toContain('ttl_minutes');
  });

  it('GET /cashier/tokens: data.data[] without token, data.meta {current_page, per_page, total, last_page}, default 15, max 100', async () => {
    const user = await userWithWallets(h, 'pro');
    for (let i = 0; i < 16; i++) {
      if (i === 10) h.clock.advance(60_000);
      const sub = await createWallet(h, user, 2);
      ok(await h.call('POST', '/api/cashier/tokens', { token: user.apiToken, body: { address: sub } }), 201);
    }
    const first = ok(await h.call('GET', '/api/cashier/tokens', { token: user.apiToken }));
    expectDocumented(h, 'GET', '/api/cashier/tokens', first);
    expect(first.meta).toEqual({ current_page: 1, per_page: 15, total: 16, last_page: 2 });
    expect(first.data).toHaveLength(15);
    expect(first.data.every((t: Record<string, unknown>) => !('token' in t))).toBe(true);
    const second = ok(await h.call('GET', '/api/cashier/tokens?page=2', { token: user.apiToken }));
    expect(second.meta).toEqual({ current_page: 2, per_page: 15, total: 16, last_page: 2 });
    expect(second.data).toHaveLength(1);
    expect(ok(await h.call('GET', '/api/cashier/tokens?per_page=100', { token: user.apiToken })).meta.per_page).toBe(100);
    fails(await h.call('GET', '/api/cashier/tokens?per_page=101', { token: user.apiToken }), 422, 'VALIDATION-ERROR');
  });

  it('DELETE /cashier/tokens/{tokenNo}: 200 {token_no, status, disabled_at, disable_reason}; 409 again; 404 unknown', async () => {
    const user = await userWithWallets(h);
    const created = ok(await h.call('POST', '/api/cashier/tokens', { token: user.apiToken, body: { address: user.sub } }), 201);
    const disabled = ok(await h.call('DELETE', `/api/cashier/tokens/${created.token_no}`, { token: user.apiToken, body: { reason: 'paid' } }));
    expectDocumented(h, 'DELETE', '/api/cashier/tokens/:tokenNo', disabled);
    expect(Object.keys(disabled).sort()).toEqual(['disable_reason', 'disabled_at', 'status', 'token_no']);
    expect(disabled).toMatchObject({ token_no: created.token_no, status: 'disabled', disable_reason: 'paid' });
    expect(disabled.disabled_at).toMatch(ISO_TIME);
    fails(await h.call('DELETE', `/api/cashier/tokens/${created.token_no}`, { token: user.apiToken }), 409, 'CASHIER-TOKEN-ALREADY-DISABLED');
    fails(await h.call('DELETE', '/api/cashier/tokens/CT-NOPE', { token: user.apiToken }), 404, 'CASHIER-TOKEN-NOT-FOUND');
    fails(await h.call('GET', '/api/cashier/session', { token: created.token }), 401, 'CASHIER-TOKEN-INVALID');
    // Without a body the reason is null.
    const again = ok(await h.call('POST', '/api/cashier/tokens', { token: user.apiToken, body: { address: user.sub } }), 201);
    expect(ok(await h.call('DELETE', `/api/cashier/tokens/${again.token_no}`, { token: user.apiToken })).disable_reason).toBeNull();
  });

  it('cashier payment API: session, balance (ISO times), task null then the task, collect 201; expiry slides', async () => {
    const user = await userWithWallets(h);
    const ct = ok(await h.call('POST', '/api/cashier/tokens', { token: user.apiToken, body: { address: user.sub } }), 201);
    const session = ok(await h.call('GET', '/api/cashier/session', { token: ct.token }));
    expectDocumented(h, 'GET', '/api/cashier/session', session);
    expect(session).toMatchObject({
      token_no: ct.token_no, min_collect_amounts: {}, active_task: null,
      address: { wallet_address_id: ct.wallet_address_id, address: user.sub, network_code: 'TRON', address_label: 'shop' },
    });
    h.devnet.fundToken(user.sub, 5_000_000n);
    ok(await h.call('POST', `/api/wallets/${user.sub}/balances/refresh`, { token: user.apiToken, body: { force: true } }));
    const balance = ok(await h.call('GET', '/api/cashier/balance', { token: ct.token }));
    expectDocumented(h, 'GET', '/api/cashier/balance', balance);
    expect(balance.balance_updated_at).toMatch(ISO_TIME);
    expect(balance.items.find((i: { symbol: string }) => i.symbol === 'USDT').balance_available).toBe('5000000');
    expect(ok(await h.call('GET', '/api/cashier/task', { token: ct.token }))).toBeNull();

    h.clock.advance(30 * 60_000);
    const slid = ok(await h.call('GET', '/api/cashier/session', { token: ct.token }));
    expect(Date.parse(slid.expires_at)).toBe(h.clock.now() + 60 * 60_000);

    // A failed call does not slide the expiry (read through the developer's list, which does not slide it either).
    h.clock.advance(10 * 60_000);
    fails(await h.call('POST', '/api/cashier/collect', { token: ct.token, headers: key(), body: { asset_symbol: 'DOGE' } }), 422, 'BIZ-ASSET-NOT-FOUND');
    const listed = ok(await h.call('GET', '/api/cashier/tokens', { token: user.apiToken })).data.find((t: { token_no: string }) => t.token_no === ct.token_no);
    expect(listed.expires_at).toBe(slid.expires_at);
    const task = ok(await h.call('POST', '/api/cashier/collect', { token: ct.token, headers: key(), body: { asset_symbol: 'USDT' } }), 201);
    expectDocumented(h, 'POST', '/api/cashier/collect', task);
    expect(task).not.toHaveProperty('error_code');
    expect(task.status).toBe(1);
    expect(task.started_at).toMatch(ISO_TIME);
    expect(ok(await h.call('GET', '/api/cashier/task', { token: ct.token }))).toEqual(task);
    // The running collection holds the cached USDT (spec §2 balance_locked), on both sides.
    const held = { symbol: 'USDT', balance_available: '0', balance_locked: '5000000' };
    expect(ok(await h.call('GET', '/api/cashier/balance', { token: ct.token })).items).toContainEqual(expect.objectContaining(held));
    expect(ok(await h.call('GET', `/api/wallets/${user.sub}/balances`, { token: user.apiToken })).items).toContainEqual(expect.objectContaining(held));
    expect(ok(await h.call('GET', '/api/cashier/session', { token: ct.token })).active_task).toEqual(task);
    fails(await h.call('POST', '/api/cashier/collect', { token: ct.token, headers: key(), body: { asset_symbol: 'USDT' } }), 409, 'BIZ-COMMAND-LOCKED');
  });

  it('POST /cashier/collect: 422 BIZ-AMOUNT-BELOW-MINIMUM under the configured minimum', async () => {
    const user = await userWithWallets(h);
    ok(await h.call('PUT', '/api/subscriptions/config', {
      token: user.session, body: { service_code: 'developer', config: { min_collect_amounts: { USDT: '10000000' } } },
    }));
    const ct = ok(await h.call('POST', '/api/cashier/tokens', { token: user.apiToken, body: { address: user.sub } }), 201);
    expect(ok(await h.call('GET', '/api/cashier/session', { token: ct.token })).min_collect_amounts).toEqual({ USDT: '10000000' });
    h.devnet.fundToken(user.sub, 9_999_999n);
    ok(await h.call('POST', `/api/wallets/${user.sub}/balances/refresh`, { token: user.apiToken, body: { force: true } }));
    fails(await h.call('POST', '/api/cashier/collect', { token: ct.token, headers: key(), body: { asset_symbol: 'USDT' } }), 422, 'BIZ-AMOUNT-BELOW-MINIMUM');
  });

  it('cashier auth: 401 MISSING without a bearer, 401 INVALID for unknown, expired or non-ct tokens, 403 for a valid token of another kind', async () => {
    const user = await userWithWallets(h);
    const ct = ok(await h.call('POST', '/api/cashier/tokens', { token: user.apiToken, body: { address: user.sub } }), 201);
    for (const [method, path] of [['GET', 'session'], ['GET', 'balance'], ['GET', 'task'], ['POST', 'collect']] as const) {
      const url = `/api/cashier/${path}`;
      const extra = method === 'POST' ? { headers: key(), body: { asset_symbol: 'USDT' } } : {};
      fails(await h.call(method, url, extra), 401, 'CASHIER-TOKEN-MISSING');
      fails(await h.call(method, url, { ...extra, token: 'ct_nope' }), 401, 'CASHIER-TOKEN-INVALID');
      fails(await h.call(method, url, { ...extra, token: 'garbage' }), 401, 'CASHIER-TOKEN-INVALID');
      fails(await h.call(method, url, { ...extra, token: user.apiToken }), 403, 'FORBIDDEN');
    }
    h.clock.advance(61 * 60_000);
    fails(await h.call('GET', '/api/cashier/session', { token: ct.token }), 401, 'CASHIER-TOKEN-INVALID');
    // An expired token no longer blocks a new one (DESIGN.md).
    ok(await h.call('POST', '/api/cashier/tokens', { token: user.apiToken, body: { address: user.sub } }), 201);
  });

  it('serves the payer page at /cashier without echoing the token', async () => {
    const res = await h.call('GET', '/cashier?ct=ct_secretvalue');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.text).not.toContain('ct_secretvalue');
    // Not frameable; no inline script runs (the page's script is a same-origin file), and its one inline style is
    // pinned by the hash of the served bytes.
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("default-src 'none'");
    expect(csp.split('; ').find((d) => d.startsWith('script-src '))).toBe("script-src 'self'");
    const blocks = [...res.text.matchAll(/<(script|style)>([\s\S]*?)<\/\1>/g)];
    expect(blocks.map((m) => m[1])).toEqual(['style']);
    const style = csp.split('; ').find((d) => d.startsWith('style-src '));
    expect(style).toBe(`style-src 'sha256-${createHash('sha256').update(blocks[0]![2]!).digest('base64')}'`);
  });
});
