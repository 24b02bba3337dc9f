import { formatAmount } from '../domain/amount.js';
import { webhookView } from '../domain/webhook-review.js';
import type { Subscription } from '../domain/model/account.js';
import type { UserId } from '../domain/model/common.js';
import type { DeveloperConfig } from '../domain/model/webhook.js';
import type { DeveloperConfigView } from './views.js';

/** AAD of the encrypted webhook secret: binds the ciphertext to its user. */
export function secretAad(userId: UserId): string {
  return `webhook-secret:${userId}`;
}

/** The configuration of a user who never saved one (version 0: the first save writes version 1). */
export function emptyDeveloperConfig(userId: UserId): DeveloperConfig {
  return {
    userId, url: null, pendingUrl: null, pendingSince: null, verifiedAt: null, reviewNote: null, secret: null,
    minCollectAmounts: {}, version: 0,
  };
}

/**
 * GET /subscriptions/config/developer. `config.webhook_url` is the URL the developer last set (the pending one while
 * under review, else the live one); `webhook` is the spec §2 status object. The secret is never included, only
 * whether one is set.
 */
export function developerConfigView(sub: Subscription | null, config: DeveloperConfig): DeveloperConfigView {
  const minimums = Object.entries(config.minCollectAmounts).map(([symbol, min]) => [symbol, formatAmount(min)]);
  return {
    service_code: 'developer',
    plan_code: sub?.planCode ?? null,
    status: sub?.status ?? 'none',
    config: {
      webhook_url: config.pendingUrl ?? config.url,
      webhook_secret_set: config.secret !== null,
      min_collect_amounts: Object.fromEntries(minimums),
    },
    webhook: webhookView(config),
  };
}
