/**
 * Issue #35 item 4, API tokens over HTTP: an optional expiry at creation and by PUT /api-tokens/{id}/expiry (which
 * also reviews the token), a password reset that marks every token for review (they keep working), and
 * last_used_at. Memory adapters and a ManualClock behind the real composition.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatIsoTime } from '../../core/domain/time.js';
import { expectAnswersDocumented, expectDocumented, fails, ok, signUp, TEST_PASSWORD } from './api-test-fixtures.js';
import { startHarness, type ApiHarness } from './test-harness.js';

const HOUR = 3_600_000;

describe('API token expiry and review (issue #35)', () => {
  let h: ApiHarness;
  beforeAll(async () => { h = await startHarness(); });
  afterAll(async () => {
    expectAnswersDocumented(h);
    await h.close();
  });

  const listed = async (session: string, id: number) =>
    (ok(await h.call('GET', '/api/api-tokens', { token: session })).items as Array<Record<string, unknown>>).find((t) => t['id'] === id)!;

  it('a token with expires_at stops working then; the expiry can be set, cleared, and is refused in the past', async () => {
    const u = await signUp(h);
    fails(await h.call('POST', '/api/api-tokens', { token: u.session, body: { name: 'past', expires_at: formatIsoTime(h.clock.now() - 1) } }), 422, 'VALIDATION-ERROR');
    fails(await h.call('POST', '/api/api-tokens', { token: u.session, body: { name: 'bad', expires_at: 'tomorrow' } }), 422, 'VALIDATION-ERROR');
    const expiresAt = formatIsoTime(h.clock.now() + HOUR);
    const created = ok(await h.call('POST', '/api/api-tokens', { token: u.session, body: { name: 'short', expires_at: expiresAt } }), 201);
    expectDocumented(h, 'POST', '/api/api-tokens', created);
    expect(created.expires_at).toBe(expiresAt);
    ok(await h.call('GET', '/api/commands', { token: created.token }));
    expect(await listed(u.session, created.id)).toMatchObject({ expires_at: expiresAt, review_since: null, last_used_at: formatIsoTime(h.clock.now()) });
    h.clock.advance(HOUR);
    fails(await h.call('GET', '/api/commands', { token: created.token }), 401, 'UNAUTHENTICATED');
    // A later expiry brings it back; null: never.
    const session = ok(await h.call('POST', '/api/auth/login', { body: { email: u.email, password: TEST_PASSWORD } })).session_token as string;
    const later = ok(await h.call('PUT', `/api/api-tokens/${created.id}/expiry`, { token: session, body: { expires_at: formatIsoTime(h.clock.now() + HOUR) } }));
    expectDocumented(h, 'PUT', '/api/api-tokens/:id/expiry', later);
    ok(await h.call('GET', '/api/commands', { token: created.token }));
    expect(ok(await h.call('PUT', `/api/api-tokens/${created.id}/expiry`, { token: session, body: { expires_at: null } })).expires_at).toBeNull();
    h.clock.advance(10 * HOUR);
    ok(await h.call('GET', '/api/commands', { token: created.token }));
    fails(await h.call('PUT', `/api/api-tokens/${created.id}/expiry`, { token: session, body: {} }), 422, 'VALIDATION-ERROR');
    const stranger = await signUp(h);
    fails(await h.call('PUT', `/api/api-tokens/${created.id}/expiry`, { token: stranger.session, body: { expires_at: null } }), 404, 'API-TOKEN-NOT-FOUND');
  });

  it('a password reset ends every session and marks every API token for review; they keep working until reviewed or revoked', async () => {
    const u = await signUp(h);
    const second = ok(await h.call('POST', '/api/api-tokens', { token: u.session, body: { name: 'second' } }), 201);
    ok(await h.call('POST', '/api/auth/password-reset/request', { body: { email: u.email } }), 202);
    const code = h.mailer.lastCodeFor(u.email, 'password-reset');
    const resetAt = formatIsoTime(h.clock.now());
    ok(await h.call('POST', '/api/auth/password-reset/confirm', { body: { email: u.email, code, new_password: 'another long password' } }));
    fails(await h.call('GET', '/api/api-tokens', { token: u.session }), 401, 'UNAUTHENTICATED');
    const session = ok(await h.call('POST', '/api/auth/login', { body: { email: u.email, password: 'another long password' } })).session_token as string;
    const tokens = ok(await h.call('GET', '/api/api-tokens', { token: session }));
    expectDocumented(h, 'GET', '/api/api-tokens', tokens);
    expect((tokens.items as Array<Record<string, unknown>>).map((t) => t['review_since'])).toEqual([resetAt, resetAt]);
    ok(await h.call('GET', '/api/commands', { token: second.token }));
    // Reviewing one (its expiry) clears its mark only.
    ok(await h.call('PUT', `/api/api-tokens/${second.id}/expiry`, { token: session, body: { expires_at: null } }));
    expect(await listed(session, second.id)).toMatchObject({ review_since: null });
    expect((await listed(session, u.apiTokenId)) ?? null).toMatchObject({ review_since: resetAt });
    const log = ok(await h.call('GET', '/api/audit-log?per_page=100', { token: session })).items as Array<{ action: string; detail: Record<string, unknown> }>;
    expect(log.find((e) => e.action === 'auth.password_reset')!.detail).toMatchObject({ api_tokens_marked_for_review: 2 });
    expect(log.filter((e) => e.action === 'api_token.expiry_set')).toHaveLength(1);
  });
});
