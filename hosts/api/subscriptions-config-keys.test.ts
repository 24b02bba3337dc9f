/**
 * PUT /subscriptions/config refuses a key it does not know (issue #35 item 9): a misspelt setting (`auto_colect`,
 * `webhook_URL`) used to be ignored silently, so the merchant believed a setting was in force that was not. Spec §4
 * fixes the body as {service_code, config: {webhook_url, webhook_secret}}; a key outside it (and outside the
 * documented extensions) is a malformed body: 422 VALIDATION-ERROR naming the key, and nothing is changed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type ApiHarness } from './test-harness.js';
import { expectAnswersDocumented, fails, ok, signUp } from './api-test-fixtures.js';

describe('PUT /subscriptions/config: unknown keys', () => {
  let h: ApiHarness;
  beforeAll(async () => { h = await startHarness(); });
  afterAll(async () => {
    expectAnswersDocumented(h);
    await h.close();
  });

  it('answers 422 VALIDATION-ERROR naming the unknown key, in config or beside it, and changes nothing', async () => {
    const u = await signUp(h);
    const put = (body: unknown) => h.call('PUT', '/api/subscriptions/config', { token: u.session, body });
    const before = ok(await h.call('GET', '/api/subscriptions/config/developer', { token: u.session }));
    for (const [body, field] of [
      [{ service_code: 'developer', config: { auto_colect: { USDT: { min_amount: '1', max_fee_sun: '1' } } } }, 'config.auto_colect'],
      [{ service_code: 'developer', config: { webhook_URL: 'http://127.0.0.1:9/hook', webhook_secret: 'whsec-x' } }, 'config.webhook_URL'],
      [{ service_code: 'developer', config: { display_name: 'Shop', colour: 'red' } }, 'config.colour'],
      [{ service_code: 'developer', config: {}, plan: 'pro' }, 'plan'],
    ] as const) {
      const res = await put(body);
      fails(res, 422, 'VALIDATION-ERROR');
      expect(res.json.message, JSON.stringify(body)).toMatch(new RegExp(`^${field.replace(/\./g, '\\.')}:`));
    }
    expect(ok(await h.call('GET', '/api/subscriptions/config/developer', { token: u.session }))).toEqual(before);
    // The spec's body and the documented extensions still pass.
    ok(await put({ service_code: 'developer', config: { webhook_url: 'http://127.0.0.1:9/hook', webhook_secret: 'whsec-x' } }));
    ok(await put({ service_code: 'developer', config: { min_collect_amounts: {}, event_types: [], auto_collect: null, display_name: 'Shop' } }));
  });

  it('accepts and ignores the keys the GET view only reports, so a client may send back what it read', async () => {
    const u = await signUp(h);
    const read = () => h.call('GET', '/api/subscriptions/config/developer', { token: u.session });
    const view = ok(await read());
    const { webhook_url: _url, ...reported } = view.config as Record<string, unknown>;
    const echoed = { ...view, config: { ...reported, min_collect_amounts: { USDT: '5' } } };
    const answered = ok(await h.call('PUT', '/api/subscriptions/config', { token: u.session, body: echoed }));
    expect(answered.config.min_collect_amounts).toEqual({ USDT: '5' });
    expect(answered.config.webhook_secret_set).toBe(view.config.webhook_secret_set);
    expect(ok(await read())).toEqual({ ...view, config: { ...view.config, min_collect_amounts: { USDT: '5' } } });
  });
});
