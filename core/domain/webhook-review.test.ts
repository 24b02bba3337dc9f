import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { DomainError } from './errors.js';
import type { DeveloperConfig } from './model/webhook.js';
import { applyWebhookUrl, approveWebhook, rejectWebhook, reviewAgain, webhookStatus, webhookView, WEBHOOK_REVIEW_TRANSITIONS } from './webhook-review.js';

const T0 = Date.UTC(2026, 4, 25, 10, 0, 0);
const A = 'https://a.example/hook';
const B = 'https://b.example/hook';

function config(overrides: Partial<DeveloperConfig> = {}): DeveloperConfig {
  return {
    version: 3, userId: 7, url: null, pendingUrl: null, pendingSince: null, verifiedAt: null, reviewNote: null,
    secret: null, previousSecret: null, minCollectAmounts: { USDT: 5n }, ...overrides,
  };
}
const unconfigured = config();
const pendingA = config({ pendingUrl: A, pendingSince: T0 });
const verifiedA = config({ url: A, verifiedAt: T0 });
const verifiedAPendingB = config({ url: A, verifiedAt: T0, pendingUrl: B, pendingSince: T0 + 5 });

function failsWith(code: string, fn: () => unknown): void {
  expect(fn).toThrow(DomainError);
  try { fn(); } catch (e) { expect((e as DomainError).code).toBe(code); }
}
const notPending = (fn: () => unknown): void => failsWith('BIZ-WEBHOOK-NOT-PENDING', fn);

describe('webhook URL review (spec §3, one case per row)', () => {
  it('lists the six rows of the spec table', () => {
    expect(WEBHOOK_REVIEW_TRANSITIONS).toHaveLength(6);
  });

  it('row 1: unconfigured + PUT a valid URL → pending', () => {
    const next = applyWebhookUrl(unconfigured, A, T0);
    expect(webhookStatus(next)).toBe('pending');
    expect(next).toMatchObject({ url: null, pendingUrl: A, pendingSince: T0 });
  });

  it('row 2: pending + approve → verified (url := pending URL, verified_at set)', () => {
    const next = approveWebhook(pendingA, A, T0 + 10);
    expect(webhookStatus(next)).toBe('verified');
    expect(next).toMatchObject({ url: A, pendingUrl: null, pendingSince: null, verifiedAt: T0 + 10, reviewNote: null });
  });

  it('row 3: pending + reject → pending_url cleared, review_note set', () => {
    const next = rejectWebhook(pendingA, 'not reachable', T0 + 10);
    expect(next).toMatchObject({ url: null, pendingUrl: null, pendingSince: null, reviewNote: 'not reachable' });
    expect(webhookStatus(next)).toBe('unconfigured');
    const keepsLive = rejectWebhook(verifiedAPendingB, 'no', T0 + 10);
    expect(keepsLive).toMatchObject({ url: A, pendingUrl: null, reviewNote: 'no', verifiedAt: T0 });
    expect(webhookStatus(keepsLive)).toBe('verified');
  });

  it('row 4: verified or pending + PUT the live URL → pending change cancelled', () => {
    const next = applyWebhookUrl(verifiedAPendingB, A, T0 + 20);
    expect(next).toMatchObject({ url: A, pendingUrl: null, pendingSince: null, verifiedAt: T0 });
    expect(webhookStatus(next)).toBe('verified');
    expect(applyWebhookUrl(verifiedA, A, T0 + 20)).toEqual(verifiedA);
  });

  it('row 5: any + PUT empty → unconfigured, everything cleared', () => {
    for (const c of [unconfigured, pendingA, verifiedA, verifiedAPendingB, config({ reviewNote: 'x' })]) {
      const next = applyWebhookUrl(c, '', T0);
      expect(webhookStatus(next)).toBe('unconfigured');
      expect(next).toMatchObject({ url: null, pendingUrl: null, pendingSince: null, verifiedAt: null, reviewNote: null });
      expect(next.minCollectAmounts).toBe(c.minCollectAmounts);
    }
  });

  it('row 6: verified + PUT a different URL → pending; url keeps the previous URL', () => {
    const next = applyWebhookUrl(verifiedA, B, T0 + 30);
    expect(webhookStatus(next)).toBe('pending');
    expect(next).toMatchObject({ url: A, pendingUrl: B, pendingSince: T0 + 30, verifiedAt: T0 });
  });

  it('re-sending the pending URL keeps its place in the queue; another URL replaces it and clears an old note', () => {
    expect(applyWebhookUrl(pendingA, A, T0 + 99)).toBe(pendingA);
    const rejected = rejectWebhook(pendingA, 'bad', T0);
    expect(applyWebhookUrl(rejected, B, T0 + 1)).toMatchObject({ pendingUrl: B, pendingSince: T0 + 1, reviewNote: null });
  });

  it('approve and reject need something pending', () => {
    notPending(() => approveWebhook(unconfigured, A, T0));
    notPending(() => approveWebhook(verifiedA, A, T0));
    notPending(() => rejectWebhook(verifiedA, 'x', T0));
  });

  it('an approval names the URL reviewed: another pending URL is REVIEW-STALE (issue #35 item 5)', () => {
    failsWith('REVIEW-STALE', () => approveWebhook(pendingA, B, T0));
    failsWith('REVIEW-STALE', () => approveWebhook(verifiedAPendingB, A, T0));
    expect(approveWebhook(verifiedAPendingB, B, T0 + 10)).toMatchObject({ url: B, pendingUrl: null, verifiedAt: T0 + 10 });
  });

  it('a new secret starts the review again: the live URL stops and waits; a pending one stays pending', () => {
    expect(reviewAgain(verifiedA, T0 + 7)).toMatchObject({ url: null, verifiedAt: null, pendingUrl: A, pendingSince: T0 + 7, reviewNote: null });
    expect(reviewAgain(verifiedAPendingB, T0 + 7)).toMatchObject({ url: null, verifiedAt: null, pendingUrl: B, pendingSince: T0 + 5 });
    expect(reviewAgain(pendingA, T0 + 7)).toEqual(pendingA);
    expect(reviewAgain(unconfigured, T0 + 7)).toEqual(unconfigured);
  });

  it('never touches the version (the caller bumps it)', () => {
    expect(applyWebhookUrl(verifiedA, B, T0).version).toBe(3);
    expect(approveWebhook(pendingA, A, T0).version).toBe(3);
  });

  it('renders the spec §2 webhook object with ISO timestamps', () => {
    expect(webhookView(verifiedAPendingB)).toEqual({
      status: 'pending', url: A, pending_url: B, pending_since: '2026-05-25T10:00:00+00:00',
      verified_at: '2026-05-25T10:00:00+00:00', review_note: null,
    });
    expect(webhookView(unconfigured)).toEqual({
      status: 'unconfigured', url: null, pending_url: null, pending_since: null, verified_at: null, review_note: null,
    });
  });

  it('model-based: events only ever go to an approved URL, and the live URL changes only by approval or removal', () => {
    // An approval names the URL the admin reviewed, which may have been swapped since (issue #35 item 5).
    type Op = { kind: 'put'; url: string } | { kind: 'approve'; url: string } | { kind: 'reject' };
    const urls = fc.constantFrom(A, B, 'https://c.example/');
    const op: fc.Arbitrary<Op> = fc.oneof(
      fc.oneof(fc.constant(''), urls).map((url) => ({ kind: 'put' as const, url })),
      urls.map((url) => ({ kind: 'approve' as const, url })),
      fc.constant({ kind: 'reject' as const }),
    );
    fc.assert(fc.property(fc.array(op, { maxLength: 25 }), (ops) => {
      let c = unconfigured;
      const approved = new Set<string>();
      let t = T0;
      for (const o of ops) {
        t += 1000;
        const before = c;
        if (o.kind === 'put') c = applyWebhookUrl(c, o.url, t);
        else if (c.pendingUrl === null) { notPending(() => (o.kind === 'approve' ? approveWebhook(c, o.url, t) : rejectWebhook(c, 'n', t))); continue; }
        else if (o.kind === 'approve' && o.url !== c.pendingUrl) { failsWith('REVIEW-STALE', () => approveWebhook(before, o.url, t)); continue; }
        else if (o.kind === 'approve') { approved.add(o.url); c = approveWebhook(c, o.url, t); }
        else c = rejectWebhook(c, 'n', t);
        if (c.url !== null) expect(approved.has(c.url)).toBe(true);
        if (c.url !== before.url) expect(o.kind === 'approve' || (o.kind === 'put' && o.url === '')).toBe(true);
        expect(c.pendingUrl === null || c.pendingUrl !== c.url).toBe(true);
        expect(c.pendingUrl === null).toBe(c.pendingSince === null);
        expect(webhookStatus(c)).toBe(c.pendingUrl !== null ? 'pending' : c.url !== null ? 'verified' : 'unconfigured');
      }
    }));
  });
});
