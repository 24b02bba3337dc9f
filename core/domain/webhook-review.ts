import type { Millis } from './model/common.js';
import type { DeveloperConfig, WebhookReviewStatus } from './model/webhook.js';
import { DomainError } from './errors.js';
import { formatIsoTime } from './time.js';

/**
 * Spec §3 webhook URL review table as data. The pure functions below implement these rows; the test suite runs
 * every row as a case.
 */
export const WEBHOOK_REVIEW_TRANSITIONS = [
  { from: 'unconfigured', trigger: 'put-url', condition: 'valid URL', to: 'pending' },
  { from: 'pending', trigger: 'approve', condition: null, to: 'verified' },
  { from: 'pending', trigger: 'reject', condition: null, to: 'pending_url cleared, review_note set' },
  { from: 'verified or pending', trigger: 'put-url', condition: 'same URL as the live one', to: 'pending change cancelled' },
  { from: 'any', trigger: 'put-empty', condition: null, to: 'unconfigured' },
  { from: 'verified', trigger: 'put-url', condition: 'a different URL', to: 'pending; url keeps the previous URL' },
] as const;

/**
 * The review state of a URL that goes through the platform's review: a developer's webhook_url, and (the same rules,
 * issue #26) an account's approval_url.
 */
export type UrlReview = Pick<DeveloperConfig, 'url' | 'pendingUrl' | 'pendingSince' | 'verifiedAt' | 'reviewNote'>;

/**
 * The review status. A pending URL makes the status `pending` even when an approved URL is live — the spec's
 * last row reads "verified + different URL → pending; url keeps the previous URL until approval" — so a client
 * sees `status: pending` together with a non-null `url` (still receiving events) and the `pending_url`.
 */
export function webhookStatus(config: UrlReview): WebhookReviewStatus {
  if (config.pendingUrl !== null) return 'pending';
  return config.url !== null ? 'verified' : 'unconfigured';
}

/**
 * PUT config with `webhook_url` (already checked by checkWebhookUrlSyntax and normalised to `URL.href`, so equal
 * URLs compare equal as strings). Returns the new config; the version is left to the caller.
 * - `''` removes the webhook: URL, pending URL, dates and note all cleared (the secret is the caller's concern).
 * - the URL that is live: any pending change is cancelled; the live URL stays verified.
 * - the URL already pending: nothing changes (re-sending keeps its place in the review queue).
 * - any other URL: it becomes the pending URL from `now`, the live URL (if any) keeps receiving events, and an
 *   earlier review note is cleared because it was about another URL.
 */
export function applyWebhookUrl<C extends UrlReview>(config: C, url: string, now: Millis): C {
  if (url === '') {
    return { ...config, url: null, pendingUrl: null, pendingSince: null, verifiedAt: null, reviewNote: null };
  }
  if (url === config.url) return { ...config, pendingUrl: null, pendingSince: null };
  if (url === config.pendingUrl) return config;
  return { ...config, pendingUrl: url, pendingSince: now, reviewNote: null };
}

/**
 * A new secret for a reviewed URL (issue #35 item 5: the approval URL and its secret are reviewed as a pair): the
 * review starts again. The live URL, if any, stops being used (its secret is gone) and becomes the pending one unless
 * another URL is already pending; a pending URL stays pending and keeps its place in the queue.
 */
export function reviewAgain<C extends UrlReview>(config: C, now: Millis): C {
  if (config.pendingUrl !== null) return { ...config, url: null, verifiedAt: null };
  if (config.url === null) return config;
  return { ...config, url: null, verifiedAt: null, pendingUrl: config.url, pendingSince: now, reviewNote: null };
}

function requirePending(config: UrlReview): string {
  if (config.pendingUrl === null) throw new DomainError('BIZ-WEBHOOK-NOT-PENDING');
  return config.pendingUrl;
}

/**
 * Platform review approves the URL it reviewed (issue #35 item 5): `reviewedUrl` goes live from `now` when it is still
 * the pending URL. BIZ-WEBHOOK-NOT-PENDING when nothing is pending; REVIEW-STALE when another URL has been put in its
 * place since the review, so a URL swapped between the review and the approval is never approved unseen.
 */
export function approveWebhook<C extends UrlReview>(config: C, reviewedUrl: string, now: Millis): C {
  const pendingUrl = requirePending(config);
  if (pendingUrl !== reviewedUrl) throw new DomainError('REVIEW-STALE');
  return { ...config, url: pendingUrl, pendingUrl: null, pendingSince: null, verifiedAt: now, reviewNote: null };
}

/**
 * Platform review rejects: the pending URL is dropped and the note kept for the developer; a live URL stays live.
 * `now` is accepted so every review operation has one signature, though a rejection records no time of its own.
 */
export function rejectWebhook<C extends UrlReview>(config: C, note: string, now: Millis): C {
  void now;
  requirePending(config);
  return { ...config, pendingUrl: null, pendingSince: null, reviewNote: note };
}

/** Spec §2 `webhook` object of GET /subscriptions/config/developer. */
export interface WebhookView {
  readonly status: WebhookReviewStatus;
  readonly url: string | null;
  readonly pending_url: string | null;
  readonly pending_since: string | null;
  readonly verified_at: string | null;
  readonly review_note: string | null;
}

/** The wire view, timestamps as ISO 8601 with offset. */
export function webhookView(config: UrlReview): WebhookView {
  return {
    status: webhookStatus(config),
    url: config.url,
    pending_url: config.pendingUrl,
    pending_since: config.pendingSince === null ? null : formatIsoTime(config.pendingSince),
    verified_at: config.verifiedAt === null ? null : formatIsoTime(config.verifiedAt),
    review_note: config.reviewNote,
  };
}
