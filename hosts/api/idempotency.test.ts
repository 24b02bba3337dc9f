import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type ApiHarness, type HttpResult } from './test-harness.js';
import { cacheCollectable, createWallet, fails, ok, relogin, userWithWallets, expectAnswersDocumented } from './api-test-fixtures.js';
import { IDEMPOTENCY_WINDOW_MS } from '../../core/domain/model/idempotency.js';
import { TOKENS } from '../composition/tokens.js';
import { IDEMPOTENCY_IN_FLIGHT_MS, requestHash } from './idempotency.js';
import { crashAndRetry } from './idempotency-crash.fixture.js';

type User = Awaited<ReturnType<typeof userWithWallets>>;

/** Idempotency-Key handling of POST /collections, /cashier/collect and /transfers (spec §4, DESIGN.md "Idempotency"). */
describe('idempotency keys', () => {
  let h: ApiHarness;

  const collect = (u: User, key: string | null, body: unknown = { address: u.sub, asset_symbol: 'USDT' }): Promise<HttpResult> =>
    h.call('POST', '/api/collections', { token: u.apiToken, body, headers: key === null ? {} : { 'idempotency-key': key } });

  /** A user whose sub-address holds what a collection accepts (cached), so that the keys are what is tested. */
  async function collector(plan?: 'unlimited'): Promise<User> {
    const u = await userWithWallets(h, plan);
    await cacheCollectable(h, u.sub);
    return u;
  }

  async function commandsOf(u: User, type: number): Promise<unknown[]> {
    return ok(await h.call('GET', `/api/commands?type=${type}&per_page=100`, { token: u.apiToken })).items;
  }

  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    expectAnswersDocumented(h);
    await h.close();
  });

  it('parallel POSTs with one key → exactly one command; every 201 is the same answer, the rest IN-PROGRESS', async () => {
    const u = await collector();
    const key = randomUUID();
    const results = await Promise.all(Array.from({ length: 8 }, () => collect(u, key)));
    const created = results.filter((r) => r.status === 201);
    expect(created.length).toBeGreaterThanOrEqual(1);
    expect(new Set(created.map((r) => r.text)).size).toBe(1);
    for (const other of results.filter((r) => r.status !== 201)) fails(other, 409, 'IDEMPOTENCY-KEY-IN-PROGRESS');
    expect(await commandsOf(u, 3)).toHaveLength(1);
    const replay = await collect(u, key);
    expect({ status: replay.status, text: replay.text }).toEqual({ status: 201, text: created[0]!.text });
  });

  it('same key and same body → the stored answer byte for byte with its status; key order and spacing do not matter', async () => {
    const u = await collector();
    const key = randomUUID();
    const first = await collect(u, key);
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    h.clock.advance(60 * 60_000);
    const again = await collect(u, key, { asset_symbol: 'USDT', address: u.sub });
    expect({ status: again.status, text: again.text }).toEqual({ status: 201, text: first.text });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    const spaced = await h.call('POST', '/api/collections', {
      token: u.apiToken, headers: { 'idempotency-key': key, 'content-type': 'application/json' },
      rawBody: `{ "asset_symbol" : "USDT",\n  "address": "${u.sub}" }`,
    });
    expect(spaced.text).toBe(first.text);
    expect(await commandsOf(u, 3)).toHaveLength(1);
  });

  it('a 4xx answer is stored too: the replay repeats it even after the cause is gone', async () => {
    const u = await collector();
    const blocker = ok(await collect(u, randomUUID()), 201);
    const key = randomUUID();
    const locked = await collect(u, key, { address: u.sub, asset_symbol: 'TRX' });
    fails(locked, 409, 'BIZ-COMMAND-LOCKED');
    ok(await h.call('POST', `/api/admin/commands/${blocker.command_no}/cancel`, { token: h.adminToken }));
    const replay = await collect(u, key, { address: u.sub, asset_symbol: 'TRX' });
    expect({ status: replay.status, text: replay.text }).toEqual({ status: 409, text: locked.text });
    ok(await collect(u, randomUUID(), { address: u.sub, asset_symbol: 'TRX' }), 201);
  });

  it('same key with another body → 422 IDEMPOTENCY-KEY-REUSED and nothing executes', async () => {
    const u = await collector();
    const other = await createWallet(h, u, 2);
    await cacheCollectable(h, other);
    const key = randomUUID();
    ok(await collect(u, key), 201);
    fails(await collect(u, key, { address: other, asset_symbol: 'USDT' }), 422, 'IDEMPOTENCY-KEY-REUSED');
    fails(await collect(u, key, { address: u.sub, asset_symbol: 'TRX' }), 422, 'IDEMPOTENCY-KEY-REUSED');
    expect(await commandsOf(u, 3)).toHaveLength(1);
  });

  it('a missing or blank key → 422 VALIDATION-ERROR naming Idempotency-Key on every idempotent route', async () => {
    const u = await collector();
    const ct = ok(await h.call('POST', '/api/cashier/tokens', { token: u.apiToken, body: { address: u.sub } }), 201).token;
    const calls = [
      (headers: Record<string, string>) => h.call('POST', '/api/collections', { token: u.apiToken, headers, body: { address: u.sub, asset_symbol: 'USDT' } }),
      (headers: Record<string, string>) => h.call('POST', '/api/cashier/collect', { token: ct, headers, body: { asset_symbol: 'USDT' } }),
      (headers: Record<string, string>) => h.call('POST', '/api/transfers', {
        token: u.session, headers, body: { from_address: u.main, to_address: u.sub, asset_symbol: 'TRX', amount: '1' },
      }),
      // Staking routes take the key too (issue #13): a retried stake must not run twice.
      ...['stake', 'unstake', 'withdraw-unstaked', 'vote', 'withdraw-reward'].map((op) => (headers: Record<string, string>) => {
        h.clock.advance(61_000);
        return h.call('POST', `/api/wallets/${u.main}/${op}`, { token: u.session, headers, body: { resource: 'ENERGY', amount: '1' } });
      }),
    ];
    for (const send of calls) {
      for (const headers of [{}, { 'idempotency-key': '   ' }, { 'idempotency-key': 'k'.repeat(256) }] as Record<string, string>[]) {
        const res = await send(headers);
        fails(res, 422, 'VALIDATION-ERROR');
        expect(res.json.message).toContain('Idempotency-Key');
      }
    }
    expect(await commandsOf(u, 3)).toHaveLength(0);
    expect(await commandsOf(u, 2)).toHaveLength(0);
    expect(h.host.routes.filter((r) => r.idempotent === true).map((r) => `${r.method} ${r.path}`).sort())
      .toEqual([
        'POST /api/cashier/collect', 'POST /api/collections', 'POST /api/transfers', 'POST /api/wallets/:address/stake',
        'POST /api/wallets/:address/unstake', 'POST /api/wallets/:address/vote', 'POST /api/wallets/:address/withdraw-reward',
        'POST /api/wallets/:address/withdraw-unstaked',
      ]);
    for (const type of [4, 5, 6, 7, 8]) expect(await commandsOf(u, type)).toHaveLength(0);
  });

  it('keys are scoped by caller: another user (or cashier token) with the same key executes its own request', async () => {
    const a = await collector();
    const b = await collector();
    const key = randomUUID();
    const ta = ok(await collect(a, key), 201);
    const tb = ok(await collect(b, key), 201);
    expect(tb.task_no).not.toBe(ta.task_no);
    const subA = await createWallet(h, a, 2);
    const subB = await createWallet(h, b, 2);
    // A payer collects only a cached balance (docs/decisions.md 44).
    for (const [user, sub] of [[a, subA], [b, subB]] as const) {
      h.devnet.fund(sub, 2_000_000);
      ok(await h.call('POST', `/api/wallets/${sub}/balances/refresh`, { token: user.apiToken, body: { force: true } }));
    }
    const cta = ok(await h.call('POST', '/api/cashier/tokens', { token: a.apiToken, body: { address: subA } }), 201).token;
    const ctb = ok(await h.call('POST', '/api/cashier/tokens', { token: b.apiToken, body: { address: subB } }), 201).token;
    const ca = ok(await h.call('POST', '/api/cashier/collect', { token: cta, headers: { 'idempotency-key': key }, body: { asset_symbol: 'TRX' } }), 201);
    const cb = ok(await h.call('POST', '/api/cashier/collect', { token: ctb, headers: { 'idempotency-key': key }, body: { asset_symbol: 'TRX' } }), 201);
    expect(cb.task_no).not.toBe(ca.task_no);
  });

  it('the scope is the route, not its spelling: a trailing slash replays the same answer', async () => {
    const u = await collector();
    const key = randomUUID();
    const first = await collect(u, key);
    expect(first.status).toBe(201);
    const slashed = await h.call('POST', '/api/collections/', { token: u.apiToken, headers: { 'idempotency-key': key }, body: { address: u.sub, asset_symbol: 'USDT' } });
    expect({ status: slashed.status, text: slashed.text }).toEqual({ status: 201, text: first.text });
  });

  it('after the 24 h window the key is forgotten: the request executes again', async () => {
    const u = await collector();
    const key = randomUUID();
    const body = { from_address: u.main, to_address: u.sub, asset_symbol: 'TRX', amount: '5' };
    const first = ok(await h.call('POST', '/api/transfers', { token: u.session, headers: { 'idempotency-key': key }, body }), 201);
    h.clock.advance(24 * 60 * 60_000 - 1_000);
    expect(ok(await h.call('POST', '/api/transfers', { token: u.session, headers: { 'idempotency-key': key }, body }), 201)).toEqual(first);
    h.clock.advance(2_000);
    const session = await relogin(h, u);
    // Executed again: the first withdrawal still holds the address lock.
    fails(await h.call('POST', '/api/transfers', { token: session, headers: { 'idempotency-key': key }, body }), 409, 'BIZ-COMMAND-LOCKED');
  });

  it('a process that died after begin leaves a lease, not a 24 h block: past it a retry runs the request', async () => {
    const u = await collector();
    const key = randomUUID();
    const body = { address: u.sub, asset_symbol: 'USDT' };
    // The crashed process got as far as begin (same scope and hash the API computes) and never completed.
    const store = h.container.get(TOKENS.Idempotency);
    expect(await store.begin(`u:${u.userId} POST /api/collections`, key, requestHash(body), IDEMPOTENCY_WINDOW_MS, IDEMPOTENCY_IN_FLIGHT_MS))
      .toEqual({ outcome: 'started' });
    fails(await collect(u, key, body), 409, 'IDEMPOTENCY-KEY-IN-PROGRESS');
    h.clock.advance(IDEMPOTENCY_IN_FLIGHT_MS - 1);
    fails(await collect(u, key, body), 409, 'IDEMPOTENCY-KEY-IN-PROGRESS');
    h.clock.advance(1);
    const taken = await collect(u, key, body);
    expect(taken.status).toBe(201);
    expect(taken.headers.get('idempotent-replayed')).toBeNull();
    expect(await commandsOf(u, 3)).toHaveLength(1);
    h.clock.advance(IDEMPOTENCY_IN_FLIGHT_MS * 10);
    const replay = await collect(u, key, body);
    expect({ status: replay.status, text: replay.text, replayed: replay.headers.get('idempotent-replayed') })
      .toEqual({ status: 201, text: taken.text, replayed: 'true' });
  });

  for (const point of ['between the effect and the record of its answer', 'after the effect and the answer are committed'] as const) {
    it(`a process killed ${point}: the retry gets the original answer or runs exactly once, never its own lock`, async () => {
      await crashAndRetry(h, point);
    });
  }

  it('model: random key/body sequences replay the first answer for the same body and refuse another body', async () => {
    const u = await collector('unlimited');
    const subs = [u.sub, await createWallet(h, u, 2), await createWallet(h, u, 2)];
    await cacheCollectable(h, ...subs);
    await fc.assert(fc.asyncProperty(
      fc.array(fc.record({ key: fc.integer({ min: 0, max: 2 }), sub: fc.integer({ min: 0, max: 2 }), asset: fc.constantFrom('USDT', 'TRX') }), { minLength: 1, maxLength: 8 }),
      async (steps) => {
        // Fresh windows and fresh keys per run; locks left by earlier runs make some answers 409, which is fine.
        h.clock.advance(61_000);
        const run = randomUUID();
        const first = new Map<number, { body: string; text: string; status: number }>();
        for (const step of steps) {
          const body = { address: subs[step.sub], asset_symbol: step.asset };
          const res = await collect(u, `${run}-${step.key}`, body);
          const seen = first.get(step.key);
          if (seen === undefined) {
            expect(res.status).not.toBe(422);
            first.set(step.key, { body: JSON.stringify(body), text: res.text, status: res.status });
          } else if (seen.body === JSON.stringify(body)) {
            expect({ status: res.status, text: res.text }).toEqual({ status: seen.status, text: seen.text });
          } else {
            fails(res, 422, 'IDEMPOTENCY-KEY-REUSED');
          }
        }
      },
    ), { numRuns: 15 });
  }, 30_000);
});
