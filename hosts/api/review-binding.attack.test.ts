/**
 * Reviews that bind (issue #35 item 5), attack-style: the platform's approval of an approval_url or a webhook_url
 * names the exact URL the admin reviewed (and, for an approval URL, its secret's fingerprint). A thief holding the
 * account's session swaps the pending URL (or only the secret) between the admin's review and the approval: the
 * approval is refused with 409 and nothing goes live. A new approval secret puts the URL back under review.
 * Memory adapters and a ManualClock behind the real composition.
 */
import { createHash, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type ApiHarness } from './test-harness.js';
import { createWallet, expectAnswersDocumented, expectDocumented, fails, ok, relogin, signUp, userWithWallets, type TestUser } from './api-test-fixtures.js';

const OWNER_URL = 'http://127.0.0.1:9/owner-approver';
const THIEF_URL = 'http://127.0.0.1:9/thief-approver';
/** What the docs tell an owner to compute: the first 16 hex digits of SHA-256 of the secret. */
const fingerprint = (secret: string): string => createHash('sha256').update(secret, 'utf8').digest('hex').slice(0, 16);

describe('reviews that bind: a URL swapped after the review is not approved', () => {
  let h: ApiHarness;
  let to: string;

  beforeAll(async () => {
    h = await startHarness();
    to = h.devnet.info().witnesses[0]!;
  });
  afterAll(async () => {
    expectAnswersDocumented(h);
    await h.close();
  });

  const putPolicy = (u: TestUser, body: unknown) => h.call('PUT', '/api/policies/withdrawal', { token: u.session, body });
  /**
   * A new approver (URL or secret) is a loosening (issue #35 item 3): 202, and it takes effect POLICY_CHANGE_DELAY_H
   * (24 h) later, at the next read of the policy; then it waits for the platform's review as before. The session the
   * day outlived is renewed.
   */
  const loosenAndWait = async <U extends TestUser>(u: U, body: unknown): Promise<U> => {
    ok(await putPolicy(u, body), 202);
    h.clock.advance(24 * 3_600_000);
    const renewed = { ...u, session: await relogin(h, u) };
    ok(await h.call('GET', '/api/policies/withdrawal', { token: renewed.session }));
    return renewed;
  };
  const approveUrl = (u: TestUser, body?: unknown) =>
    h.call('POST', `/api/admin/approval-urls/${u.userId}/approve`, { token: h.adminToken, ...(body === undefined ? {} : { body }) });
  const pendingOf = async (u: TestUser): Promise<Record<string, unknown> | undefined> =>
    (ok(await h.call('GET', '/api/admin/approval-urls/pending', { token: h.adminToken })) as Record<string, unknown>[]).find((p) => p['user_id'] === u.userId);
  const transfer = (u: TestUser, from: string, amount: string) => h.call('POST', '/api/transfers', {
    token: u.session, headers: { 'idempotency-key': randomUUID() }, body: { from_address: from, to_address: to, asset_symbol: 'TRX', amount },
  });

  it('approval_url: the thief swaps the pending URL after the review; the approval naming the reviewed URL answers 409', async () => {
    let u = await userWithWallets(h, 'pro');
    const ownerSecret = `owner-${randomUUID()}`;
    u = await loosenAndWait(u, { approval_url: OWNER_URL, approval_secret: ownerSecret, limits: { TRX: { approval_threshold: '1000000' } } });
    // The admin reviews what is pending: the owner's URL and its secret's fingerprint.
    const reviewed = await pendingOf(u);
    expect(reviewed).toMatchObject({ pending_url: OWNER_URL, secret_fingerprint: fingerprint(ownerSecret) });
    // Meanwhile the thief, with the owner's session, puts their own approver in its place.
    u = await loosenAndWait(u, { approval_url: THIEF_URL, approval_secret: 'thief secret' });
    const stale = await approveUrl(u, { url: OWNER_URL, secret_fingerprint: reviewed!['secret_fingerprint'] });
    fails(stale, 409, 'REVIEW-STALE');
    // Nothing went live: the thief's approver cannot approve anything.
    const policy = ok(await h.call('GET', '/api/policies/withdrawal', { token: u.session }));
    expect(policy.approval).toMatchObject({ status: 'pending', url: null, pending_url: THIEF_URL });
    const from = await createWallet(h, u, 2);
    fails(await transfer(u, from, '1000001'), 422, 'POLICY-APPROVAL-UNAVAILABLE');
    // An approval must name what it approves.
    fails(await approveUrl(u), 422, 'VALIDATION-ERROR');
    fails(await approveUrl(u, { url: THIEF_URL }), 422, 'VALIDATION-ERROR');
  });

  it('approval_url: the thief keeps the URL but changes the secret after the review; 409, and the fingerprint of the new secret is shown', async () => {
    let u = await userWithWallets(h, 'pro');
    const ownerSecret = `owner-${randomUUID()}`;
    u = await loosenAndWait(u, { approval_url: OWNER_URL, approval_secret: ownerSecret });
    const reviewed = await pendingOf(u);
    u = await loosenAndWait(u, { approval_secret: 'thief secret' });
    fails(await approveUrl(u, { url: OWNER_URL, secret_fingerprint: fingerprint(ownerSecret) }), 409, 'REVIEW-STALE');
    expect(await pendingOf(u)).toMatchObject({ pending_url: OWNER_URL, secret_fingerprint: fingerprint('thief secret') });
    expect(reviewed).toMatchObject({ secret_fingerprint: fingerprint(ownerSecret) });
  });

  it('approval_url: the reviewed pair goes live and the audit entry names the URL in full; a new secret needs a new review', async () => {
    let u = await userWithWallets(h, 'pro');
    const ownerSecret = `owner-${randomUUID()}`;
    u = await loosenAndWait(u, { approval_url: OWNER_URL, approval_secret: ownerSecret, limits: { TRX: { approval_threshold: '1000000' } } });
    const approved = ok(await approveUrl(u, { url: OWNER_URL, secret_fingerprint: fingerprint(ownerSecret) }));
    expectDocumented(h, 'POST', '/api/admin/approval-urls/:userId/approve', approved);
    expect(approved).toMatchObject({ status: 'verified', url: OWNER_URL, pending_url: null });
    fails(await approveUrl(u, { url: OWNER_URL, secret_fingerprint: fingerprint(ownerSecret) }), 409, 'POLICY-APPROVAL-URL-NOT-PENDING');
    const audit = ok(await h.call('GET', '/api/audit-log', { token: u.session })).items as { action: string; detail: Record<string, unknown> }[];
    expect(audit).toContainEqual(expect.objectContaining({
      action: 'policy.changed',
      detail: expect.objectContaining({ approval_url_review: 'approved', url: OWNER_URL, secret_fingerprint: fingerprint(ownerSecret) }),
    }));
    const from = await createWallet(h, u, 2);
    ok(await transfer(u, from, '1000001'), 201);

    // Re-sending the same secret changes nothing; a new one takes the URL out of service until it is reviewed again.
    expect(ok(await putPolicy(u, { approval_url: OWNER_URL, approval_secret: ownerSecret })).approval).toMatchObject({ status: 'verified' });
    u = await loosenAndWait(u, { approval_secret: 'another secret' });
    const changed = ok(await h.call('GET', '/api/policies/withdrawal', { token: u.session }));
    expect(changed.approval).toMatchObject({ status: 'pending', url: null, pending_url: OWNER_URL });
    const second = await createWallet(h, u, 2);
    fails(await transfer(u, second, '1000001'), 422, 'POLICY-APPROVAL-UNAVAILABLE');
    ok(await approveUrl(u, { url: OWNER_URL, secret_fingerprint: fingerprint('another secret') }));
    ok(await transfer(u, second, '1000001'), 201);
  });

  it('webhook_url: the thief swaps the pending URL after the review; the approval naming the reviewed URL answers 409', async () => {
    const u = await signUp(h);
    const put = (url: string) => h.call('PUT', '/api/subscriptions/config', {
      token: u.session, body: { service_code: 'developer', config: { webhook_url: url, webhook_secret: 'whsec-test' } },
    });
    const approve = (body?: unknown) =>
      h.call('POST', `/api/admin/webhooks/${u.userId}/approve`, { token: h.adminToken, ...(body === undefined ? {} : { body }) });
    ok(await put('http://127.0.0.1:9/owner-hook'));
    ok(await put('http://127.0.0.1:9/thief-hook'));
    fails(await approve({ url: 'http://127.0.0.1:9/owner-hook' }), 409, 'REVIEW-STALE');
    fails(await approve(), 422, 'VALIDATION-ERROR');
    const config = ok(await h.call('GET', '/api/subscriptions/config/developer', { token: u.session }));
    expect(config.webhook).toMatchObject({ status: 'pending', url: null, pending_url: 'http://127.0.0.1:9/thief-hook' });

    ok(await put('http://127.0.0.1:9/owner-hook'));
    const approved = ok(await approve({ url: 'http://127.0.0.1:9/owner-hook' }));
    expect(approved).toMatchObject({ status: 'verified', url: 'http://127.0.0.1:9/owner-hook' });
    const audit = ok(await h.call('GET', '/api/audit-log', { token: u.session })).items as { action: string; detail: Record<string, unknown> }[];
    expect(audit).toContainEqual(expect.objectContaining({
      action: 'webhook.url_reviewed', detail: expect.objectContaining({ decision: 'approved', url: 'http://127.0.0.1:9/owner-hook' }),
    }));
  });
});
