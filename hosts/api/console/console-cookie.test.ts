import fc from 'fast-check';
import { Secret } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OtpauthTotpGenerator } from '../../../adapters/node/index.js';
import { stepAt, TOTP_PERIOD_MS } from '../../../core/domain/two-factor-rules.js';
import type { TeamRole } from '../../../core/domain/team-roles.js';
import { fails, ok, signUp, TEST_PASSWORD, userWithWallets } from '../api-test-fixtures.js';
import { startHarness, type ApiHarness, type HttpResult } from '../test-harness.js';

/**
 * The console's cookie session through the real pipeline (issue #38 item 4): it is the login (same checks, limits and
 * audit), it stands for the session on session routes and for the account on developer routes (with API access, member
 * roles and step-up as a bearer session has them), and a bearer token answers exactly as before.
 */
let h: ApiHarness;
const totp = new OtpauthTotpGenerator();
const SAME_ORIGIN = { 'x-console': '1', 'sec-fetch-site': 'same-origin' };

beforeAll(async () => {
  // No delay: a team's invitations take effect at once (development).
  h = await startHarness({ env: { POLICY_CHANGE_DELAY_H: '0' } });
}, 60_000);
afterAll(async () => {
  await h?.close();
});

/** Signs in through the console route; answers the cookie's session token. */
async function consoleSignIn(email: string, code?: string): Promise<string> {
  const res = await h.call('POST', '/api/auth/console/session', {
    body: { email, password: TEST_PASSWORD, ...(code === undefined ? {} : { code }) }, headers: SAME_ORIGIN,
  });
  ok(res);
  const cookie = res.headers.get('set-cookie') ?? '';
  expect(cookie).toMatch(/^ch_console=st_[^;]+; Path=\/; HttpOnly; SameSite=Strict$/);
  return /^ch_console=([^;]+)/.exec(cookie)![1]!;
}

/** A request with the console cookie (and the console's same-origin headers unless told otherwise). */
function withCookie(method: string, path: string, cookie: string, options: { body?: unknown; headers?: Record<string, string> } = {}): Promise<HttpResult> {
  return h.call(method, path, { ...(options.body === undefined ? {} : { body: options.body }), headers: { ...SAME_ORIGIN, cookie: `ch_console=${cookie}`, ...options.headers } });
}

/** Turns 2FA on for a session's user; answers the TOTP secret. */
async function enrol(session: string): Promise<Uint8Array> {
  const setup = ok(await h.call('POST', '/api/auth/2fa/setup', { token: session }));
  const secret = Secret.fromBase32(new URL(setup.otpauth_uri as string).searchParams.get('secret')!).bytes;
  h.clock.advance(TOTP_PERIOD_MS);
  ok(await h.call('POST', '/api/auth/2fa/enable', { token: session, body: { password: TEST_PASSWORD, code: totp.codeAt(secret, stepAt(h.clock.now())) } }));
  return secret;
}
const codeNow = (secret: Uint8Array): string => {
  h.clock.advance(TOTP_PERIOD_MS);
  return totp.codeAt(secret, stepAt(h.clock.now()));
};

describe('the front door', () => {
  it('GET / sends a person to the console; other unknown addresses stay 404 in the envelope', async () => {
    const root = await fetch(`${h.url}/`, { redirect: 'manual' });
    expect([root.status, root.headers.get('location')]).toEqual([302, '/console']);
    fails(await h.call('GET', '/nothing-here'), 404, 'NOT-FOUND');
    expect((await h.call('POST', '/')).status).toBe(404);
  });
});

describe('console cookie session', () => {
  it('a bearer token answers as before, a console cookie beside it ignored: a session token on a developer route is 403', async () => {
    const a = await userWithWallets(h);
    const b = await signUp(h);
    const cookieB = await consoleSignIn(b.email);
    fails(await h.call('GET', '/api/ledger/balances', { token: a.session }), 403, 'FORBIDDEN');
    fails(await h.call('GET', '/api/ledger/balances', { token: a.session, headers: { ...SAME_ORIGIN, cookie: `ch_console=${cookieB}` } }), 403, 'FORBIDDEN');
    // The developer token acts as its own account, whatever cookie comes with it.
    const listed = ok(await h.call('GET', '/api/wallets', { token: a.apiToken, headers: { ...SAME_ORIGIN, cookie: `ch_console=${cookieB}` } }));
    expect(listed.items.map((w: { address: string }) => w.address)).toContain(a.sub);
    // A bad bearer token is not rescued by a good cookie.
    fails(await h.call('GET', '/api/auth/console/session', { token: 'st_unknown', headers: { ...SAME_ORIGIN, cookie: `ch_console=${cookieB}` } }), 401, 'UNAUTHENTICATED');
  });

  it('the cookie is the session on session routes and the account on developer routes', async () => {
    const user = await userWithWallets(h);
    const cookie = await consoleSignIn(user.email);
    expect(ok(await withCookie('GET', '/api/auth/console/session', cookie))).toMatchObject({ user_id: user.userId, email: user.email, role: 'owner', api_access: true, idle_timeout_s: 1800 });
    expect(ok(await withCookie('GET', '/api/wallets', cookie)).items.map((w: { address: string }) => w.address)).toContain(user.sub);
  });

  it('without an active developer subscription, a developer route refuses the cookie with 403 naming API access', async () => {
    const email = `noapi-${Math.random().toString(36).slice(2, 8)}@example.com`;
    ok(await h.call('POST', '/api/auth/register', { body: { email, password: TEST_PASSWORD } }), 201);
    ok(await h.call('POST', '/api/auth/verify', { body: { email, code: h.mailer.lastCodeFor(email) } }));
    const cookie = await consoleSignIn(email);
    expect(ok(await withCookie('GET', '/api/auth/console/session', cookie)).api_access).toBe(false);
    const refused = await withCookie('GET', '/api/ledger/balances', cookie);
    fails(refused, 403, 'FORBIDDEN');
    expect(refused.json.message).toContain('API access');
  });

  it('the console sign-in is the login: its failures, 2FA, audit entries and the login limits it shares with POST /auth/login', async () => {
    const user = await signUp(h);
    fails(await h.call('POST', '/api/auth/console/session', { body: { email: user.email, password: 'not the password!' }, headers: SAME_ORIGIN }), 401, 'AUTH-INVALID-CREDENTIALS');
    const secret = await enrol(user.session);
    fails(await h.call('POST', '/api/auth/console/session', { body: { email: user.email, password: TEST_PASSWORD }, headers: SAME_ORIGIN }), 401, 'AUTH-TOTP-REQUIRED');
    const cookie = await consoleSignIn(user.email, codeNow(secret));
    expect(ok(await withCookie('GET', '/api/auth/console/session', cookie)).two_factor_enabled).toBe(true);
    const actions = ok(await h.call('GET', '/api/audit-log?per_page=100', { token: user.session })).items.map((e: { action: string }) => e.action);
    expect(actions.filter((a: string) => a === 'auth.login_failed').length).toBe(2);
    // Spend the e-mail's login budget on POST /auth/login: the console's sign-in is refused too.
    let status = 0;
    for (let i = 0; i < 30 && status !== 429; i++) {
      status = (await h.call('POST', '/api/auth/login', { body: { email: user.email, password: 'not the password!' } })).status;
    }
    expect(status).toBe(429);
    fails(await h.call('POST', '/api/auth/console/session', { body: { email: user.email, password: TEST_PASSWORD, code: codeNow(secret) }, headers: SAME_ORIGIN }), 429, 'RATE-LIMITED');
  });

  it('step-up by cookie works as with a bearer session: a step-up route asks for X-TOTP-Code and takes a current code', async () => {
    const user = await signUp(h);
    const secret = await enrol(user.session);
    const cookie = await consoleSignIn(user.email, codeNow(secret));
    fails(await withCookie('POST', '/api/api-tokens', cookie, { body: { name: 'console' } }), 403, 'AUTH-STEP-UP-REQUIRED');
    const created = ok(await withCookie('POST', '/api/api-tokens', cookie, { body: { name: 'console' }, headers: { 'x-totp-code': codeNow(secret) } }), 201);
    expect(created.token).toMatch(/^dk_/);
  });
});

describe('console cookie and team roles', () => {
  const cookies = new Map<TeamRole, string>();
  const userIds = new Map<TeamRole, number>();
  let owner: Awaited<ReturnType<typeof userWithWallets>>;
  beforeAll(async () => {
    owner = await userWithWallets(h);
    const ownerSecret = await enrol(owner.session);
    cookies.set('owner', await consoleSignIn(owner.email, codeNow(ownerSecret)));
    userIds.set('owner', owner.userId);
    for (const role of ['admin', 'approver', 'operator', 'viewer'] as const) {
      const email = `${role}-${Math.random().toString(36).slice(2, 8)}@team.example`;
      const invited = await h.call('POST', '/api/members', { token: owner.session, body: { email, role }, headers: { 'x-totp-code': codeNow(ownerSecret) } });
      expect([201, 202], invited.text).toContain(invited.status);
      const joined = ok(await h.call('POST', '/api/auth/register', { body: { email, password: TEST_PASSWORD, invitation_code: h.mailer.lastCodeFor(email, 'invitation') } }), 201);
      userIds.set(role, joined.user_id as number);
      const session = ok(await h.call('POST', '/api/auth/login', { body: { email, password: TEST_PASSWORD } })).session_token as string;
      const secret = role === 'operator' || role === 'viewer' ? null : await enrol(session);
      cookies.set(role, await consoleSignIn(email, secret === null ? undefined : codeNow(secret)));
    }
  }, 60_000);

  it('each role reads developer routes by cookie; writes need the owner, an admin or an operator (the default for developer routes)', async () => {
    for (const [role, cookie] of cookies) {
      expect(ok(await withCookie('GET', '/api/auth/console/session', cookie)).role, role).toBe(role);
      ok(await withCookie('GET', '/api/ledger/balances', cookie));
      const made = await withCookie('POST', '/api/cashier/tokens', cookie, { body: { address: owner.sub } });
      if (['owner', 'admin', 'operator'].includes(role)) {
        expect(made.status, `${role}: ${made.text}`).toBe(201);
        ok(await withCookie('DELETE', `/api/cashier/tokens/${made.json.data.token_no as string}`, cookie, { body: { reason: 'test' } }));
      } else {
        fails(made, 403, 'TEAM-ROLE-FORBIDDEN');
      }
    }
  });

  it('property: a cookie never acts across sites, whatever the role, route and method', async () => {
    const bad = fc.oneof(
      fc.constant({}),
      fc.record({ 'sec-fetch-site': fc.constantFrom('cross-site', 'same-site', 'none') }),
      fc.record({ 'x-console': fc.constantFrom('0', 'true', ''), 'sec-fetch-site': fc.constant('same-origin') }),
      fc.record({ 'x-console': fc.constant('1'), 'sec-fetch-site': fc.constantFrom('cross-site', 'same-site', 'none') }),
      fc.record({ 'x-console': fc.constant('1'), origin: fc.constantFrom('http://evil.example', 'null', 'https://127.0.0.1.evil.example') }),
      fc.record({ 'x-console': fc.constant('1'), referer: fc.constantFrom('http://evil.example/', 'not a url') }),
      fc.record({ 'x-console': fc.constant('1') }),
    );
    const target = fc.constantFrom(
      ['GET', '/api/auth/console/session'], ['GET', '/api/ledger/balances'], ['POST', '/api/cashier/tokens'], ['POST', '/api/auth/logout'],
      ['DELETE', '/api/auth/console/session'], ['POST', '/api/auth/2fa/setup'],
    );
    await fc.assert(fc.asyncProperty(fc.constantFrom(...cookies.keys()), target, bad, async (role, [method, path], headers) => {
      const res = await h.call(method!, path!, {
        ...(method === 'GET' ? {} : { body: { address: owner.sub } }), headers: { cookie: `ch_console=${cookies.get(role)!}`, ...headers },
      });
      fails(res, 403, 'FORBIDDEN');
    }), { numRuns: 60 });
    // Every session is still alive: nothing above signed anyone out.
    for (const cookie of cookies.values()) ok(await withCookie('GET', '/api/auth/console/session', cookie));
  });

  it('an action through the console is audited under the member who took it', async () => {
    ok(await withCookie('PUT', '/api/subscriptions/config', cookies.get('admin')!, { body: { service_code: 'developer', config: { min_collect_amounts: { USDT: '2000000' } } } }));
    const entries = ok(await h.call('GET', '/api/audit-log?per_page=100', { token: owner.session })).items;
    const changed = entries.find((e: { action: string }) => e.action === 'config.changed');
    expect(changed.actor).toEqual({ kind: 'user', id: String(userIds.get('admin')) });
  });
});
