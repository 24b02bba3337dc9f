import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type ApiHarness, type HttpResult } from './test-harness.js';
import { expectAnswersDocumented, ok, userWithWallets } from './api-test-fixtures.js';

/** The TRX line of a balance answer and the cooldown headers beside it. */
function seen(result: HttpResult): { trx: string; source: number; cooldown: string | null; retryAfter: string | null } {
  const data = ok(result);
  return {
    trx: data.items.find((item: { symbol: string }) => item.symbol === 'TRX').balance_available,
    source: data.refresh_source,
    cooldown: result.headers.get('x-refresh-cooldown'),
    retryAfter: result.headers.get('retry-after'),
  };
}

/**
 * POST /wallets/{address}/balances/refresh inside the 30 s cooldown answers the cached snapshot: spec §4 keeps it at
 * refresh_source 2, so the answer says it is not a fresh read with X-Refresh-Cooldown and Retry-After (seconds until a
 * refresh reads the chain again); an answer read from the chain carries neither.
 */
describe('balance refresh cooldown, signalled', () => {
  let h: ApiHarness;
  beforeAll(async () => { h = await startHarness(); });
  afterAll(async () => {
    expectAnswersDocumented(h);
    await h.close();
  });

  it('a cached answer inside the cooldown carries X-Refresh-Cooldown and Retry-After; a chain read carries neither', async () => {
    const user = await userWithWallets(h);
    const refresh = (body?: unknown) => h.call('POST', `/api/wallets/${user.sub}/balances/refresh`, { token: user.apiToken, ...(body === undefined ? {} : { body }) });
    h.devnet.fund(user.sub, 1_000_000n);
    expect(seen(await refresh())).toEqual({ trx: '1000000', source: 2, cooldown: null, retryAfter: null });

    h.devnet.fund(user.sub, 1_000_000n);
    h.clock.advance(10_000);
    const cached = await refresh();
    expect(seen(cached)).toEqual({ trx: '1000000', source: 2, cooldown: '20', retryAfter: '20' });
    // Still the API's answer in every other respect: the limit's headers, the request id, JSON.
    expect(cached.headers.get('x-ratelimit-limit')).toBe('20');
    expect(cached.headers.get('x-request-id')).toBeTruthy();
    expect(cached.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(cached.json).toMatchObject({ code: 'OK', message: 'success' });

    h.clock.advance(19_500);
    expect(seen(await refresh({}))).toMatchObject({ trx: '1000000', cooldown: '1', retryAfter: '1' });
    expect(seen(await refresh({ force: true }))).toEqual({ trx: '2000000', source: 2, cooldown: null, retryAfter: null });
    h.devnet.fund(user.sub, 1_000_000n);
    h.clock.advance(30_000);
    expect(seen(await refresh())).toEqual({ trx: '3000000', source: 2, cooldown: null, retryAfter: null });
  });

  it('/openapi.json describes the cooldown and both headers on the refresh\'s success answer', () => {
    const paths = h.host.openapi['paths'] as Record<string, Record<string, any>>;
    const operation = paths['/api/wallets/{address}/balances/refresh']!['post'];
    expect(operation.description).toMatch(/Cooldown.*30 s/s);
    expect(Object.keys(operation.responses['200'].headers)).toEqual(expect.arrayContaining(['X-Refresh-Cooldown', 'Retry-After', 'X-RateLimit-Limit']));
  });
});
