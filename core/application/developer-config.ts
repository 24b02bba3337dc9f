import { formatAmount } from '../domain/amount.js';
import { webhookView } from '../domain/webhook-review.js';
import type { Subscription } from '../domain/model/account.js';
import type { EncryptedEnvelope, Millis, UserId } from '../domain/model/common.js';
import { formatIsoTime } from '../domain/time.js';
import { SPEC_EVENT_TYPES, type DeveloperConfig } from '../domain/model/webhook.js';
import type { DeveloperConfigView } from './views.js';

/** AAD of the encrypted webhook secret: binds the ciphertext to its user. */
export function secretAad(userId: UserId): string {
  return `webhook-secret:${userId}`;
}

/** How long a replaced webhook secret keeps signing beside the new one (issue #15). */
export const SECRET_OVERLAP_MS = 24 * 60 * 60_000;

/**
 * Sets a new secret; the one it replaces keeps signing (Standard Webhooks `webhook-signature` only) until 24 h from
 * now. Only the last replaced secret overlaps: a second change within the day ends the first one's overlap.
 */
export function withNewSecret(config: DeveloperConfig, secret: EncryptedEnvelope, now: Millis): DeveloperConfig {
  const previousSecret = config.secret === null ? null : { secret: config.secret, validUntil: now + SECRET_OVERLAP_MS };
  return { ...config, secret, previousSecret };
}

/** The configuration of a user who never saved one (version 0: the first save writes version 1). */
export function emptyDeveloperConfig(userId: UserId): DeveloperConfig {
  return {
    userId, url: null, pendingUrl: null, pendingSince: null, verifiedAt: null, reviewNote: null, secret: null,
    previousSecret: null, minCollectAmounts: {}, version: 0,
  };
}

/**
 * GET /subscriptions/config/developer. `config.webhook_url` is the URL the developer last set (the pending one while
 * under review, else the live one); `webhook` is the spec §2 status object. The secret is never included, only
 * whether one is set.
 */
export function developerConfigView(sub: Subscription | null, config: DeveloperConfig, now: Millis): DeveloperConfigView {
  const minimums = Object.entries(config.minCollectAmounts).map(([symbol, min]) => [symbol, formatAmount(min)]);
  return {
    service_code: 'developer',
    plan_code: sub?.planCode ?? null,
    status: sub?.status ?? 'none',
    config: {
      webhook_url: config.pendingUrl ?? config.url,
      webhook_secret_set: config.secret !== null,
      previous_secret_valid_until: previousSecretUntil(config, now),
      min_collect_amounts: Object.fromEntries(minimums),
      event_types: [...SPEC_EVENT_TYPES, ...(config.optInEventTypes ?? [])],
      auto_collect: Object.fromEntries(Object.entries(config.autoCollect ?? {}).map(([symbol, rule]) => [
        symbol, { min_amount: formatAmount(rule.minAmount), max_fee_sun: formatAmount(rule.maxFeeSun) },
      ])),
      display_name: config.displayName ?? null,
    },
    webhook: webhookView(config),
  };
}

/** When the replaced secret stops signing, while it still does (an extension field); never the secret itself. */
function previousSecretUntil(config: DeveloperConfig, now: Millis): string | null {
  const previous = config.previousSecret;
  return previous == null || previous.validUntil <= now || config.secret === null ? null : formatIsoTime(previous.validUntil);
}
