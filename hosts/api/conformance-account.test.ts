import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpWebhookTransport, startLocalReceiver, type LocalWebhookReceiver } from '../../adapters/http/index.js';
import { NodeDnsResolver } from '../../adapters/node/index.js';
import { startHarness, type ApiHarness } from './test-harness.js';
import { cacheCollectable, expectDocumented, fails, ISO_TIME, ok, signUp, userWithWallets, expectAnswersDocumented } from './api-test-fixtures.js';

/** The session-token endpoints of spec §4/§5 and DESIGN.md (accounts, plans, tokens, webhook config, transfers), admin and system routes. */
describe('session, admin and system endpoints', () => {
  let h: ApiHarness;
  let receiver: LocalWebhookReceiver;

  beforeAll(async () => {
    receiver = await startLocalReceiver();
    h = await startHarness({ transport: new HttpWebhookTransport({ resolver: new NodeDnsResolver(), allowLocal: true }) });
  });
  afterAll(async () => {
    expectAnswersDocumented(h);
    await h.close();
    await receiver.close();
  });

  it('register 201 → verify → login {session_token st_, expires_at ISO} → logout revokes the session', async () => {
    const email = `flow-${randomUUID()}@example.com`;
    const password = 'a long enough password';
    const reg = await h.call('POST', '/api/auth/register', { body: { email, password } });
    expectDocumented(h, 'POST', '/api/auth/register', ok(reg, 201));
    // Every registration of an unverified e-mail is its own, with its own id and code; none is refused (issue #26 item 6).
    const other = ok(await h.call('POST', '/api/auth/register', { body: { email, password: 'another long password' } }), 201);
    expect(other.email).toBe(reg.json.data.email);
    expect(other.user_id).not.toBe(reg.json.data.user_id);
    const newest = ok(await h.call('POST', '/api/auth/register', { body: { email, password } }), 201);
    fails(await h.call('POST', '/api/auth/login', { body: { email, password } }), 403, 'AUTH-NOT-VERIFIED');
    const code = h.mailer.lastCodeFor(email)!;
    expect(code).toMatch(/^\d{6}$/);
    const wrong = code === '000000' ? '111111' : '000000';
    fails(await h.call('POST', '/api/auth/verify', { body: { email, code: wrong } }), 422, 'AUTH-VERIFICATION-FAILED');
    // Three registrations are pending: the code counts with its own registration's password (issue #35 item 7).
    fails(await h.call('POST', '/api/auth/verify', { body: { email, code } }), 422, 'VALIDATION-ERROR');
    const verified = ok(await h.call('POST', '/api/auth/verify', { body: { email, code, password } }));
    expectDocumented(h, 'POST', '/api/auth/verify', verified);
    expect(verified.user_id).toBe(newest.user_id);
    // Three registrations of one e-mail an hour from one network (docs/decisions.md 60, 128): the fourth waits for the
    // next window. An e-mail with an account answers like any other: 201, a fresh id, a note by mail instead of a code.
    fails(await h.call('POST', '/api/auth/register', { body: { email, password } }), 429, 'RATE-LIMITED');
    h.clock.advance(60 * 60_000);
    const owned = ok(await h.call('POST', '/api/auth/register', { body: { email, password: 'a squatter password' } }), 201);
    expect(Object.keys(owned).sort()).toEqual(['email', 'user_id']);
    expect(h.mailer.accountExistsSent.at(-1)).toBe(email);
    fails(await h.call('POST', '/api/auth/login', { body: { email, password: 'nope nope nope' } }), 401, 'AUTH-INVALID-CREDENTIALS');
    fails(await h.call('POST', '/api/auth/login', { body: { email: `x${email}`, password } }), 401, 'AUTH-INVALID-CREDENTIALS');
    const login = ok(await h.call('POST', '/api/auth/login', { body: { email, password } }));
    expectDocumented(h, 'POST', '/api/auth/login', login);
    expect(login.session_token).toMatch(/^st_/);
    expect(login.expires_at).toMatch(ISO_TIME);
    const missing = await h.call('POST', '/api/auth/register', { body: { password } });
    fails(missing, 422, 'VALIDATION-ERROR');
    expect(missing.json.message).toContain('email');
    expect(ok(await h.call('POST', '/api/auth/logout', { token: login.session_token }))).toEqual({});
    fails(await h.call('POST', '/api/subscriptions/activate', { token: login.session_token, body: { service_code: 'developer' } }), 401, 'UNAUTHENTICATED');
  });

  it('a session token expires after 24 h; a Developer API Token does not expire (spec §5)', async () => {
    const user = await signUp(h);
    h.clock.advance(24 * 60 * 60_000 - 1);
    ok(await h.call('GET', '/api/subscriptions/config/developer', { token: user.session }));
    h.clock.advance(1);
    fails(await h.call('GET', '/api/subscriptions/config/developer', { token: user.session }), 401, 'UNAUTHENTICATED');
    h.clock.advance(400 * 24 * 60 * 60_000);
    ok(await h.call('GET', '/api/wallets', { token: user.apiToken }));
  });

  it('subscriptions/activate and api-tokens: plans, shapes, errors; revoke makes the dk_ token 401', async () => {
    const user = await signUp(h, { subPlan: null });
    const sub = ok(await h.call('POST', '/api/subscriptions/activate', { token: user.session, body: { service_code: 'sub_address', plan_code: 'pro' } }));
    expectDocumented(h, 'POST', '/api/subscriptions/activate', sub);
    expect(sub).toMatchObject({ service_code: 'sub_address', plan_code: 'pro', status: 'active', meta: { max_sub_addresses: 1000 } });
    const unlimited = ok(await h.call('POST', '/api/subscriptions/activate', { token: user.session, body: { service_code: 'sub_address', plan_code: 'unlimited' } }));
    expect(unlimited.meta.max_sub_addresses).toBe(-1);
    fails(await h.call('POST', '/api/subscriptions/activate', { token: user.session, body: { service_code: 'gold' } }), 422, 'BIZ-SERVICE-NOT-FOUND');
    fails(await h.call('POST', '/api/subscriptions/activate', { token: user.session, body: { service_code: 'sub_address', plan_code: 'mega' } }), 422, 'BIZ-PLAN-NOT-FOUND');
    const created = ok(await h.call('POST', '/api/api-tokens', { token: user.session, body: { name: 'ci' } }), 201);
    expectDocumented(h, 'POST', '/api/api-tokens', created);
    expect(created.token).toMatch(/^dk_/);
    expect(created.abilities).toEqual(['api:access']);
    ok(await h.call('GET', '/api/wallets', { token: created.token }));
    const revoked = ok(await h.call('DELETE', `/api/api-tokens/${created.id}`, { token: user.session }));
    expectDocumented(h, 'DELETE', '/api/api-tokens/:id', revoked);
    expect(revoked.id).toBe(created.id);
    fails(await h.call('GET', '/api/wallets', { token: created.token }), 401, 'UNAUTHENTICATED');
    fails(await h.call('DELETE', `/api/api-tokens/${created.id + 1000}`, { token: user.session }), 404, 'API-TOKEN-NOT-FOUND');
    const other = await signUp(h);
    fails(await h.call('DELETE', `/api/api-tokens/${other.apiTokenId}`, { token: user.session }), 404, 'API-TOKEN-NOT-FOUND');
    const email = `nodev-${randomUUID()}@example.com`;
    ok(await h.call('POST', '/api/auth/register', { body: { email, password: 'password password' } }), 201);
    ok(await h.call('POST', '/api/auth/verify', { body: { email, code: h.mailer.lastCodeFor(email) } }));
    const session = ok(await h.call('POST', '/api/auth/login', { body: { email, password: 'password password' } })).session_token;
    fails(await h.call('POST', '/api/api-tokens', { token: session, body: { name: 'x' } }), 422, 'BIZ-DEVELOPER-SUBSCRIPTION-REQUIRED');
  });

  it('webhook config: spec §2 status object through pending → verified → changed → rejected → removed; secret never returned', async () => {
    const user = await signUp(h);
    const secret = `whsec-${randomUUID()}`;
    const initial = ok(await h.call('GET', '/api/subscriptions/config/developer', { token: user.session }));
    expectDocumented(h, 'GET', '/api/subscriptions/config/developer', initial);
    expect(initial.webhook).toEqual({ status: 'unconfigured', url: null, pending_url: null, pending_since: null, verified_at: null, review_note: null });
    const put = (config: Record<string, unknown>) => h.call('PUT', '/api/subscriptions/config', { token: user.session, body: { service_code: 'developer', config } });
    fails(await put({ webhook_url: 'http://example.com/hook', webhook_secret: secret }), 422, 'VALIDATION-ERROR');
    fails(await put({ webhook_url: 'https://example.com:8443/hook', webhook_secret: secret }), 422, 'VALIDATION-ERROR');
    fails(await put({ webhook_url: 'https://10.0.0.1/hook', webhook_secret: secret }), 422, 'BIZ-WEBHOOK-URL-BLOCKED');
    fails(await put({ webhook_url: 'https://169.254.169.254/hook', webhook_secret: secret }), 422, 'BIZ-WEBHOOK-URL-BLOCKED');
    // Deposit events are opt-in: an unknown type, or a list that is not one, is refused in the envelope.
    fails(await put({ event_types: ['deposit.created'] }), 422, 'VALIDATION-ERROR');
    fails(await put({ event_types: 'deposit.confirmed' }), 422, 'VALIDATION-ERROR');
    expect(ok(await put({ event_types: ['deposit.confirmed'] })).config.event_types).toContain('deposit.confirmed');
    expect(ok(await put({ event_types: [] })).config.event_types).not.toContain('deposit.confirmed');
    // Automatic collection (issue #24 item 4): malformed rules are refused in the envelope; a good one is shown back.
    fails(await put({ auto_collect: { DOGE: { min_amount: '1', max_fee_sun: '1' } } }), 422, 'VALIDATION-ERROR');
    fails(await put({ auto_collect: { USDT: { min_amount: '-1', max_fee_sun: '1' } } }), 422, 'VALIDATION-ERROR');
    fails(await put({ auto_collect: { USDT: { min_amount: '10', max_fee_sun: '1.5' } } }), 422, 'VALIDATION-ERROR');
    const rule = { USDT: { min_amount: '10000000', max_fee_sun: '3000000' } };
    expect(ok(await put({ auto_collect: rule })).config.auto_collect).toEqual(rule);
    expect(ok(await put({ auto_collect: null })).config.auto_collect).toEqual({});
    const first = `${receiver.origin}/hook-a`;
    const pending = ok(await put({ webhook_url: first, webhook_secret: secret }));
    expectDocumented(h, 'PUT', '/api/subscriptions/config', pending);
    expect(pending.webhook).toMatchObject({ status: 'pending', url: null, pending_url: first, verified_at: null, review_note: null });
    expect(pending.webhook.pending_since).toMatch(ISO_TIME);
    fails(await h.call('POST', '/api/webhooks/debug/test', { token: user.session }), 422, 'BIZ-WEBHOOK-URL-UNVERIFIED');

    const queue = ok(await h.call('GET', '/api/admin/webhooks/pending', { token: h.adminToken }));
    expectDocumented(h, 'GET', '/api/admin/webhooks/pending', queue);
    expect(queue).toContainEqual(expect.objectContaining({ user_id: user.userId, pending_url: first }));
    const approved = ok(await h.call('POST', `/api/admin/webhooks/${user.userId}/approve`, { token: h.adminToken, body: { url: first } }));
    expectDocumented(h, 'POST', '/api/admin/webhooks/:userId/approve', approved);
    expect(approved).toMatchObject({ status: 'verified', url: first, pending_url: null });
    fails(await h.call('POST', `/api/admin/webhooks/${user.userId}/approve`, { token: h.adminToken, body: { url: first } }), 409, 'BIZ-WEBHOOK-NOT-PENDING');
    fails(await h.call('POST', '/api/admin/webhooks/999999/approve', { token: h.adminToken, body: { url: first } }), 404, 'BIZ-USER-NOT-FOUND');

    const tested = ok(await h.call('POST', '/api/webhooks/debug/test', { token: user.session }));
    expectDocumented(h, 'POST', '/api/webhooks/debug/test', tested);
    expect(tested).toMatchObject({ url: first, delivered: true, http_status: 200, error: null });
    expect(receiver.received.at(-1)?.headers['x-webhook-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);

    const second = `${receiver.origin}/hook-b`;
    const changed = ok(await put({ webhook_url: second }));
    expect(changed.webhook).toMatchObject({ status: 'pending', url: first, pending_url: second });
    // Spec §3: putting back the live URL cancels the pending change.
    const cancelled = ok(await put({ webhook_url: first }));
    expect(cancelled.webhook).toMatchObject({ status: 'verified', url: first, pending_url: null, pending_since: null });
    ok(await put({ webhook_url: second }));
    const rejected = ok(await h.call('POST', `/api/admin/webhooks/${user.userId}/reject`, { token: h.adminToken, body: { note: 'not ours' } }));
    expect(rejected).toMatchObject({ url: first, pending_url: null, review_note: 'not ours' });
    const config = await h.call('GET', '/api/subscriptions/config/developer', { token: user.session });
    expect(ok(config).webhook).toMatchObject({ status: 'verified', url: first, pending_url: null, review_note: 'not ours' });
    expect(ok(config).config.webhook_secret_set).toBe(true);
    expect(config.text).not.toContain(secret);
    expect(config.text).not.toMatch(/webhook_secret"/);
    const removed = ok(await put({ webhook_url: '' }));
    expect(removed.webhook).toEqual({ status: 'unconfigured', url: null, pending_url: null, pending_since: null, verified_at: null, review_note: null });

    const deliveries = ok(await h.call('GET', '/api/webhooks/deliveries', { token: user.session }));
    expectDocumented(h, 'GET', '/api/webhooks/deliveries', deliveries);
    expect(deliveries.pagination).toMatchObject({ page: 1, per_page: 20 });
    fails(await h.call('GET', '/api/webhooks/deliveries?per_page=101', { token: user.session }), 422, 'VALIDATION-ERROR');
  });

  it('POST /transfers: 201 {command_no, status}, BIZ-AMOUNT-INVALID, asset, address, lock, idempotency', async () => {
    const user = await userWithWallets(h);
    const key = (): Record<string, string> => ({ 'idempotency-key': randomUUID() });
    const body = (amount: unknown, asset = 'TRX', from = user.main): unknown => ({ from_address: from, to_address: user.sub, asset_symbol: asset, amount });
    for (const amount of ['0', '-1', '1.5', 'abc', 5]) {
      fails(await h.call('POST', '/api/transfers', { token: user.session, headers: key(), body: body(amount) }), 422, 'BIZ-AMOUNT-INVALID');
    }
    fails(await h.call('POST', '/api/transfers', { token: user.session, headers: key(), body: body('1', 'DOGE') }), 422, 'BIZ-ASSET-NOT-FOUND');
    const foreign = await h.call('POST', '/api/transfers', { token: user.session, headers: key(), body: body('1', 'TRX', 'TUnknownAddressXXXXXXXXXXXXXXXXXXX') });
    expect(foreign.json.code).toBe('BIZ-WALLET-ADDRESS-NOT-FOUND');
    fails(await h.call('POST', '/api/transfers', { token: user.session, body: body('1') }), 422, 'VALIDATION-ERROR');
    fails(await h.call('POST', '/api/transfers', { token: user.apiToken, headers: key(), body: body('1') }), 403, 'FORBIDDEN');
    const accepted = ok(await h.call('POST', '/api/transfers', { token: user.session, headers: key(), body: body('1000') }), 201);
    expectDocumented(h, 'POST', '/api/transfers', accepted);
    expect(accepted.status).toBe(1);
    expect(ok(await h.call('GET', `/api/commands/${accepted.command_no}`, { token: user.apiToken })).type).toBe(2);
    fails(await h.call('POST', '/api/transfers', { token: user.session, headers: key(), body: body('1000') }), 409, 'BIZ-COMMAND-LOCKED');
  });

  it('admin: auth, cancel a command, risk deny-list, quota', async () => {
    fails(await h.call('GET', '/api/admin/risk/deny'), 401, 'UNAUTHENTICATED');
    fails(await h.call('GET', '/api/admin/risk/deny', { token: 'wrong-admin-token-0123456789abcdef' }), 401, 'UNAUTHENTICATED');
    const user = await userWithWallets(h);
    await cacheCollectable(h, user.sub);
    fails(await h.call('GET', '/api/admin/risk/deny', { token: user.apiToken }), 403, 'FORBIDDEN');
    const entry = ok(await h.call('POST', '/api/admin/risk/deny', { token: h.adminToken, body: { kind: 'user', value: String(user.userId), reason: 'fraud' } }), 201);
    expectDocumented(h, 'POST', '/api/admin/risk/deny', entry);
    const list = ok(await h.call('GET', '/api/admin/risk/deny', { token: h.adminToken }));
    expectDocumented(h, 'GET', '/api/admin/risk/deny', list);
    expect(list).toContainEqual(entry);
    fails(await h.call('POST', '/api/collections', {
      token: user.apiToken, headers: { 'idempotency-key': randomUUID() }, body: { address: user.sub, asset_symbol: 'TRX' },
    }), 403, 'RISK-REVIEW-BLOCKED');
    const removed = ok(await h.call('DELETE', `/api/admin/risk/deny/user/${user.userId}`, { token: h.adminToken }));
    expect(removed).toEqual({ removed: true });
    const task = ok(await h.call('POST', '/api/collections', {
      token: user.apiToken, headers: { 'idempotency-key': randomUUID() }, body: { address: user.sub, asset_symbol: 'TRX' },
    }), 201);
    const cancelled = ok(await h.call('POST', `/api/admin/commands/${task.command_no}/cancel`, { token: h.adminToken }));
    expectDocumented(h, 'POST', '/api/admin/commands/:commandNo/cancel', cancelled);
    expect(cancelled.status).toBe(6);
    fails(await h.call('POST', `/api/admin/commands/${task.command_no}/cancel`, { token: h.adminToken }), 409, 'BIZ-COMMAND-NOT-CANCELLABLE');
    fails(await h.call('POST', '/api/admin/commands/CMD-NOPE/cancel', { token: h.adminToken }), 404, 'BIZ-COMMAND-NOT-FOUND');
    const quota = ok(await h.call('PUT', `/api/admin/users/${user.userId}/quota`, { token: h.adminToken, body: { max_sub_addresses: 7 } }));
    expectDocumented(h, 'PUT', '/api/admin/users/:userId/quota', quota);
    expect(quota).toEqual({ user_id: user.userId, max_sub_addresses: 7 });
    fails(await h.call('PUT', '/api/admin/users/999999/quota', { token: h.adminToken, body: { max_sub_addresses: 7 } }), 404, 'BIZ-USER-NOT-FOUND');
  });

  it('healthz, readyz and openapi.json need no token', async () => {
    expect(ok(await h.call('GET', '/api/healthz'))).toEqual({ status: 'ok' });
    const ready = ok(await h.call('GET', '/api/readyz'));
    expect(ready.status).toBe('ready');
    expect(ready.checks).toContainEqual({ name: 'chain', ok: true });
    h.devnet.setFaults({ node_down: true });
    try {
      fails(await h.call('GET', '/api/readyz'), 503, 'SERVICE-UNAVAILABLE');
    } finally {
      h.devnet.setFaults({ node_down: false });
    }
    const doc = await h.call('GET', '/api/openapi.json');
    expect(doc.status).toBe(200);
    expect(doc.json.openapi).toBe('3.1.0');
  });
});
