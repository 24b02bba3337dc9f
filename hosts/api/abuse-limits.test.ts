import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startHarness, type ApiHarness, type HttpResult } from './test-harness.js';
import { fails, ok, signUp, TEST_PASSWORD, userWithWallets, withInlineResponses } from './api-test-fixtures.js';
import { bucketOf } from './pipeline.js';
import { DEFAULT_RATE_LIMITS } from './rate-limit.js';

/**
 * Issue #13: every write route is limited, the account routes are throttled per client address and per e-mail with
 * growing lockouts, and each limit holds "exactly N of N+k" under parallel requests. The harness runs with the shipped
 * limits here, client-address throttles included.
 */
const HOUR = 60 * 60_000;
let h: ApiHarness;
beforeAll(async () => { h = await startHarness({ rateLimits: DEFAULT_RATE_LIMITS }); });
afterAll(async () => { await h.close(); });
// Every test starts on fresh windows (all of them come from 127.0.0.1, which the client-address throttles count).
beforeEach(() => h.clock.advance(24 * HOUR));

const key = (): Record<string, string> => ({ 'idempotency-key': randomUUID() });
const nextWindow = (): void => h.clock.advance(61_000);

function count(results: readonly HttpResult[], status: number): number {
  return results.filter((r) => r.status === status).length;
}

/** `allowed` answers got through; each 429 is the envelope with its window's headers (one of `limits`). */
function expectLimited(results: readonly HttpResult[], allowed: number, ...limits: number[]): void {
  expect(results.length - count(results, 429)).toBe(allowed);
  for (const refused of results.filter((r) => r.status === 429)) {
    fails(refused, 429, 'RATE-LIMITED');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(limits.map(String)).toContain(refused.headers.get('x-ratelimit-limit'));
  }
}

describe('login throttling per e-mail and per client address', () => {
  it('100 parallel wrong passwords for one e-mail: exactly 5 are judged (401), 95 are 429; the lockout grows to the hour', async () => {
    const user = await signUp(h);
    const guess = (): Promise<HttpResult> => h.call('POST', '/api/auth/login', { body: { email: user.email, password: 'wrong password!' } });
    nextWindow();
    const first = await Promise.all(Array.from({ length: 100 }, guess));
    expect(count(first, 401)).toBe(5);
    // Refused by the e-mail's window (5), or by the client address's (30) once its window is spent too.
    expectLimited(first, 5, 5, 30);
    // Locked: the right password waits too.
    fails(await h.call('POST', '/api/auth/login', { body: { email: user.email.toUpperCase(), password: TEST_PASSWORD } }), 429, 'RATE-LIMITED');
    const judged: number[] = [];
    for (let window = 0; window < 3; window++) {
      nextWindow();
      judged.push(count(await Promise.all(Array.from({ length: 20 }, guess)), 401));
    }
    // 20 attempts an hour, the sign-up's own login included: 1 + 5 + 5 + 5 + 4.
    expect(judged).toEqual([5, 5, 4]);
    // The hour's attempts are spent: the next minute's window no longer helps; Retry-After points past it.
    nextWindow();
    const locked = await guess();
    fails(locked, 429, 'RATE-LIMITED');
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(60);
    h.clock.advance(HOUR);
    ok(await h.call('POST', '/api/auth/login', { body: { email: user.email, password: TEST_PASSWORD } }));
  });

  it('one client address: exactly 30 of 40 parallel logins for different e-mails are judged', async () => {
    h.clock.advance(HOUR);
    const results = await Promise.all(Array.from({ length: 40 }, (_, i) =>
      h.call('POST', '/api/auth/login', { body: { email: `nobody${i}@example.com`, password: 'wrong password!' } })));
    expect(count(results, 401)).toBe(30);
    expectLimited(results, 30, 30);
  });
});

describe('verification and code re-issue limits', () => {
  it('20 parallel wrong codes: exactly 10 judged in the hour; re-registering neither resets the count nor beats it', async () => {
    h.clock.advance(HOUR);
    const email = `verify-${randomUUID()}@example.com`;
    ok(await h.call('POST', '/api/auth/register', { body: { email, password: TEST_PASSWORD } }), 201);
    const guesses = await Promise.all(Array.from({ length: 20 }, () => h.call('POST', '/api/auth/verify', { body: { email, code: '000000' } })));
    expect(count(guesses, 422)).toBe(10);
    expectLimited(guesses, 10, 10);
    ok(await h.call('POST', '/api/auth/register', { body: { email, password: TEST_PASSWORD } }), 201);
    nextWindow();
    fails(await h.call('POST', '/api/auth/verify', { body: { email, code: h.mailer.lastCodeFor(email)! } }), 429, 'RATE-LIMITED');
    h.clock.advance(HOUR);
    ok(await h.call('POST', '/api/auth/register', { body: { email, password: TEST_PASSWORD } }), 201);
    ok(await h.call('POST', '/api/auth/verify', { body: { email, code: h.mailer.lastCodeFor(email)! } }));
  });

  it('10 parallel registrations of one e-mail: exactly 3 codes are issued in the hour, 7 are 429', async () => {
    h.clock.advance(HOUR);
    const email = `bomb-${randomUUID()}@example.com`;
    const before = h.mailer.sent.length;
    const results = await Promise.all(Array.from({ length: 10 }, () => h.call('POST', '/api/auth/register', { body: { email, password: TEST_PASSWORD } })));
    expectLimited(results, 3, 3);
    expect(h.mailer.sent.length - before).toBe(count(results, 201));
    expect(count(results, 201)).toBeGreaterThanOrEqual(1);
  });

  it('one client address: exactly 10 of 14 parallel registrations of different e-mails', async () => {
    h.clock.advance(HOUR);
    const results = await Promise.all(Array.from({ length: 14 }, () =>
      h.call('POST', '/api/auth/register', { body: { email: `many-${randomUUID()}@example.com`, password: TEST_PASSWORD } })));
    expect(count(results, 201)).toBe(10);
    expectLimited(results, 10, 10);
  });
});

describe('write routes the spec leaves unlimited', () => {
  it('every write route is limited, and OpenAPI lists its limit with the X-RateLimit-* headers', () => {
    const paths = withInlineResponses(h.host.openapi)['paths'] as Record<string, Record<string, any>>;
    const writes = h.host.routes.filter((r) => r.method !== 'GET' && r.auth !== 'admin' && !r.path.startsWith('/api/dev/'));
    expect(writes.length).toBeGreaterThan(15);
    for (const route of writes) {
      expect(bucketOf(route) !== undefined || route.throttle !== undefined, `${route.method} ${route.path}`).toBe(true);
      const op = paths[route.path.replace(/:([A-Za-z]+)/g, '{$1}')]![route.method.toLowerCase()];
      expect(op['x-rate-limit'] ?? op['x-throttle'], route.path).toBeDefined();
      expect(Object.keys(op.responses['429'].headers).sort(), route.path).toEqual(['Retry-After', 'X-RateLimit-Limit', 'X-RateLimit-Remaining']);
      // The rate-limit headers, and only the headers the route documents it sets itself (a refresh's cooldown).
      const own = Object.keys(route.docs.headers ?? {});
      expect(Object.keys(op.responses[String(route.status ?? 200)].headers).sort(), route.path).toEqual(['X-RateLimit-Limit', 'X-RateLimit-Remaining', ...own].sort());
    }
  });

  it('POST /transfers: exactly 10 of 16 parallel requests; the 429s store nothing under their keys', async () => {
    const u = await userWithWallets(h);
    nextWindow();
    const keys = Array.from({ length: 16 }, () => key());
    const transfer = (headers: Record<string, string>) => h.call('POST', '/api/transfers', {
      token: u.session, headers, body: { from_address: u.main, to_address: u.sub, asset_symbol: 'TRX', amount: '0' },
    });
    const results = await Promise.all(keys.map(transfer));
    expectLimited(results, 10, 10);
    for (const r of results.filter((x) => x.status !== 429)) fails(r, 422, 'BIZ-AMOUNT-INVALID');
    // A refused key was not kept: in the next window it runs as new.
    nextWindow();
    const refusedKey = keys[results.findIndex((r) => r.status === 429)]!;
    const retried = await transfer(refusedKey);
    fails(retried, 422, 'BIZ-AMOUNT-INVALID');
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
  });

  it('a replay is answered from the store when the window is spent, costs nothing, and a new key is still 429', async () => {
    const u = await userWithWallets(h);
    nextWindow();
    const body = { from_address: u.main, to_address: u.sub, asset_symbol: 'TRX', amount: '1' };
    const first = key();
    const original = await h.call('POST', '/api/transfers', { token: u.session, headers: first, body });
    ok(original, 201);
    expect(original.headers.get('x-ratelimit-remaining')).toBe('9');
    for (let i = 0; i < 9; i++) await h.call('POST', '/api/transfers', { token: u.session, headers: key(), body: { ...body, amount: '0' } });
    fails(await h.call('POST', '/api/transfers', { token: u.session, headers: key(), body }), 429, 'RATE-LIMITED');
    const replays = await Promise.all(Array.from({ length: 5 }, () => h.call('POST', '/api/transfers', { token: u.session, headers: first, body })));
    for (const replay of replays) {
      expect({ status: replay.status, text: replay.text, replayed: replay.headers.get('idempotent-replayed') })
        .toEqual({ status: 201, text: original.text, replayed: 'true' });
    }
    fails(await h.call('POST', '/api/transfers', { token: u.session, headers: key(), body }), 429, 'RATE-LIMITED');
  });

  it('staking: exactly 10 of 13 parallel requests across the staking routes, each needing an Idempotency-Key', async () => {
    const u = await userWithWallets(h);
    nextWindow();
    fails(await h.call('POST', `/api/wallets/${u.main}/withdraw-reward`, { token: u.session }), 422, 'VALIDATION-ERROR');
    const results = await Promise.all(Array.from({ length: 13 }, (_, i) =>
      h.call('POST', `/api/wallets/${u.main}/${i % 2 === 0 ? 'withdraw-reward' : 'withdraw-unstaked'}`, { token: u.session, headers: key() })));
    expectLimited(results, 10, 10);
    expect(count(results, 201)).toBe(1);
    expect(count(results, 409)).toBe(9);
  });

  it('a retried stake with the same key runs once: the replay carries the first command', async () => {
    const u = await userWithWallets(h);
    nextWindow();
    const headers = key();
    const send = () => h.call('POST', `/api/wallets/${u.main}/stake`, { token: u.session, headers, body: { resource: 'ENERGY', amount: '1000000' } });
    const first = ok(await send(), 201);
    const again = await send();
    expect(ok(again, 201)).toEqual(first);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(ok(await h.call('GET', '/api/commands?type=4', { token: u.apiToken })).pagination.total).toBe(1);
  });

  it('POST /webhooks/debug/test: exactly 5 of 9 parallel requests', async () => {
    const u = await signUp(h);
    nextWindow();
    const results = await Promise.all(Array.from({ length: 9 }, () => h.call('POST', '/api/webhooks/debug/test', { token: u.session })));
    expectLimited(results, 5, 5);
    for (const r of results.filter((x) => x.status !== 429)) fails(r, 422, 'BIZ-WEBHOOK-URL-UNVERIFIED');
  });

  it('POST /api-tokens: exactly 10 of 14 parallel creations a minute', async () => {
    const u = await signUp(h);
    nextWindow();
    const results = await Promise.all(Array.from({ length: 14 }, (_, i) => h.call('POST', '/api/api-tokens', { token: u.session, body: { name: `t${i}` } })));
    expectLimited(results, 10, 10);
    expect(count(results, 201)).toBe(10);
  });
});
