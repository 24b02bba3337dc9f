/**
 * Issue #35 item 8 through the API: every audit entry a request causes carries the client address (as the pipeline
 * judges it: the socket's peer, or what the trusted proxies vouch for) and the user agent, and a solo session's entry
 * names its user instead of a null actor; sign-in entries included.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type ApiHarness } from './test-harness.js';
import { expectAnswersDocumented, ok, signUp, TEST_PASSWORD } from './api-test-fixtures.js';

const LOOPBACK = /^(127\.0\.0\.1|::1|::ffff:127\.0\.0\.1)$/;

describe('audit entries carry the request\'s origin (issue #35 item 8)', () => {
  let h: ApiHarness;
  beforeAll(async () => { h = await startHarness(); });
  afterAll(async () => {
    expectAnswersDocumented(h);
    await h.close();
  });

  it('logins, plan switches and config changes: the caller, the peer address (a forged X-Forwarded-For ignored) and the user agent', async () => {
    const user = await signUp(h);
    const agent = { 'user-agent': 'audit-origin-test/1.0', 'x-forwarded-for': '198.51.100.9' };
    expect((await h.call('POST', '/api/auth/login', { body: { email: user.email, password: 'not the password!' }, headers: agent })).status).toBe(401);
    const session = ok(await h.call('POST', '/api/auth/login', { body: { email: user.email, password: TEST_PASSWORD }, headers: agent })).session_token as string;
    ok(await h.call('POST', '/api/subscriptions/activate', { token: session, body: { service_code: 'sub_address', plan_code: 'pro' }, headers: agent }));
    ok(await h.call('PUT', '/api/subscriptions/config', {
      token: session, body: { service_code: 'developer', config: { display_name: 'Shop', event_types: ['deposit.confirmed'] } }, headers: { 'user-agent': 'x'.repeat(300) },
    }));
    const entries = ok(await h.call('GET', '/api/audit-log?per_page=100', { token: session })).items.slice().reverse();
    const tail = entries.slice(-4);
    expect(tail.map((e: { action: string }) => e.action)).toEqual(['auth.login_failed', 'auth.login', 'subscription.activated', 'config.changed']);
    for (const entry of entries) {
      // Every entry of this account came through the API, sign-up's included.
      expect(entry.detail.client_address, entry.action).toMatch(LOOPBACK);
      expect(typeof entry.detail.user_agent, entry.action).toBe('string');
    }
    const [failed, login, switched, changed] = tail;
    for (const entry of [failed, login, switched]) expect(entry.detail.user_agent).toBe('audit-origin-test/1.0');
    expect(changed.detail.user_agent).toBe('x'.repeat(256));
    // A sign-in names the user who signed in (a failed one stays anonymous); a session's entries name the user.
    expect(failed.actor).toEqual({ kind: 'user', id: null });
    for (const entry of [login, switched, changed]) expect(entry.actor).toEqual({ kind: 'user', id: String(user.userId) });
    expect(switched.detail).toMatchObject({ plan_code: 'pro', previous_plan_code: 'starter' });
    expect(changed.detail).toMatchObject({ keys: 'event_types,display_name', display_name: 'Shop' });
    expect(JSON.stringify(entries)).not.toContain(TEST_PASSWORD);
    expect(JSON.stringify(entries)).not.toContain(session);
    expect(ok(await h.call('GET', '/api/audit-log/verify', { token: session })).valid).toBe(true);
  });
});
