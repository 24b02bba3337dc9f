import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type ApiHarness } from './test-harness.js';
import { expectAnswersDocumented, expectDocumented, fails, ISO_TIME, ok, userWithWallets } from './api-test-fixtures.js';

type User = Awaited<ReturnType<typeof userWithWallets>>;

/** The spec §2 fields, exactly: a token or a session made without the payment fields carries these and no others. */
const SPEC_TOKEN_FIELDS = ['address', 'created_at', 'disable_reason', 'disabled_at', 'expires_at', 'network_code', 'status', 'token',
  'token_no', 'ttl_minutes', 'wallet_address_id'];
const SPEC_SESSION_FIELDS = ['active_task', 'address', 'expires_at', 'min_collect_amounts', 'token_no'];

/** Issue #25 item 1 over real HTTP: the payment request fields of POST /cashier/tokens and the session's payment object. */
describe('payment requests on cashier tokens (issue #25)', () => {
  let h: ApiHarness;
  beforeAll(async () => { h = await startHarness(); });
  afterAll(async () => {
    expectAnswersDocumented(h);
    await h.close();
  });

  const create = (user: User, body: Record<string, unknown>) => h.call('POST', '/api/cashier/tokens', { token: user.apiToken, body: { address: user.sub, ...body } });
  const sessionOf = async (ct: string) => ok(await h.call('GET', '/api/cashier/session', { token: ct }));

  it('without the new fields, POST /cashier/tokens and GET /cashier/session are exactly the spec\'s, even with a display name set', async () => {
    const user = await userWithWallets(h);
    ok(await h.call('PUT', '/api/subscriptions/config', { token: user.session, body: { service_code: 'developer', config: { display_name: 'Acme' } } }));
    const created = ok(await create(user, { ttl_minutes: 120 }), 201);
    expect(Object.keys(created).sort()).toEqual(SPEC_TOKEN_FIELDS);
    expect(Object.keys(await sessionOf(created.token)).sort()).toEqual(SPEC_SESSION_FIELDS);
    const listed = ok(await h.call('GET', '/api/cashier/tokens', { token: user.apiToken }));
    expect(Object.keys(listed.data[0]).sort()).toEqual(SPEC_TOKEN_FIELDS.filter((f) => f !== 'token'));
  });

  it('with amount and asset_symbol: the token record, the list and the session carry the payment request, awaiting', async () => {
    const user = await userWithWallets(h);
    ok(await h.call('PUT', '/api/subscriptions/config', { token: user.session, body: { service_code: 'developer', config: { display_name: 'Acme Store' } } }));
    const created = ok(await create(user, {
      amount: '25000000', asset_symbol: 'USDT', reference: 'order-1042', description: 'Two mugs', pay_within_minutes: 30,
    }), 201);
    expectDocumented(h, 'POST', '/api/cashier/tokens', created);
    expect(created.payment).toEqual({
      asset_symbol: 'USDT', amount: '25000000', received: '0', remaining: '25000000', confirming: '0', status: 'awaiting',
      deadline: expect.stringMatching(ISO_TIME), reference: 'order-1042', description: 'Two mugs',
    });
    expect(Date.parse(created.payment.deadline) - Date.parse(created.created_at)).toBe(30 * 60_000);
    const session = await sessionOf(created.token);
    expectDocumented(h, 'GET', '/api/cashier/session', session);
    expect(session.payment).toEqual({ ...created.payment, merchant_name: 'Acme Store', transfers: [] });
    // The token's sliding expiry moves with each payer request; the deadline does not.
    expect(session.payment.deadline).toBe(created.payment.deadline);
    const listed = ok(await h.call('GET', '/api/cashier/tokens', { token: user.apiToken }));
    expectDocumented(h, 'GET', '/api/cashier/tokens', listed);
    expect(listed.data[0].payment).toEqual(created.payment);
  });

  it('pay_within_minutes defaults to ttl_minutes', async () => {
    const user = await userWithWallets(h);
    const created = ok(await create(user, { amount: '1', asset_symbol: 'USDT', ttl_minutes: 480 }), 201);
    expect(Date.parse(created.payment.deadline) - Date.parse(created.created_at)).toBe(480 * 60_000);
    expect(created.payment).toMatchObject({ reference: null, description: null });
  });

  it('bad payment fields: 422 in the envelope, naming the field; nothing is created', async () => {
    const user = await userWithWallets(h);
    const bad = async (body: Record<string, unknown>, code: string, field?: string) => {
      const result = await create(user, body);
      fails(result, 422, code);
      if (field !== undefined) expect(result.json.message).toContain(field);
    };
    await bad({ amount: '25000000' }, 'VALIDATION-ERROR', 'asset_symbol');
    await bad({ asset_symbol: 'USDT' }, 'VALIDATION-ERROR', 'amount');
    await bad({ reference: 'order-1' }, 'VALIDATION-ERROR', 'amount');
    await bad({ amount: 25000000, asset_symbol: 'USDT' }, 'VALIDATION-ERROR', 'amount');
    await bad({ amount: '0', asset_symbol: 'USDT' }, 'VALIDATION-ERROR', 'amount');
    await bad({ amount: '-5', asset_symbol: 'USDT' }, 'VALIDATION-ERROR', 'amount');
    await bad({ amount: '1.5', asset_symbol: 'USDT' }, 'VALIDATION-ERROR', 'amount');
    await bad({ amount: '9223372036854775808', asset_symbol: 'USDT' }, 'VALIDATION-ERROR', 'amount');
    await bad({ amount: '25', asset_symbol: 'DOGE' }, 'BIZ-ASSET-NOT-FOUND');
    // 0.05 TRX: less than any TRX collection can move after its fee (the dust rule), so it could never be forwarded.
    await bad({ amount: '50000', asset_symbol: 'TRX' }, 'VALIDATION-ERROR', 'dust');
    await bad({ amount: '25', asset_symbol: 'USDT', reference: 'r'.repeat(121) }, 'VALIDATION-ERROR', 'reference');
    await bad({ amount: '25', asset_symbol: 'USDT', description: 'd'.repeat(201) }, 'VALIDATION-ERROR', 'description');
    await bad({ amount: '25', asset_symbol: 'USDT', pay_within_minutes: 0 }, 'VALIDATION-ERROR', 'pay_within_minutes');
    await bad({ amount: '25', asset_symbol: 'USDT', pay_within_minutes: 1441 }, 'VALIDATION-ERROR', 'pay_within_minutes');
    await bad({ amount: '25', asset_symbol: 'USDT', pay_within_minutes: 2.5 }, 'VALIDATION-ERROR', 'pay_within_minutes');
    expect(ok(await h.call('GET', '/api/cashier/tokens', { token: user.apiToken })).data).toEqual([]);
  });

  it('with config.auto_collect the session lists the covered assets, so the page asks for no press', async () => {
    const user = await userWithWallets(h);
    ok(await h.call('PUT', '/api/subscriptions/config', {
      token: user.session, body: { service_code: 'developer', config: { auto_collect: { USDT: { min_amount: '5000000', max_fee_sun: '3000000' } } } },
    }));
    const created = ok(await create(user, {}), 201);
    const session = await sessionOf(created.token);
    expectDocumented(h, 'GET', '/api/cashier/session', session);
    expect(session.auto_collect).toEqual({ USDT: { min_amount: '5000000' } });
    expect(session).not.toHaveProperty('payment');
  });
});
