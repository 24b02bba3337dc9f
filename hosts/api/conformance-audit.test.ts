import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Composition } from '../composition/container.js';
import { startComposedWorker } from '../worker/compose-worker.js';
import { driveUntil } from '../worker/worker-drive.js';
import { startHarness, type ApiHarness, type HttpResult } from './test-harness.js';
import {
  cacheCollectable, createWallet, expectAnswersDocumented, fails, ISO_TIME, ok, signUp, userWithWallets, WALLET_TIME,
} from './api-test-fixtures.js';

const key = (): Record<string, string> => ({ 'idempotency-key': randomUUID() });
const INTEGER_STRING = /^(0|[1-9]\d*)$/;
const MINUTE = 60_000;

/** A 422 VALIDATION-ERROR whose message names the field (DESIGN.md "Validation"). */
function invalid(result: HttpResult, field: string): void {
  fails(result, 422, 'VALIDATION-ERROR');
  expect(result.json.message).toContain(field);
}

/**
 * A second, field-by-field pass over spec §2/§4/§5/§7/§8 for what the other conformance files leave open: list
 * pagination edges, defaults, exact field sets and types, character-based limits, on-chain amount bounds and the
 * less travelled error rows. Each check is written against the spec text, not against the current answers.
 */
describe('spec M1 conformance audit', () => {
  let h: ApiHarness;
  let u: Awaited<ReturnType<typeof userWithWallets>>;

  beforeAll(async () => {
    h = await startHarness();
    u = await userWithWallets(h);
  });
  afterAll(async () => {
    expectAnswersDocumented(h);
    await h.close();
  });

  it('§4 lists: every malformed page/per_page/type/status is 422 naming the parameter; a page past the end is empty with the true totals', async () => {
    const bad: ReadonlyArray<readonly [string, string]> = [
      ['/api/wallets?type=3', 'type'], ['/api/wallets?type=x', 'type'], ['/api/wallets?page=0', 'page'], ['/api/wallets?page=-1', 'page'],
      ['/api/wallets?page=1.5', 'page'], ['/api/wallets?page=', 'page'], ['/api/wallets?page=1e3', 'page'],
      ['/api/wallets?page=99999999999999999999', 'page'], ['/api/wallets?per_page=0', 'per_page'], ['/api/wallets?per_page=101', 'per_page'],
      ['/api/commands?status=0', 'status'], ['/api/commands?type=1.0', 'type'], ['/api/commands?page=0', 'page'], ['/api/commands?per_page=0', 'per_page'],
      ['/api/cashier/tokens?page=0', 'page'], ['/api/cashier/tokens?per_page=0', 'per_page'], ['/api/cashier/tokens?per_page=101', 'per_page'],
    ];
    for (const [path, field] of bad) invalid(await h.call('GET', path, { token: u.apiToken }), field);

    const user = await userWithWallets(h);
    await createWallet(h, user, 2);
    const page = ok(await h.call('GET', '/api/wallets?type=2&per_page=1&page=2', { token: user.apiToken }));
    expect(page.pagination).toEqual({ page: 2, per_page: 1, total: 2, pages: 2 });
    expect(page.items).toHaveLength(1);
    const past = ok(await h.call('GET', '/api/wallets?page=9', { token: user.apiToken }));
    expect(past).toEqual({ items: [], pagination: { page: 9, per_page: 20, total: 3, pages: 1 } });
    const all = ok(await h.call('GET', '/api/wallets?per_page=100', { token: user.apiToken }));
    for (const item of all.items) {
      expect(Object.keys(item).sort()).toEqual(['address', 'address_label', 'address_type', 'created_at', 'network_code', 'status', 'wallet_address_id']);
      expect(item.created_at).toMatch(WALLET_TIME);
      expect(Number.isInteger(item.wallet_address_id)).toBe(true);
    }
    expect(new Set(all.items.map((i: { wallet_address_id: number }) => i.wallet_address_id)).size).toBe(3);
    const fresh = await signUp(h);
    expect(ok(await h.call('GET', '/api/cashier/tokens', { token: fresh.apiToken })).meta).toMatchObject({ current_page: 1, per_page: 15, total: 0 });
  });

  it('§2/§8 address_label: max 120 characters counted as characters (not UTF-16 units); null and absent mean no label', async () => {
    const user = await signUp(h, { subPlan: 'pro' });
    await createWallet(h, user, 1);
    const post = (body: Record<string, unknown>): Promise<HttpResult> =>
      h.call('POST', '/api/wallets', { token: user.apiToken, body: { network_code: 'TRON', address_type: 2, ...body } });
    const emoji = ok(await post({ address_label: '😀'.repeat(120) }), 201);
    expect(ok(await h.call('GET', `/api/wallets/${emoji.address}`, { token: user.apiToken })).address_label).toBe('😀'.repeat(120));
    invalid(await post({ address_label: '😀'.repeat(121) }), 'address_label');
    const unlabeled = ok(await post({ address_label: null }), 201);
    expect(ok(await h.call('GET', `/api/wallets/${unlabeled.address}`, { token: user.apiToken })).address_label).toBeNull();
    invalid(await post({ address_label: 5 }), 'address_label');
    invalid(await post({ address_type: '2' }), 'address_type');
    fails(await post({ address_type: 0 }), 422, 'BIZ-ADDRESS-TYPE-NOT-ALLOWED');
  });

  it('§2 balance snapshot: exact fields, integer strings, refresh_source 1 until a manual refresh; refresh needs no body; 404 for another user', async () => {
    const user = await userWithWallets(h);
    const before = ok(await h.call('GET', `/api/wallets/${user.sub}/balances`, { token: user.apiToken }));
    expect(Object.keys(before).sort()).toEqual(['address', 'balance_updated_at', 'items', 'refresh_source']);
    expect(before.refresh_source).toBe(1);
    expect(before.items.map((i: { symbol: string }) => i.symbol).sort()).toEqual(['TRX', 'USDT']);
    for (const item of before.items) {
      expect(Object.keys(item).sort()).toEqual(['balance_available', 'balance_locked', 'balance_updated_at', 'symbol']);
      expect(item.balance_available).toMatch(INTEGER_STRING);
      expect(item.balance_locked).toMatch(INTEGER_STRING);
      expect(item.balance_updated_at).toMatch(WALLET_TIME);
    }
    h.devnet.fundToken(user.sub, 1_234_567n);
    const refreshed = ok(await h.call('POST', `/api/wallets/${user.sub}/balances/refresh`, { token: user.apiToken }));
    expect(refreshed.refresh_source).toBe(2);
    expect(refreshed.items).toContainEqual(expect.objectContaining({ symbol: 'USDT', balance_available: '1234567', balance_locked: '0' }));
    expect(ok(await h.call('GET', `/api/wallets/${user.sub}/balances`, { token: user.apiToken })).refresh_source).toBe(2);
    fails(await h.call('POST', `/api/wallets/${u.sub}/balances/refresh`, { token: user.apiToken }), 404, 'BIZ-WALLET-ADDRESS-NOT-FOUND');
    // The refresh is recorded as a QUERY command (type 1) of the caller.
    const queries = ok(await h.call('GET', '/api/commands?type=1', { token: user.apiToken }));
    expect(queries.pagination.total).toBe(1);
    expect(queries.items[0]).toMatchObject({ type: 1, status: 3, error_code: null, last_error: null });
  });

  it('§2 chain resources: integers where the spec says integer, SUN amounts as integer strings', async () => {
    const data = ok(await h.call('GET', `/api/wallets/${u.main}/resources`, { token: u.apiToken }));
    expect(Object.keys(data).sort()).toEqual(['bandwidth', 'delegated_to', 'energy', 'received_from', 'withdrawable_sun']);
    for (const f of ['available', 'used', 'limit']) expect(Number.isInteger(data.energy[f]), f).toBe(true);
    for (const f of ['staked_sun', 'delegated_out_sun', 'received_sun']) expect(data.energy[f], f).toMatch(INTEGER_STRING);
    for (const f of ['free_available', 'free_used', 'free_limit', 'staked_available', 'staked_used', 'staked_limit']) {
      expect(Number.isInteger(data.bandwidth[f]), f).toBe(true);
    }
    for (const f of ['staked_sun', 'delegated_out_sun', 'received_sun']) expect(data.bandwidth[f], f).toMatch(INTEGER_STRING);
    expect(data.withdrawable_sun).toMatch(INTEGER_STRING);
    expect(data.energy.available).toBe(data.energy.limit - data.energy.used);
  });

  it('§4 POST /collections: exact fields, started_at set and finished_at null, a COLLECTION command (type 3); asset symbols are case-sensitive', async () => {
    const user = await userWithWallets(h);
    h.devnet.fundToken(user.sub, 5_000_000n);
    ok(await h.call('POST', `/api/wallets/${user.sub}/balances/refresh`, { token: user.apiToken, body: { force: true } }));
    // The cashier minimum (spec §4 cashier) does not apply to the developer's own collection.
    ok(await h.call('PUT', '/api/subscriptions/config', {
      token: user.session, body: { service_code: 'developer', config: { min_collect_amounts: { USDT: '10000000' } } },
    }));
    fails(await h.call('POST', '/api/collections', { token: user.apiToken, headers: key(), body: { address: user.sub, asset_symbol: 'usdt' } }), 422, 'BIZ-ASSET-NOT-FOUND');
    invalid(await h.call('POST', '/api/collections', { token: user.apiToken, headers: key(), body: { address: user.sub } }), 'asset_symbol');
    invalid(await h.call('POST', '/api/collections', { token: user.apiToken, headers: key(), body: { asset_symbol: 'USDT' } }), 'address');
    const task = ok(await h.call('POST', '/api/collections', { token: user.apiToken, headers: key(), body: { address: user.sub, asset_symbol: 'USDT' } }), 201);
    expect(Object.keys(task).sort()).toEqual(['command_no', 'error_code', 'finished_at', 'last_error', 'started_at', 'status', 'task_no']);
    expect(task).toMatchObject({ status: 1, error_code: null, last_error: null, finished_at: null });
    expect(task.started_at).toMatch(WALLET_TIME);
    expect(ok(await h.call('GET', `/api/collections/${task.task_no}`, { token: user.apiToken }))).toEqual(task);
    const command = ok(await h.call('GET', `/api/commands/${task.command_no}`, { token: user.apiToken }));
    expect(command).toMatchObject({ command_no: task.command_no, type: 3, status: 1 });
    const listed = ok(await h.call('GET', '/api/commands?type=3', { token: user.apiToken }));
    expect(listed.items.map((c: { command_no: string }) => c.command_no)).toEqual([task.command_no]);
    fails(await h.call('GET', `/api/collections/${task.task_no}`, { token: u.apiToken }), 404, 'BIZ-COLLECTION-TASK-NOT-FOUND');
    fails(await h.call('GET', `/api/commands/${task.command_no}`, { token: u.apiToken }), 404, 'BIZ-COMMAND-NOT-FOUND');
    // The lock covers every fund-moving command of the address, whatever the asset.
    fails(await h.call('POST', '/api/collections', { token: user.apiToken, headers: key(), body: { address: user.sub, asset_symbol: 'TRX' } }), 409, 'BIZ-COMMAND-LOCKED');
  });

  it('§4 POST /cashier/tokens: ttl_minutes defaults to 60 and sets expires_at; only 60/120/480/1440 as JSON integers', async () => {
    const user = await userWithWallets(h);
    for (const ttl of [30, '60', null, 61, 60.5]) {
      invalid(await h.call('POST', '/api/cashier/tokens', { token: user.apiToken, body: { address: user.sub, ttl_minutes: ttl } }), 'ttl_minutes');
    }
    for (const ttl of [undefined, 60, 120, 480, 1440]) {
      const created = ok(await h.call('POST', '/api/cashier/tokens', { token: user.apiToken, body: { address: user.sub, ttl_minutes: ttl } }), 201);
      const minutes = ttl ?? 60;
      expect(created.ttl_minutes).toBe(minutes);
      expect(Date.parse(created.expires_at) - Date.parse(created.created_at)).toBe(minutes * MINUTE);
      expect(created.created_at).toMatch(ISO_TIME);
      const disabled = ok(await h.call('DELETE', `/api/cashier/tokens/${created.token_no}`, { token: user.apiToken, body: { reason: 'rotated' } }));
      expect(disabled).toEqual({ token_no: created.token_no, status: 'disabled', disabled_at: expect.stringMatching(ISO_TIME), disable_reason: 'rotated' });
    }
    const listed = ok(await h.call('GET', '/api/cashier/tokens?per_page=100', { token: user.apiToken }));
    expect(listed.meta).toEqual({ current_page: 1, per_page: 100, total: 5, last_page: 1 });
    expect(listed.data.every((t: { status: string; disable_reason: string }) => t.status === 'disabled' && t.disable_reason === 'rotated')).toBe(true);
  });

  it('§4 DELETE /cashier/tokens: another user\'s token is 404; a non-string reason is 422 and leaves the token active', async () => {
    const user = await userWithWallets(h);
    const ct = ok(await h.call('POST', '/api/cashier/tokens', { token: user.apiToken, body: { address: user.sub } }), 201);
    fails(await h.call('DELETE', `/api/cashier/tokens/${ct.token_no}`, { token: u.apiToken }), 404, 'CASHIER-TOKEN-NOT-FOUND');
    invalid(await h.call('DELETE', `/api/cashier/tokens/${ct.token_no}`, { token: user.apiToken, body: { reason: 5 } }), 'reason');
    ok(await h.call('GET', '/api/cashier/session', { token: ct.token }));
  });

  it('§3/§5 cashier expiry: balance and task requests slide it too; at expires_at the token is invalid; DELETE still disables it', async () => {
    const user = await userWithWallets(h);
    const ct = ok(await h.call('POST', '/api/cashier/tokens', { token: user.apiToken, body: { address: user.sub } }), 201);
    const expiresAt = async (): Promise<number> => Date.parse(ok(await h.call('GET', '/api/cashier/tokens', { token: user.apiToken }))
      .data.find((t: { token_no: string }) => t.token_no === ct.token_no).expires_at);
    h.clock.advance(10 * MINUTE);
    ok(await h.call('GET', '/api/cashier/balance', { token: ct.token }));
    expect(await expiresAt()).toBe(h.clock.now() + 60 * MINUTE);
    h.clock.advance(10 * MINUTE);
    ok(await h.call('GET', '/api/cashier/task', { token: ct.token }));
    expect(await expiresAt()).toBe(h.clock.now() + 60 * MINUTE);
    h.clock.advance(60 * MINUTE);
    fails(await h.call('GET', '/api/cashier/task', { token: ct.token }), 401, 'CASHIER-TOKEN-INVALID');
    expect(ok(await h.call('DELETE', `/api/cashier/tokens/${ct.token_no}`, { token: user.apiToken })).status).toBe('disabled');
  });

  it('§4 cashier payment API: balance has no refresh_source; collect validation; a developer collection is the session\'s active_task and locks collect', async () => {
    const user = await userWithWallets(h);
    h.devnet.fundToken(user.sub, 5_000_000n);
    ok(await h.call('POST', `/api/wallets/${user.sub}/balances/refresh`, { token: user.apiToken, body: { force: true } }));
    ok(await h.call('PUT', '/api/subscriptions/config', {
      token: user.session, body: { service_code: 'developer', config: { min_collect_amounts: { USDT: '5000000' } } },
    }));
    const ct = ok(await h.call('POST', '/api/cashier/tokens', { token: user.apiToken, body: { address: user.sub } }), 201);
    const balance = ok(await h.call('GET', '/api/cashier/balance', { token: ct.token }));
    expect(Object.keys(balance).sort()).toEqual(['address', 'balance_updated_at', 'items']);
    for (const item of balance.items) expect(item.balance_updated_at).toMatch(ISO_TIME);
    invalid(await h.call('POST', '/api/cashier/collect', { token: ct.token, body: { asset_symbol: 'USDT' } }), 'Idempotency-Key');
    invalid(await h.call('POST', '/api/cashier/collect', { token: ct.token, headers: key(), body: {} }), 'asset_symbol');
    fails(await h.call('POST', '/api/cashier/collect', { token: ct.token, headers: key(), body: { asset_symbol: 'usdt' } }), 422, 'BIZ-ASSET-NOT-FOUND');
    const task = ok(await h.call('POST', '/api/collections', { token: user.apiToken, headers: key(), body: { address: user.sub, asset_symbol: 'USDT' } }), 201);
    const session = ok(await h.call('GET', '/api/cashier/session', { token: ct.token }));
    expect(session.active_task).toMatchObject({ task_no: task.task_no, command_no: task.command_no, status: 1 });
    expect(session.active_task).not.toHaveProperty('error_code');
    fails(await h.call('POST', '/api/cashier/collect', { token: ct.token, headers: key(), body: { asset_symbol: 'TRX' } }), 409, 'BIZ-COMMAND-LOCKED');
  });

  it('§4 POST /cashier/collect: a balance exactly at the minimum is not below it (201); a risk-blocked owner is 403 (documented)', async () => {
    const user = await userWithWallets(h);
    h.devnet.fundToken(user.sub, 5_000_000n);
    ok(await h.call('POST', `/api/wallets/${user.sub}/balances/refresh`, { token: user.apiToken, body: { force: true } }));
    ok(await h.call('PUT', '/api/subscriptions/config', {
      token: user.session, body: { service_code: 'developer', config: { min_collect_amounts: { USDT: '5000000' } } },
    }));
    const ct = ok(await h.call('POST', '/api/cashier/tokens', { token: user.apiToken, body: { address: user.sub } }), 201);
    expect(ok(await h.call('POST', '/api/cashier/collect', { token: ct.token, headers: key(), body: { asset_symbol: 'USDT' } }), 201).status).toBe(1);
    const risky = await userWithWallets(h);
    const ct2 = ok(await h.call('POST', '/api/cashier/tokens', { token: risky.apiToken, body: { address: risky.sub } }), 201);
    ok(await h.call('POST', '/api/admin/risk/deny', { token: h.adminToken, body: { kind: 'user', value: String(risky.userId), reason: 'audit' } }), 201);
    fails(await h.call('POST', '/api/cashier/collect', { token: ct2.token, headers: key(), body: { asset_symbol: 'TRX' } }), 403, 'RISK-REVIEW-BLOCKED');
  });

  it('§5 bearer scheme: case-insensitive; another scheme or a bare token is "no bearer token"', async () => {
    const user = await userWithWallets(h);
    const ct = ok(await h.call('POST', '/api/cashier/tokens', { token: user.apiToken, body: { address: user.sub } }), 201);
    ok(await h.call('GET', '/api/cashier/session', { headers: { authorization: `bearer ${ct.token}` } }));
    ok(await h.call('GET', '/api/wallets', { headers: { authorization: `BEARER ${user.apiToken}` } }));
    for (const authorization of ['Basic abc', 'Bearer', ct.token]) {
      fails(await h.call('GET', '/api/cashier/session', { headers: { authorization } }), 401, 'CASHIER-TOKEN-MISSING');
    }
    for (const authorization of ['Basic abc', user.apiToken, 'Bearer ct_unknown']) {
      fails(await h.call('GET', '/api/wallets', { headers: { authorization } }), 401, 'UNAUTHENTICATED');
    }
  });

  it('§8 limits are keyed by user id: a second Developer API Token of the same user shares the bucket', async () => {
    const user = await userWithWallets(h);
    const second = ok(await h.call('POST', '/api/api-tokens', { token: user.session, body: { name: 'second' } }), 201).token;
    h.clock.advance(MINUTE);
    for (let i = 0; i < 20; i++) fails(await h.call('POST', '/api/wallets', { token: user.apiToken, body: { network_code: 'BTC', address_type: 1 } }), 422, 'BIZ-NETWORK-NOT-FOUND');
    const refused = await h.call('POST', '/api/wallets', { token: second, body: { network_code: 'BTC', address_type: 1 } });
    fails(refused, 429, 'RATE-LIMITED');
    expect(refused.headers.get('retry-after')).toBe('60');
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
    h.clock.advance(MINUTE);
  });

  it('§6 webhook_url: an explicit :443 is the default port and accepted; other ports are VALIDATION-ERROR naming webhook_url', async () => {
    const user = await signUp(h);
    const put = (url: string): Promise<HttpResult> => h.call('PUT', '/api/subscriptions/config', {
      token: user.session, body: { service_code: 'developer', config: { webhook_url: url, webhook_secret: 'a-webhook-secret-of-some-length' } },
    });
    const pending = ok(await put('https://8.8.8.8:443/hook'));
    expect(pending.webhook).toMatchObject({ status: 'pending', url: null });
    expect(pending.webhook.pending_url).toMatch(/^https:\/\/8\.8\.8\.8\/hook$/);
    for (const url of ['https://8.8.8.8:8443/hook', 'https://8.8.8.8:0/hook', 'http://8.8.8.8/hook', 'ftp://8.8.8.8/', 'not a url']) invalid(await put(url), 'webhook_url');
    fails(await put('https://100.64.0.1/hook'), 422, 'BIZ-WEBHOOK-URL-BLOCKED');
  });
  it('§7 BIZ-AMOUNT-INVALID: an amount the chain cannot carry (above int64) is refused before any command exists; the int64 maximum is accepted', async () => {
    const user = await userWithWallets(h, 'pro');
    const transfer = (amount: string): Promise<HttpResult> => h.call('POST', '/api/transfers', {
      token: user.session, headers: key(), body: { from_address: user.main, to_address: user.sub, asset_symbol: 'TRX', amount },
    });
    const stake = async (amount: string): Promise<HttpResult> =>
      h.call('POST', `/api/wallets/${await createWallet(h, user, 2)}/stake`, { token: user.session, headers: key(), body: { resource: 'ENERGY', amount } });
    for (const amount of ['9223372036854775808', '18446744073709551617', '99999999999999999999999999']) {
      fails(await transfer(amount), 422, 'BIZ-AMOUNT-INVALID');
      fails(await stake(amount), 422, 'BIZ-AMOUNT-INVALID');
    }
    expect(ok(await h.call('GET', '/api/commands?type=2', { token: user.apiToken })).pagination.total).toBe(0);
    expect(ok(await h.call('GET', '/api/commands?type=4', { token: user.apiToken })).pagination.total).toBe(0);
    expect(ok(await transfer('9223372036854775807'), 201).status).toBe(1);
    expect(ok(await stake('9223372036854775807'), 201).status).toBe(1);
  });
  it('§2/§3 terminal tasks through the API: DONE and FAILED carry finished_at, the task and command error fields, and release the lock', async () => {
    const user = await userWithWallets(h);
    const fundedSub = await createWallet(h, user, 2);
    h.devnet.fund(fundedSub, 5_000_000);
    // An activated main address: a TRX sweep to a main address that never received anything fails on chain
    // (account-creation fee), which is the worker's concern, not this file's (reported).
    h.devnet.fund(user.main, 1_000_000);
    h.devnet.mine(1);
    ok(await h.call('POST', `/api/wallets/${fundedSub}/balances/refresh`, { token: user.apiToken, body: { force: true } }));
    const ct = ok(await h.call('POST', '/api/cashier/tokens', { token: user.apiToken, body: { address: fundedSub } }), 201);
    const done = ok(await h.call('POST', '/api/cashier/collect', { token: ct.token, headers: key(), body: { asset_symbol: 'TRX' } }), 201);
    // The cache says user.sub holds 1 TRX, the chain that it holds nothing (a stale snapshot): the task is made and
    // fails at PENDING (docs/decisions.md 29).
    await cacheCollectable(h, user.sub);
    const failed = ok(await h.call('POST', '/api/collections', { token: user.apiToken, headers: key(), body: { address: user.sub, asset_symbol: 'TRX' } }), 201);
    // The harness's composition, as the worker host would get it (only the container is read).
    const worker = startComposedWorker({ container: h.container } as unknown as Composition, {}, { manual: true, collection: { confirmations: 1 } });
    const task = async (taskNo: string): Promise<any> => ok(await h.call('GET', `/api/collections/${taskNo}`, { token: user.apiToken }));
    try {
      await driveUntil({ devnet: h.devnet, clock: h.clock }, [{ runDue: () => worker.tick() }],
        async () => (await task(done.task_no)).status >= 11 && (await task(failed.task_no)).status >= 11, { maxRounds: 60 });
    } finally {
      await worker.stop();
    }
    const doneView = await task(done.task_no);
    expect(doneView, JSON.stringify(doneView)).toMatchObject({ status: 11, error_code: null, last_error: null });
    expect(doneView.finished_at).toMatch(WALLET_TIME);
    expect(ok(await h.call('GET', `/api/commands/${done.command_no}`, { token: user.apiToken }))).toMatchObject({ type: 3, status: 3, error_code: null });
    const cashierView = ok(await h.call('GET', '/api/cashier/task', { token: ct.token }));
    expect(cashierView).toMatchObject({ task_no: done.task_no, status: 11, last_error: null });
    expect(cashierView.finished_at).toMatch(ISO_TIME);
    expect(cashierView).not.toHaveProperty('error_code');

    const failedView = await task(failed.task_no);
    expect(failedView.status).toBe(12);
    expect(typeof failedView.error_code).toBe('string');
    expect(typeof failedView.last_error).toBe('string');
    expect(failedView.finished_at).toMatch(WALLET_TIME);
    const command = ok(await h.call('GET', `/api/commands/${failed.command_no}`, { token: user.apiToken }));
    expect(command).toMatchObject({ type: 3, status: 4, error_code: failedView.error_code });
    expect(command.finished_at).toMatch(WALLET_TIME);
    // Terminal tasks hold nothing: the addresses take a new collection (no 409) and show no locked balance.
    for (const address of [fundedSub, user.sub]) {
      const items = ok(await h.call('GET', `/api/wallets/${address}/balances`, { token: user.apiToken })).items;
      expect(items.every((i: { balance_locked: string }) => i.balance_locked === '0')).toBe(true);
    }
    ok(await h.call('POST', '/api/collections', { token: user.apiToken, headers: key(), body: { address: user.sub, asset_symbol: 'USDT' } }), 201);
  });
  it('§1 502 when the node is down on GET .../resources (a chain query); cached reads and queued commands do not need the node', async () => {
    const user = await userWithWallets(h);
    await cacheCollectable(h, user.sub);
    h.devnet.setFaults({ node_down: true });
    try {
      fails(await h.call('GET', `/api/wallets/${user.main}/resources`, { token: user.apiToken }), 502, 'CHAIN-BALANCE-QUERY-FAILED');
      ok(await h.call('GET', `/api/wallets/${user.sub}/balances`, { token: user.apiToken }));
      ok(await h.call('POST', '/api/collections', { token: user.apiToken, headers: key(), body: { address: user.sub, asset_symbol: 'USDT' } }), 201);
    } finally {
      h.devnet.setFaults({ node_down: false });
    }
  });
});
