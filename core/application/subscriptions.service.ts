import { parsePositiveAmount } from '../domain/amount.js';
import { DomainError, validationError } from '../domain/errors.js';
import { formatIsoTime } from '../domain/time.js';
import { applyWebhookUrl } from '../domain/webhook-review.js';
import { parseCallbackUrl } from './callback-url.js';
import {
  DEFAULT_DEVELOPER_PLAN, DEVELOPER_PLANS, SUB_ADDRESS_PLANS,
} from '../domain/wallet-rules.js';
import type { ServiceCode, Subscription } from '../domain/model/account.js';
import type { UserId } from '../domain/model/common.js';
import type { AuditEvent } from '../domain/model/audit.js';
import {
  OPT_IN_EVENT_TYPES, SPEC_EVENT_TYPES, type AutoCollectRule, type DeveloperConfig, type OptInEventType,
} from '../domain/model/webhook.js';
import type { SubscriptionsService } from './application.js';
import type { ResolvedDeps } from './deps.js';
import { AuditTrail } from './audit-trail.js';
import { developerConfigView, emptyDeveloperConfig, secretAad, withNewSecret } from './developer-config.js';
import { fieldsOf, optionalString, requireString, type Fields } from './input.js';
import { retryOnConflict } from './retry-on-conflict.js';
import type { DeveloperConfigView, SubscriptionView } from './views.js';

/** The keys of `config` whose new values config.changed records (issue #35 item 8); the webhook's have their own actions. */
const AUDITED_CONFIG_KEYS = ['auto_collect', 'event_types', 'display_name', 'min_collect_amounts'] as const;

/**
 * The config.changed entry of a PUT /subscriptions/config that sets any of AUDITED_CONFIG_KEYS (none: no entry): `keys`
 * lists them, each key holds its new value as sent (validated by then), a string as is, anything else as JSON.
 * Never the webhook secret or URL: those are webhook.secret_changed and webhook.url_changed (the URL in full).
 */
function configChanges(userId: UserId, config: Fields): AuditEvent[] {
  const keys = AUDITED_CONFIG_KEYS.filter((key) => config[key] !== undefined);
  if (keys.length === 0) return [];
  const detail: Record<string, string | null> = { keys: keys.join(',') };
  for (const key of keys) {
    const value = config[key];
    detail[key] = value === null ? null : typeof value === 'string' ? value : JSON.stringify(value);
  }
  return [{ userId, action: 'config.changed', actor: { kind: 'user', id: null }, detail }];
}

/** Each service's plans; an activation without `plan_code` takes `fallback` (sub_address: the configured default). */
const PLANS: Readonly<Record<ServiceCode, { readonly codes: readonly string[]; readonly fallback: string | null }>> = {
  developer: { codes: Object.keys(DEVELOPER_PLANS), fallback: DEFAULT_DEVELOPER_PLAN },
  sub_address: { codes: Object.keys(SUB_ADDRESS_PLANS), fallback: null },
};
const MAX_SECRET = 512;
/** The keys of PUT /subscriptions/config's `config`: spec §4's two, then the documented extensions. */
const CONFIG_KEYS = ['webhook_url', 'webhook_secret', 'min_collect_amounts', 'event_types', 'auto_collect', 'display_name'];

/**
 * Keys of GET /subscriptions/config/developer that only report: a client that sends the view it read back is not
 * misspelling anything, so these are accepted and ignored (they change nothing), beside and inside `config`.
 */
const READ_ONLY_KEYS = ['plan_code', 'status', 'webhook'];
const READ_ONLY_CONFIG_KEYS = ['webhook_secret_set', 'previous_secret_valid_until'];

function refuseUnknownKeys(fields: Fields, known: readonly string[], prefix: string): void {
  const extra = Object.keys(fields).find((key) => !known.includes(key));
  if (extra !== undefined) throw validationError(`${prefix}${extra}`, 'is not a known field');
}

function parseServiceCode(fields: Fields): ServiceCode {
  const code = requireString(fields, 'service_code', 32);
  if (code !== 'developer' && code !== 'sub_address') throw new DomainError('BIZ-SERVICE-NOT-FOUND');
  return code;
}

/**
 * config.event_types: undefined = unchanged; else an array of known event types, of which the opt-in ones (deposit.*)
 * are kept, in the catalogue's order. The spec's four may be listed and change nothing (they are always sent); anything
 * else (webhook.test, an unknown name, a non-string) is a VALIDATION-ERROR.
 */
function parseEventTypes(raw: unknown): OptInEventType[] | undefined {
  if (raw === undefined) return undefined;
  if (!Array.isArray(raw)) throw validationError('event_types', 'must be an array of event types');
  const known: readonly string[] = [...SPEC_EVENT_TYPES, ...OPT_IN_EVENT_TYPES];
  for (const [i, type] of raw.entries()) {
    if (typeof type !== 'string' || !known.includes(type)) {
      throw validationError(`event_types[${i}]`, `must be one of ${known.join(', ')}`);
    }
  }
  return OPT_IN_EVENT_TYPES.filter((type) => raw.includes(type));
}

/** config.display_name at most this long (the payer page shows it beside "Pay 25 USDT"). */
export const MAX_DISPLAY_NAME = 80;

/** config.display_name: undefined = unchanged; null or blank clears it; else the trimmed name, ≤ 80 characters. */
function parseDisplayName(raw: unknown): string | null | undefined {
  if (raw === undefined) return undefined;
  if (raw === null) return null;
  if (typeof raw !== 'string') throw validationError('display_name', 'must be a string or null');
  const name = raw.trim();
  if (name.length > MAX_DISPLAY_NAME) throw validationError('display_name', `must be at most ${MAX_DISPLAY_NAME} characters`);
  return name === '' ? null : name;
}

/** A non-negative canonical integer string ("0", "250000"); no sign, leading zeros, decimals or numbers. */
const CANONICAL_NON_NEGATIVE = /^(0|[1-9][0-9]*)$/;

function nonNegativeAmount(value: unknown, field: string): bigint {
  if (typeof value !== 'string' || !CANONICAL_NON_NEGATIVE.test(value)) {
    throw validationError(field, 'must be a non-negative integer string');
  }
  return BigInt(value);
}

/**
 * config.auto_collect: undefined = unchanged; null clears it; else symbol -> { min_amount, max_fee_sun } (integer
 * strings) for assets of the supported network, replacing the whole map. An unknown symbol, a missing or malformed
 * amount, or another key is a VALIDATION-ERROR.
 */
function parseAutoCollect(raw: unknown, known: (symbol: string) => boolean): Record<string, AutoCollectRule> | undefined {
  if (raw === undefined) return undefined;
  if (raw === null) return {};
  const rules: Record<string, AutoCollectRule> = {};
  for (const [symbol, value] of Object.entries(fieldsOf(raw, 'auto_collect'))) {
    const field = `auto_collect.${symbol}`;
    if (!known(symbol)) throw validationError(field, 'is not a known asset symbol');
    if (value === null || typeof value !== 'object' || Array.isArray(value)) throw validationError(field, 'must be an object');
    const rule = value as Record<string, unknown>;
    const extra = Object.keys(rule).find((key) => key !== 'min_amount' && key !== 'max_fee_sun');
    if (extra !== undefined) throw validationError(`${field}.${extra}`, 'is not a known field');
    rules[symbol] = {
      minAmount: nonNegativeAmount(rule['min_amount'], `${field}.min_amount`),
      maxFeeSun: nonNegativeAmount(rule['max_fee_sun'], `${field}.max_fee_sun`),
    };
  }
  return rules;
}

function toSubscriptionView(sub: Subscription): SubscriptionView {
  return {
    service_code: sub.serviceCode,
    plan_code: sub.planCode,
    status: sub.status,
    meta: sub.meta.maxSubAddresses === undefined ? {} : { max_sub_addresses: sub.meta.maxSubAddresses },
    activated_at: formatIsoTime(sub.activatedAt),
  };
}

/** The ports the subscription use cases touch. */
export type SubscriptionsDeps = Pick<ResolvedDeps,
  'subscriptions' | 'developerConfigs' | 'cipher' | 'dns' | 'assets' | 'clock' | 'settings' | 'auditLog' | 'uow'>;

/** Subscriptions (no billing: activation is immediate) and the developer configuration (webhook, minimums). */
export class SubscriptionsUseCases implements SubscriptionsService {
  private readonly audit: AuditTrail;

  constructor(private readonly deps: SubscriptionsDeps) {
    this.audit = new AuditTrail(deps);
  }

  /**
   * Activates the plan (default: developer `standard`, sub_address the configured default, `starter` unless
   * DEFAULT_SUB_ADDRESS_PLAN says otherwise). Activating the active plan again
   * changes nothing (an admin quota override survives); another plan switches and takes that plan's quota.
   */
  async activate(userId: UserId, body: unknown): Promise<SubscriptionView> {
    const fields = fieldsOf(body);
    const service = parseServiceCode(fields);
    const plan = optionalString(fields, 'plan_code', 32) ?? PLANS[service].fallback ?? this.deps.settings.defaultSubAddressPlan;
    if (!PLANS[service].codes.includes(plan)) throw new DomainError('BIZ-PLAN-NOT-FOUND');
    return retryOnConflict(async () => {
      const existing = await this.deps.subscriptions.find(userId, service);
      if (existing !== null && existing.status === 'active' && existing.planCode === plan) return toSubscriptionView(existing);
      const quota = SUB_ADDRESS_PLANS[plan as keyof typeof SUB_ADDRESS_PLANS];
      const sub: Subscription = {
        userId, serviceCode: service, planCode: plan, status: 'active',
        meta: service === 'sub_address' ? { maxSubAddresses: quota } : {},
        activatedAt: this.deps.clock.now(),
        version: (existing?.version ?? 0) + 1,
      };
      // The switch lands with its audit entry (issue #35 item 8), the plan it replaces named.
      await this.audit.recordWith(() => this.deps.subscriptions.save(sub), () => ({
        userId, action: 'subscription.activated', actor: { kind: 'user', id: null },
        detail: { service_code: service, plan_code: plan, previous_plan_code: existing?.planCode ?? null, previous_status: existing?.status ?? null },
      }));
      return toSubscriptionView(sub);
    });
  }

  /**
   * Updates only the fields present in `config`. webhook_url: '' or null removes the webhook (and its secret); a URL
   * passes the syntax rules, is resolved once and every address checked, then enters review. A secret is required
   * with the first URL and can be replaced but never read. min_collect_amounts replaces the whole map; event_types
   * replaces the opt-in types (the spec's four are always sent, whether listed or not); auto_collect replaces the
   * automatic collection rules (null or {} clears them).
   */
  async putConfig(userId: UserId, body: unknown): Promise<DeveloperConfigView> {
    const fields = fieldsOf(body);
    if (requireString(fields, 'service_code', 32) !== 'developer') throw validationError('service_code', 'must be developer');
    if (fields['config'] === undefined || fields['config'] === null) throw validationError('config', 'is required');
    const config = fieldsOf(fields['config'], 'config');
    // Issue #35 item 9: a misspelt key is refused by name, never silently ignored.
    refuseUnknownKeys(fields, ['service_code', 'config', ...READ_ONLY_KEYS], '');
    refuseUnknownKeys(config, [...CONFIG_KEYS, ...READ_ONLY_CONFIG_KEYS], 'config.');
    await this.requireDeveloper(userId);
    const url = await parseCallbackUrl(this.deps.dns, this.deps.settings.allowLocalWebhooks, config['webhook_url'], 'webhook_url');
    const secret = this.parseSecret(config['webhook_secret']);
    const minimums = this.parseMinimums(config['min_collect_amounts']);
    const optIns = parseEventTypes(config['event_types']);
    // Symbols alone, like min_collect_amounts: TRON is the one supported network.
    const autoCollect = parseAutoCollect(config['auto_collect'], (symbol) => this.deps.assets.find('TRON', symbol) !== null);
    const displayName = parseDisplayName(config['display_name']);
    const encrypted = secret === undefined
      ? undefined
      : await this.deps.cipher.encrypt(new TextEncoder().encode(secret), secretAad(userId));
    await retryOnConflict(async () => {
      const current = (await this.deps.developerConfigs.get(userId)) ?? emptyDeveloperConfig(userId);
      let next: DeveloperConfig = url === undefined ? current : applyWebhookUrl(current, url, this.deps.clock.now());
      if (url === '') next = { ...next, secret: null, previousSecret: null };
      if (encrypted !== undefined) next = withNewSecret(next, encrypted, this.deps.clock.now());
      if (minimums !== undefined) next = { ...next, minCollectAmounts: minimums };
      if (optIns !== undefined) next = { ...next, optInEventTypes: optIns };
      if (autoCollect !== undefined) next = { ...next, autoCollect };
      if (displayName === null) {
        const { displayName: _cleared, ...rest } = next;
        next = rest;
      } else if (displayName !== undefined) {
        next = { ...next, displayName };
      }
      if ((next.url !== null || next.pendingUrl !== null) && next.secret === null) {
        throw validationError('webhook_secret', 'is required with a webhook_url');
      }
      // The change lands with its audit entries (decision 144); the URL in full (issue #35 item 8: the exact URL a
      // reviewer approves) and its host.
      const actor = { kind: 'user', id: null } as const;
      const events: AuditEvent[] = [
        ...(url === undefined ? [] : [{ userId, action: 'webhook.url_changed' as const, actor, detail: { url: url === '' ? null : url, host: url === '' ? null : new URL(url).host } }]),
        ...(secret === undefined ? [] : [{ userId, action: 'webhook.secret_changed' as const, actor }]),
        ...configChanges(userId, config),
      ];
      await this.audit.recordWith(() => this.deps.developerConfigs.save({ ...next, version: current.version + 1 }), () => events);
    });
    return this.getDeveloperConfig(userId);
  }

  async getDeveloperConfig(userId: UserId): Promise<DeveloperConfigView> {
    const [sub, config] = await Promise.all([
      this.deps.subscriptions.find(userId, 'developer'), this.deps.developerConfigs.get(userId),
    ]);
    return developerConfigView(sub, config ?? emptyDeveloperConfig(userId), this.deps.clock.now());
  }

  private async requireDeveloper(userId: UserId): Promise<void> {
    const sub = await this.deps.subscriptions.find(userId, 'developer');
    if (sub === null || sub.status !== 'active') throw new DomainError('BIZ-DEVELOPER-SUBSCRIPTION-REQUIRED');
  }

  /** undefined: unchanged; else a non-empty string (a secret is replaced, never cleared on its own). */
  private parseSecret(raw: unknown): string | undefined {
    if (raw === undefined) return undefined;
    if (typeof raw !== 'string' || raw.length === 0) throw validationError('webhook_secret', 'must be a non-empty string');
    if (raw.length > MAX_SECRET) throw validationError('webhook_secret', `must be at most ${MAX_SECRET} characters`);
    return raw;
  }

  /** Symbol → positive integer string, for assets of a supported network; null clears the map. */
  private parseMinimums(raw: unknown): Record<string, bigint> | undefined {
    if (raw === undefined) return undefined;
    const entries = Object.entries(fieldsOf(raw, 'min_collect_amounts'));
    const minimums: Record<string, bigint> = {};
    for (const [symbol, value] of entries) {
      // Minimums are keyed by symbol alone (spec §2 session object); TRON is the one supported network.
      if (this.deps.assets.find('TRON', symbol) === null) {
        throw new DomainError('BIZ-ASSET-NOT-FOUND', { message: `asset symbol unknown: min_collect_amounts.${symbol}` });
      }
      const amount = parsePositiveAmount(value);
      if (amount === null) throw validationError(`min_collect_amounts.${symbol}`, 'must be a positive integer string');
      minimums[symbol] = amount;
    }
    return minimums;
  }
}
