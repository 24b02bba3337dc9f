import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type ApiHarness, type HttpResult } from './test-harness.js';
import { expectAnswersDocumented, fails, ok, userWithWallets } from './api-test-fixtures.js';

type User = Awaited<ReturnType<typeof userWithWallets>>;

/** One row of the spec §8 table, with a cheap request that reaches the limiter (its business answer does not matter). */
interface Row {
  readonly name: string;
  readonly limit: number;
  readonly send: (h: ApiHarness, subject: Subject) => Promise<HttpResult>;
}

/** Who a row is keyed by: a user, plus a cashier token of that user for the cashier rows. */
interface Subject { readonly user: User; readonly ct: string }

const key = (): Record<string, string> => ({ 'idempotency-key': randomUUID() });
const NOWHERE = 'TUnknownAddressXXXXXXXXXXXXXXXXXXX';

const SPEC_TABLE: readonly Row[] = [
  { name: 'POST /wallets', limit: 20, send: (h, s) => h.call('POST', '/api/wallets', { token: s.user.apiToken, body: { network_code: 'BTC', address_type: 1 } }) },
  { name: 'POST /wallets/{address}/balances/refresh', limit: 20, send: (h, s) => h.call('POST', `/api/wallets/${NOWHERE}/balances/refresh`, { token: s.user.apiToken }) },
  { name: 'POST /collections', limit: 10, send: (h, s) => h.call('POST', '/api/collections', { token: s.user.apiToken, headers: key(), body: { address: NOWHERE, asset_symbol: 'TRX' } }) },
  { name: 'POST /cashier/tokens', limit: 20, send: (h, s) => h.call('POST', '/api/cashier/tokens', { token: s.user.apiToken, body: { address: NOWHERE } }) },
  { name: 'DELETE /cashier/tokens/{tokenNo}', limit: 20, send: (h, s) => h.call('DELETE', '/api/cashier/tokens/NOPE', { token: s.user.apiToken }) },
  { name: 'POST /cashier/collect', limit: 10, send: (h, s) => h.call('POST', '/api/cashier/collect', { token: s.ct, headers: key(), body: { asset_symbol: 'DOGE' } }) },
  { name: 'GET (developer)', limit: 60, send: (h, s) => h.call('GET', '/api/wallets', { token: s.user.apiToken }) },
  { name: 'GET (session)', limit: 60, send: (h, s) => h.call('GET', '/api/subscriptions/config/developer', { token: s.user.session }) },
  { name: 'GET (cashier token)', limit: 60, send: (h, s) => h.call('GET', '/api/cashier/session', { token: s.ct }) },
];

function rateHeaders(res: HttpResult): { limit: string | null; remaining: string | null; retryAfter: string | null } {
  return { limit: res.headers.get('x-ratelimit-limit'), remaining: res.headers.get('x-ratelimit-remaining'), retryAfter: res.headers.get('retry-after') };
}

/** Spec §8 rate limits over real HTTP on the ManualClock: fixed one-minute windows from the first hit (DESIGN.md). */
describe('rate limits (spec §8)', () => {
  let h: ApiHarness;

  async function subject(): Promise<Subject> {
    const user = await userWithWallets(h);
    const ct = ok(await h.call('POST', '/api/cashier/tokens', { token: user.apiToken, body: { address: user.sub } }), 201).token;
    // The set-up calls above used some of the user's windows: start every test on fresh ones.
    h.clock.advance(60_000);
    return { user, ct };
  }

  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    expectAnswersDocumented(h);
    await h.close();
  });

  it.each(SPEC_TABLE)('$name: N+k requests → exactly N pass with counting headers, then 429 with Retry-After; the window rolls', async (row) => {
    const s = await subject();
    const k = 3;
    const results: HttpResult[] = [];
    for (let i = 0; i < row.limit + k; i++) results.push(await row.send(h, s));
    const passed = results.filter((r) => r.status !== 429);
    expect(passed).toHaveLength(row.limit);
    expect(results.slice(0, row.limit).every((r) => r.status !== 429)).toBe(true);
    results.slice(0, row.limit).forEach((r, i) => {
      expect(rateHeaders(r)).toEqual({ limit: String(row.limit), remaining: String(row.limit - i - 1), retryAfter: null });
    });
    for (const refused of results.slice(row.limit)) {
      fails(refused, 429, 'RATE-LIMITED');
      expect(rateHeaders(refused)).toEqual({ limit: String(row.limit), remaining: '0', retryAfter: '60' });
    }
    h.clock.advance(45_000);
    expect(rateHeaders(await row.send(h, s)).retryAfter).toBe('15');
    h.clock.advance(15_000);
    const rolled = await row.send(h, s);
    expect(rolled.status).not.toBe(429);
    expect(rateHeaders(rolled)).toEqual({ limit: String(row.limit), remaining: String(row.limit - 1), retryAfter: null });
  });

  it('GET endpoints share one bucket per user; users and cashier tokens are counted apart', async () => {
    const a = await subject();
    const b = await subject();
    for (let i = 0; i < 30; i++) ok(await h.call('GET', '/api/wallets', { token: a.user.apiToken }));
    for (let i = 0; i < 30; i++) ok(await h.call('GET', `/api/wallets/${a.user.main}`, { token: a.user.apiToken }));
    fails(await h.call('GET', '/api/commands', { token: a.user.apiToken }), 429, 'RATE-LIMITED');
    // Session GETs of the same user count against the same user bucket.
    fails(await h.call('GET', '/api/webhooks/deliveries', { token: a.user.session }), 429, 'RATE-LIMITED');
    expect(rateHeaders(await h.call('GET', '/api/commands', { token: b.user.apiToken })).remaining).toBe('59');
    expect(rateHeaders(await h.call('GET', '/api/cashier/task', { token: a.ct })).remaining).toBe('59');
    // A refused request is not work done: POST buckets are separate from the GET bucket.
    expect(rateHeaders(await h.call('POST', '/api/wallets', { token: a.user.apiToken, body: {} })).remaining).toBe('19');
  });

  it('a 429 on an idempotent route stores nothing under the key: the same key succeeds once the window rolls', async () => {
    const s = await subject();
    h.devnet.fund(s.user.sub, 2_000_000);
    ok(await h.call('POST', `/api/wallets/${s.user.sub}/balances/refresh`, { token: s.user.apiToken, body: { force: true } }));
    for (let i = 0; i < 10; i++) await h.call('POST', '/api/cashier/collect', { token: s.ct, headers: key(), body: { asset_symbol: 'DOGE' } });
    const sameKey = { 'idempotency-key': randomUUID() };
    fails(await h.call('POST', '/api/cashier/collect', { token: s.ct, headers: sameKey, body: { asset_symbol: 'TRX' } }), 429, 'RATE-LIMITED');
    h.clock.advance(60_000);
    const task = ok(await h.call('POST', '/api/cashier/collect', { token: s.ct, headers: sameKey, body: { asset_symbol: 'TRX' } }), 201);
    expect(task.status).toBe(1);
  });

  it('unauthenticated and admin calls are not limited', async () => {
    for (let i = 0; i < 70; i++) expect((await h.call('GET', '/api/healthz')).status).toBe(200);
    for (let i = 0; i < 70; i++) expect((await h.call('GET', '/api/admin/risk/deny', { token: h.adminToken })).status).toBe(200);
  });

  it('model: random hits by two users on two buckets and clock moves agree with fixed windows from the first hit', async () => {
    const users = [await subject(), await subject()];
    // Each run starts after every window of the previous one has ended.
    await fc.assert(fc.asyncProperty(
      fc.array(fc.oneof(
        fc.record({ t: fc.constant('hit' as const), user: fc.integer({ min: 0, max: 1 }), bucket: fc.constantFrom('get', 'wallet-create') }),
        fc.record({ t: fc.constant('advance' as const), ms: fc.integer({ min: 1, max: 40_000 }) }),
      ), { minLength: 1, maxLength: 40 }),
      async (steps) => {
        h.clock.advance(61_000);
        const windows = new Map<string, { count: number; endsAt: number }>();
        for (const step of steps) {
          if (step.t === 'advance') {
            h.clock.advance(step.ms);
            continue;
          }
          const limit = step.bucket === 'get' ? 60 : 20;
          const now = h.clock.now();
          const id = `${step.bucket}:${step.user}`;
          let w = windows.get(id);
          if (w === undefined || w.endsAt <= now) windows.set(id, (w = { count: 0, endsAt: now + 60_000 }));
          const allowed = w.count < limit;
          if (allowed) w.count += 1;
          const u = users[step.user]!.user;
          const res = step.bucket === 'get'
            ? await h.call('GET', '/api/commands', { token: u.apiToken })
            : await h.call('POST', '/api/wallets', { token: u.apiToken, body: { network_code: 'BTC', address_type: 1 } });
          expect(res.status === 429).toBe(!allowed);
          expect(rateHeaders(res)).toEqual({
            limit: String(limit), remaining: String(allowed ? limit - w.count : 0),
            retryAfter: allowed ? null : String(Math.ceil((w.endsAt - now) / 1000)),
          });
        }
      },
    ), { numRuns: 10 });
  }, 30_000);
});
