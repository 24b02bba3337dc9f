import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type ApiHarness } from './test-harness.js';
import { expectDocumented, fails, ISO_TIME, ok, signUp } from './api-test-fixtures.js';

/** Issue #13: unrevoked Developer API Tokens are capped per user (25), and GET /api-tokens lists them without values. */
describe('API token cap and GET /api-tokens', () => {
  let h: ApiHarness;
  // The per-minute creation limit is not under test here: only the cap.
  beforeAll(async () => { h = await startHarness({ rateLimits: { 'api-token-create': 1_000 } }); });
  afterAll(async () => { await h.close(); });

  it('exactly 24 of 30 parallel creations succeed next to the sign-up token; the rest are 422 BIZ-API-TOKEN-QUOTA-EXCEEDED', async () => {
    const u = await signUp(h);
    const results = await Promise.all(Array.from({ length: 30 }, (_, i) => h.call('POST', '/api/api-tokens', { token: u.session, body: { name: `t${i}` } })));
    expect(results.filter((r) => r.status === 201)).toHaveLength(24);
    for (const r of results.filter((x) => x.status !== 201)) fails(r, 422, 'BIZ-API-TOKEN-QUOTA-EXCEEDED');
    const listed = await h.call('GET', '/api/api-tokens', { token: u.session });
    const data = ok(listed);
    expectDocumented(h, 'GET', '/api/api-tokens', data);
    expect(data.items).toHaveLength(25);
    expect(data.remaining).toBe(0);
    expect(listed.text).not.toMatch(/dk_/);
    for (const item of data.items) expect(Object.keys(item).sort()).toEqual(['abilities', 'created_at', 'expires_at', 'id', 'last_used_at', 'name', 'review_since']);
    // Revoking frees a place for exactly one more.
    ok(await h.call('DELETE', `/api/api-tokens/${data.items[3].id}`, { token: u.session }));
    ok(await h.call('POST', '/api/api-tokens', { token: u.session, body: { name: 'again' } }), 201);
    fails(await h.call('POST', '/api/api-tokens', { token: u.session, body: { name: 'one too many' } }), 422, 'BIZ-API-TOKEN-QUOTA-EXCEEDED');
  });

  it('last_used_at is null until the token authenticates a request, then its time to the minute; other users see only their own', async () => {
    const u = await signUp(h);
    const other = await signUp(h);
    const before = ok(await h.call('GET', '/api/api-tokens', { token: u.session })).items;
    expect(before.map((t: { id: number; last_used_at: unknown }) => [t.id, t.last_used_at])).toEqual([[u.apiTokenId, null]]);
    ok(await h.call('GET', '/api/wallets', { token: u.apiToken }));
    const used = ok(await h.call('GET', '/api/api-tokens', { token: u.session })).items[0].last_used_at;
    expect(used).toMatch(ISO_TIME);
    expect(Date.parse(used)).toBe(h.clock.now());
    h.clock.advance(30_000);
    ok(await h.call('GET', '/api/wallets', { token: u.apiToken }));
    expect(ok(await h.call('GET', '/api/api-tokens', { token: u.session })).items[0].last_used_at).toBe(used);
    h.clock.advance(30_000);
    ok(await h.call('GET', '/api/wallets', { token: u.apiToken }));
    expect(Date.parse(ok(await h.call('GET', '/api/api-tokens', { token: u.session })).items[0].last_used_at)).toBe(h.clock.now());
    expect(ok(await h.call('GET', '/api/api-tokens', { token: other.session })).items.map((t: { id: number }) => t.id)).toEqual([other.apiTokenId]);
    fails(await h.call('GET', '/api/api-tokens', { token: u.apiToken }), 403, 'FORBIDDEN');
  });
});
