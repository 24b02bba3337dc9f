import { formatAmount } from '../domain/amount.js';
import { DomainError, validationError } from '../domain/errors.js';
import type { UserId } from '../domain/model/common.js';
import type { AllowListEntry, AssetLimits, WithdrawalPolicy } from '../domain/model/withdrawal-policy.js';
import { parsePageQuery, toItemsPage, type ItemsPage } from '../domain/pagination.js';
import { formatIsoTime } from '../domain/time.js';
import { approvalSecretFingerprint } from '../domain/approval.js';
import type { EncryptedEnvelope } from '../domain/model/common.js';
import { approveWebhook, rejectWebhook, webhookView, type WebhookView } from '../domain/webhook-review.js';
import type { PendingPolicyChange, PolicyPatch } from '../domain/model/withdrawal-policy.js';
import {
  applyPolicyPatch, immediatePart, looseningsOf, MAX_PENDING_POLICY_CHANGES, pendingChangesOf, pendingPart,
} from '../domain/policy-change.js';
import { carryOutTeamChange, mailPendingChange, settledPolicy, teamDetail } from './policy-changes.js';
import { parseCallbackUrl } from './callback-url.js';
import {
  DEFAULT_LIMITS_KEY, emptyWithdrawalPolicy, MAX_ALLOW_LIST_ENTRIES, MAX_APPROVAL_TIMEOUT_MINUTES,
} from '../domain/withdrawal-policy-rules.js';
import type { AuditEvent } from '../domain/model/audit.js';
import { AuditTrail } from './audit-trail.js';
import { actingMember } from './acting-member.js';
import type { ResolvedDeps } from './deps.js';
import { fieldsOf, optionalString, parseIdParam, requireString, type Fields } from './input.js';
import { retryOnConflict } from './retry-on-conflict.js';

/** The ports the policy use cases touch. */
export type WithdrawalPoliciesDeps = Pick<ResolvedDeps,
  'withdrawalPolicies' | 'accounts' | 'auditLog' | 'uow' | 'cipher' | 'dns' | 'assets' | 'chain' | 'clock' | 'settings' | 'mailer' | 'sessions'>
  & Partial<Pick<ResolvedDeps, 'members'>>;

/** AAD of the encrypted approval secret: binds the ciphertext to its user and purpose. */
export function approvalSecretAad(userId: UserId): string {
  return `approval-secret:${userId}`;
}

const MAX_SECRET = 512;
const MAX_LABEL = 120;
const MAX_NOTE = 500;
const POLICY_FIELDS = ['allow_list_only', 'approval_url', 'approval_secret', 'approval_timeout_minutes', 'limits'];
const LIMIT_FIELDS = ['max_amount_24h', 'max_count_1h', 'approval_threshold'];
const CANONICAL_NON_NEGATIVE = /^(0|[1-9][0-9]*)$/;

/** GET/PUT /policies/withdrawal: the fixed fields of issue #26 and the approval endpoint's review state. */
export interface WithdrawalPolicyView {
  readonly allow_list_only: boolean;
  /** The URL last set: the pending one while under review, else the approved one. */
  readonly approval_url: string | null;
  readonly approval: WebhookView;
  readonly approval_secret_set: boolean;
  readonly approval_timeout_minutes: number;
  readonly limits: Record<string, { max_amount_24h: string | null; max_count_1h: number | null; approval_threshold: string | null }>;
  readonly updated_at: string | null;
  /** Extension (issue #35 item 3): until then a password reset or 2FA change holds destinations not on the allow-list. */
  readonly new_destinations_held_until: string | null;
}

export interface AllowListEntryView {
  readonly address: string;
  readonly label: string | null;
  readonly created_at: string;
  readonly active_from: string;
}

/** An approval URL waiting for the platform's review (admin). */
export interface PendingApprovalUrlView {
  readonly user_id: number;
  readonly pending_url: string;
  readonly pending_since: string | null;
  readonly url: string | null;
  /** What the review names with the URL (issue #35 item 5): see approvalSecretFingerprint. */
  readonly secret_fingerprint: string | null;
}

/** A pending loosening of the policy (issue #35 item 3): GET /policies/changes, and the 202 of a loosening PUT. */
export interface PolicyChangeView {
  readonly change_id: string;
  readonly status: 'pending' | 'cancelled' | 'approved';
  /**
   * What it loosens: `allow_list_only`, `limits.<SYMBOL>.<field>`, `approval_url`, `approval_secret`; a team change
   * `members.<id>.invited`, `members.<id>.role` or `users.<id>.two_factor`.
   */
  readonly loosens: readonly string[];
  /**
   * The fields that wait, as sent (never the secret: `approval_secret_changed`); a team change `member` ({member_id,
   * email, role} for an invitation, {member_id, email, from, to} for a role raised) or `two_factor` ({user_id, email,
   * enabled: false}).
   */
  readonly changes: Record<string, unknown>;
  readonly requested_at: string;
  /** When it takes effect by itself unless cancelled first (POLICY_CHANGE_DELAY_H after it was requested). */
  readonly effective_at: string;
  /** How it takes effect: `delay` (a solo owner: nobody else can approve it). */
  readonly takes_effect_by: 'delay';
}

/** The 202 of a loosening PUT: the pending change, and the policy as it stands now (its tightenings applied). */
export interface PolicyChangeRequestedView extends PolicyChangeView {
  readonly policy: WithdrawalPolicyView;
}

function teamChangeFields(change: PendingPolicyChange): Record<string, unknown> {
  const team = change.team!;
  switch (team.kind) {
    case 'member_invited': return { member: { member_id: team.memberId, email: team.email, role: team.role } };
    case 'role_raised': return { member: { member_id: team.memberId, email: team.email, from: team.from, to: team.to } };
    case 'two_factor_off': return { two_factor: { user_id: team.userId, email: team.email, enabled: false } };
  }
}

export function changeView(change: PendingPolicyChange): PolicyChangeView {
  if (change.team !== undefined) {
    return {
      change_id: change.changeId, status: 'pending', loosens: [...change.loosens], changes: teamChangeFields(change),
      requested_at: formatIsoTime(change.requestedAt), effective_at: formatIsoTime(change.effectiveAt), takes_effect_by: 'delay',
    };
  }
  const p = change.patch;
  const limits = p.limits === undefined ? undefined : policyView({ ...emptyWithdrawalPolicy(0, 0), limits: p.limits }).limits;
  return {
    change_id: change.changeId, status: 'pending', loosens: [...change.loosens],
    changes: {
      ...(p.allowListOnly === undefined ? {} : { allow_list_only: p.allowListOnly }),
      ...(limits === undefined ? {} : { limits }),
      ...(p.approvalUrl === undefined ? {} : { approval_url: p.approvalUrl === '' ? null : p.approvalUrl }),
      ...(p.approvalSecret === undefined ? {} : { approval_secret_changed: true }),
    },
    requested_at: formatIsoTime(change.requestedAt), effective_at: formatIsoTime(change.effectiveAt), takes_effect_by: 'delay',
  };
}

function changeAuditDetail(change: PendingPolicyChange): Record<string, string | number> {
  return {
    change_id: change.changeId, loosens: change.loosens.join(','),
    requested_at: formatIsoTime(change.requestedAt), effective_at: formatIsoTime(change.effectiveAt),
    ...(change.team === undefined ? {} : teamDetail(change.team)),
  };
}

function policyView(policy: WithdrawalPolicy, now = 0): WithdrawalPolicyView {
  const amount = (n: bigint | null): string | null => (n === null ? null : formatAmount(n));
  return {
    allow_list_only: policy.allowListOnly,
    approval_url: policy.approval.pendingUrl ?? policy.approval.url,
    approval: webhookView(policy.approval),
    approval_secret_set: policy.approval.secret !== null,
    approval_timeout_minutes: policy.approval.timeoutMinutes,
    limits: Object.fromEntries(Object.entries(policy.limits).map(([symbol, l]) => [symbol, {
      max_amount_24h: amount(l.maxAmount24h), max_count_1h: l.maxCount1h, approval_threshold: amount(l.approvalThreshold),
    }])),
    updated_at: policy.version === 0 ? null : formatIsoTime(policy.updatedAt),
    new_destinations_held_until: policy.newDestinationsHeldUntil == null || policy.newDestinationsHeldUntil <= now
      ? null : formatIsoTime(policy.newDestinationsHeldUntil),
  };
}

export function allowListEntryView(entry: AllowListEntry): AllowListEntryView {
  return { address: entry.address, label: entry.label, created_at: formatIsoTime(entry.createdAt), active_from: formatIsoTime(entry.activeFrom) };
}

function refuseUnknown(fields: Fields, known: readonly string[], prefix: string): void {
  const extra = Object.keys(fields).find((key) => !known.includes(key));
  if (extra !== undefined) throw validationError(`${prefix}${extra}`, 'is not a known field');
}

function optionalAmount(value: unknown, field: string): bigint | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string' || !CANONICAL_NON_NEGATIVE.test(value)) throw validationError(field, 'must be a non-negative integer string or null');
  return BigInt(value);
}

function optionalCount(value: unknown, field: string): number | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) throw validationError(field, 'must be a non-negative integer or null');
  return value;
}

/**
 * Withdrawal policies (issue #26 item 1; session routes): the policy, the allow-list with its cooling-off delay, and
 * the platform's review of approval URLs (admin).
 */
export class WithdrawalPoliciesUseCases {
  private readonly audit: AuditTrail;

  constructor(private readonly deps: WithdrawalPoliciesDeps) {
    this.audit = new AuditTrail(deps);
  }

  async getPolicy(userId: UserId): Promise<WithdrawalPolicyView> {
    return policyView(await this.current(userId), this.deps.clock.now());
  }

  /**
   * Changes the fields present; absent ones stay. `limits` replaces the whole map (null or {} clears it);
   * `approval_url` ('' or null removes it, with its secret) passes webhook_url's syntax and address rules and then
   * waits for the platform's review; `approval_secret` is write-only and required with a URL.
   */
  async putPolicy(userId: UserId, body: unknown): Promise<WithdrawalPolicyView | PolicyChangeRequestedView> {
    const fields = fieldsOf(body);
    refuseUnknown(fields, POLICY_FIELDS, '');
    const allowListOnly = fields['allow_list_only'];
    if (allowListOnly !== undefined && typeof allowListOnly !== 'boolean') throw validationError('allow_list_only', 'must be a boolean');
    const url = await parseCallbackUrl(this.deps.dns, this.deps.settings.allowLocalWebhooks, fields['approval_url'], 'approval_url');
    const secret = this.parseSecret(fields['approval_secret']);
    const timeout = fields['approval_timeout_minutes'];
    if (timeout !== undefined && (typeof timeout !== 'number' || !Number.isSafeInteger(timeout) || timeout < 1 || timeout > MAX_APPROVAL_TIMEOUT_MINUTES)) {
      throw validationError('approval_timeout_minutes', `must be an integer from 1 to ${MAX_APPROVAL_TIMEOUT_MINUTES}`);
    }
    const limits = this.parseLimits(fields['limits']);
    const encrypted = secret === undefined ? undefined
      : await this.deps.cipher.encrypt(new TextEncoder().encode(secret), approvalSecretAad(userId));
    const outcome = await retryOnConflict(async () => {
      const current = await this.current(userId);
      const now = this.deps.clock.now();
      // The URL and its secret are reviewed as a pair (issue #35 item 5): a new secret sends the URL back to review;
      // the same secret sent again changes nothing.
      const secretChanged = encrypted !== undefined && (await this.secretOf(userId, current.approval.secret)) !== secret;
      const patch: PolicyPatch = {
        ...(allowListOnly === undefined ? {} : { allowListOnly: allowListOnly as boolean }),
        ...(limits === undefined ? {} : { limits }),
        ...(url === undefined ? {} : { approvalUrl: url }),
        ...(secretChanged ? { approvalSecret: encrypted! } : {}),
        ...(timeout === undefined ? {} : { approvalTimeoutMinutes: timeout as number }),
      };
      const whole = applyPolicyPatch(current, patch, now);
      if ((whole.approval.url !== null || whole.approval.pendingUrl !== null) && whole.approval.secret === null) {
        throw validationError('approval_secret', 'is required with an approval_url');
      }
      // A loosening waits; a tightening is immediate (issue #35 item 3): the tightening part lands now, the loosening
      // part becomes a pending change of the policy.
      const loosens = looseningsOf(current, patch);
      const change: PendingPolicyChange | null = loosens.length === 0 ? null : {
        changeId: String(current.version + 1), requestedAt: now, effectiveAt: now + this.deps.settings.policyChangeDelayMs,
        patch: pendingPart(current, patch), loosens, requestedBy: actingMember()?.userId ?? userId,
      };
      if (change !== null && pendingChangesOf(current).length >= MAX_PENDING_POLICY_CHANGES) throw new DomainError('POLICY-CHANGES-FULL');
      const applied = change === null ? whole : applyPolicyPatch(current, immediatePart(current, patch), now);
      const next: WithdrawalPolicy = {
        ...applied, updatedAt: now, version: current.version + 1,
        ...(change === null ? {} : { pendingChanges: [...pendingChangesOf(current), change] }),
      };
      const view = policyView(next, now);
      // Lands with its entry (decision 144). What changed, never the secret: which fields were sent, and the policy
      // as it now stands; a loosening's entry names what waits and until when.
      await this.audit.recordWith(() => this.deps.withdrawalPolicies.save(next), (): AuditEvent[] => [{
        userId, action: 'policy.changed' as const, actor: { kind: 'user' as const, id: null },
        detail: {
          fields: Object.keys(fields).sort().join(','), allow_list_only: view.allow_list_only,
          // In full (issue #35 item 8: a reviewer must see the exact URL), and its host as before.
          approval_url: view.approval_url, approval_url_host: view.approval_url === null ? null : new URL(view.approval_url).host,
          approval_secret_changed: secret !== undefined && change === null, limits: JSON.stringify(view.limits),
        },
      }, ...(change === null ? [] : [{
        userId, action: 'policy.change_requested' as const, actor: { kind: 'user' as const, id: null },
        detail: { ...changeAuditDetail(change), approval_url: change.patch.approvalUrl ?? null },
      }])]);
      return { view, change };
    });
    if (outcome.change === null) return outcome.view;
    await mailPendingChange(this.deps, userId, outcome.change);
    return { ...changeView(outcome.change), policy: outcome.view };
  }

  /** GET /policies/changes: the pending changes, oldest first (due ones have been applied by the read). */
  async listChanges(userId: UserId): Promise<{ items: PolicyChangeView[] }> {
    const policy = await settledPolicy(this.deps, userId);
    const pending = policy === null ? [] : [...pendingChangesOf(policy)].sort((a, b) => a.requestedAt - b.requestedAt);
    return { items: pending.map(changeView) };
  }

  /**
   * POST /policies/changes/{changeId}/approve: another admin's approval (issue #35 item 3). With two or more admins
   * (the owner and joined admin members) an admin other than the requester applies it at once, with its audit entry,
   * in one versioned write; the requester gets POLICY-CHANGE-OWN-REQUEST. With fewer (a solo owner) nobody else can
   * approve: POLICY-CHANGE-SOLO-OWNER (409), and the change takes effect after the delay.
   */
  async approveChange(userId: UserId, changeId: string): Promise<PolicyChangeView> {
    return retryOnConflict(async () => {
      const policy = await settledPolicy(this.deps, userId);
      const change = policy === null ? undefined : pendingChangesOf(policy).find((c) => c.changeId === changeId);
      if (policy === null || change === undefined) throw new DomainError('POLICY-CHANGE-NOT-FOUND');
      // With two or more admins (the owner counts as one) another admin approves it at once (issue #35 item 3).
      const admins = [userId, ...(await this.deps.members?.listByAccount(userId) ?? []).filter((m) => m.role === 'admin' && m.userId !== null).map((m) => m.userId!)];
      if (admins.length < 2) throw new DomainError('POLICY-CHANGE-SOLO-OWNER');
      const approver = actingMember()?.userId ?? userId;
      if ((change.requestedBy ?? userId) === approver) throw new DomainError('POLICY-CHANGE-OWN-REQUEST');
      const now = this.deps.clock.now();
      let next: WithdrawalPolicy = {
        ...applyPolicyPatch(policy, change.patch, now), pendingChanges: pendingChangesOf(policy).filter((c) => c.changeId !== changeId),
        updatedAt: now, version: policy.version + 1,
      };
      let teamEvents: AuditEvent[] = [];
      await this.audit.recordWith(async () => {
        // A team change (issue #35 item 3) is carried out in the same scope as its approval.
        const done = await carryOutTeamChange(this.deps, userId, change, next, now);
        next = done.policy;
        teamEvents = done.events;
        await this.deps.withdrawalPolicies.save(next);
      }, () => [{
        userId, action: 'policy.change_applied' as const, actor: { kind: 'user' as const, id: null },
        detail: { ...changeAuditDetail(change), requested_by: change.requestedBy ?? userId, approved_by: approver, allow_list_only: next.allowListOnly },
      }, ...teamEvents]);
      return { ...changeView(change), status: 'approved' as const };
    });
  }

  /** POST /policies/changes/{changeId}/cancel: any admin (today: the owner) until it takes effect. */
  async cancelChange(userId: UserId, changeId: string): Promise<PolicyChangeView> {
    return retryOnConflict(async () => {
      const policy = await settledPolicy(this.deps, userId);
      const change = policy === null ? undefined : pendingChangesOf(policy).find((c) => c.changeId === changeId);
      if (policy === null || change === undefined) throw new DomainError('POLICY-CHANGE-NOT-FOUND');
      const now = this.deps.clock.now();
      const next: WithdrawalPolicy = {
        ...policy, pendingChanges: pendingChangesOf(policy).filter((c) => c.changeId !== changeId), updatedAt: now, version: policy.version + 1,
      };
      let removed: AuditEvent[] = [];
      await this.audit.recordWith(async () => {
        await this.deps.withdrawalPolicies.save(next);
        // A cancelled invitation (issue #35 item 3) is withdrawn with it: its code never works.
        const team = change.team;
        if (team?.kind === 'member_invited') {
          const member = (await this.deps.members?.listByAccount(userId))?.find((m) => m.id === team.memberId);
          if (member !== undefined && member.userId === null && (await this.deps.members!.remove(userId, member.id)) !== null) {
            removed = [{ userId, action: 'member.removed', actor: { kind: 'user', id: null }, detail: { member_id: member.id, email: member.email, role: member.role, change_id: change.changeId } }];
          }
        }
      }, () => [{
        userId, action: 'policy.change_cancelled' as const, actor: { kind: 'user' as const, id: null }, detail: changeAuditDetail(change),
      }, ...removed]);
      return { ...changeView(change), status: 'cancelled' as const };
    });
  }

  /** POST /policies/allow-list {address, label}: usable from now + WITHDRAWAL_ALLOWLIST_DELAY_H (active_from). */
  async addAllowListEntry(userId: UserId, body: unknown): Promise<AllowListEntryView> {
    const fields = fieldsOf(body);
    refuseUnknown(fields, ['address', 'label'], '');
    const address = requireString(fields, 'address', 128);
    if (!this.deps.chain.isAddress(address)) throw validationError('address', 'is not a valid address');
    const label = optionalString(fields, 'label', MAX_LABEL);
    const now = this.deps.clock.now();
    const entry: AllowListEntry = { userId, address, label, createdAt: now, activeFrom: now + this.deps.settings.allowListDelayMs };
    const view = allowListEntryView(entry);
    await this.audit.recordWith(async () => {
      const outcome = await this.deps.withdrawalPolicies.addAllowListEntry(entry, MAX_ALLOW_LIST_ENTRIES);
      if (outcome === 'exists') throw new DomainError('POLICY-ALLOW-LIST-ENTRY-EXISTS');
      if (outcome === 'full') throw new DomainError('POLICY-ALLOW-LIST-FULL');
    }, () => ({ userId, action: 'policy.allow_list_added', actor: { kind: 'user', id: null }, detail: { address, label, active_from: view.active_from } }));
    return view;
  }

  async listAllowList(userId: UserId, query: unknown): Promise<ItemsPage<AllowListEntryView>> {
    const page = parsePageQuery(fieldsOf(query, 'query'), 'standard');
    const found = await this.deps.withdrawalPolicies.listAllowList(userId, page);
    return toItemsPage(found.items.map(allowListEntryView), found.total, page.page, page.perPage);
  }

  /** DELETE /policies/allow-list/{address}: effective at once. */
  async removeAllowListEntry(userId: UserId, address: string): Promise<{ address: string; removed: true }> {
    await this.audit.recordWith(async () => {
      if (!(await this.deps.withdrawalPolicies.removeAllowListEntry(userId, address))) throw new DomainError('POLICY-ALLOW-LIST-ENTRY-NOT-FOUND');
    }, () => ({ userId, action: 'policy.allow_list_removed', actor: { kind: 'user', id: null }, detail: { address } }));
    return { address, removed: true };
  }

  async listPendingApprovalUrls(): Promise<PendingApprovalUrlView[]> {
    const pending = await this.deps.withdrawalPolicies.listPendingApprovalUrls();
    const views = await Promise.all(pending.map(async (p) => (p.approval.pendingUrl === null ? null : {
      user_id: p.userId, pending_url: p.approval.pendingUrl,
      pending_since: p.approval.pendingSince === null ? null : formatIsoTime(p.approval.pendingSince), url: p.approval.url,
      secret_fingerprint: await this.fingerprintOf(p),
    })));
    return views.filter((v) => v !== null);
  }

  /**
   * body {url, secret_fingerprint}: what the admin reviewed (issue #35 item 5). It goes live only while it is still
   * the pending URL with that secret; REVIEW-STALE (409) when either changed since the review.
   */
  async approveApprovalUrl(userId: string, body: unknown): Promise<WebhookView> {
    const fields = fieldsOf(body);
    refuseUnknown(fields, ['url', 'secret_fingerprint'], '');
    const url = requireString(fields, 'url', 2048);
    const fingerprint = requireString(fields, 'secret_fingerprint', 64);
    return this.review(userId, async (policy, now) => {
      const approval = approveWebhook(policy.approval, url, now);
      if ((await this.fingerprintOf(policy)) !== fingerprint) throw new DomainError('REVIEW-STALE');
      return approval;
    }, { url, secret_fingerprint: fingerprint });
  }

  async rejectApprovalUrl(userId: string, body: unknown): Promise<WebhookView> {
    const note = requireString(fieldsOf(body), 'note', MAX_NOTE);
    return this.review(userId, async (policy, now) => rejectWebhook(policy.approval, note, now), { note });
  }

  private async review(
    raw: string, decide: (policy: WithdrawalPolicy, now: number) => Promise<WithdrawalPolicy['approval']>, named: Record<string, string>,
  ): Promise<WebhookView> {
    const userId = parseIdParam(raw, 'user_id');
    if (userId === null || (await this.deps.accounts.findById(userId)) === null) throw new DomainError('BIZ-USER-NOT-FOUND');
    return retryOnConflict(async () => {
      const policy = await this.deps.withdrawalPolicies.get(userId);
      if (policy === null || policy.approval.pendingUrl === null) throw new DomainError('POLICY-APPROVAL-URL-NOT-PENDING');
      const now = this.deps.clock.now();
      const next = { ...policy, approval: await decide(policy, now), updatedAt: now, version: policy.version + 1 };
      await this.audit.recordWith(() => this.deps.withdrawalPolicies.save(next), () => ({
        userId, action: 'policy.changed', actor: { kind: 'admin', id: null },
        // The URL in full (issue #35 items 5 and 8): the entry says exactly what was approved or rejected.
        detail: {
          approval_url_review: next.approval.pendingUrl === null && next.approval.reviewNote === null ? 'approved' : 'rejected',
          url: policy.approval.pendingUrl, ...named,
        },
      }));
      return webhookView(next.approval);
    });
  }

  private async secretOf(userId: UserId, secret: EncryptedEnvelope | null): Promise<string | null> {
    return secret === null ? null : new TextDecoder().decode(await this.deps.cipher.decrypt(secret, approvalSecretAad(userId)));
  }

  private async fingerprintOf(policy: WithdrawalPolicy): Promise<string | null> {
    const secret = await this.secretOf(policy.userId, policy.approval.secret);
    return secret === null ? null : approvalSecretFingerprint(secret);
  }

  /** The policy with its due changes applied (policy-changes.ts), or the empty one. */
  private async current(userId: UserId): Promise<WithdrawalPolicy> {
    return (await settledPolicy(this.deps, userId)) ?? emptyWithdrawalPolicy(userId, this.deps.clock.now());
  }

  /** undefined: unchanged; null or {}: no limits; else symbol -> limits, for assets of the supported network. */
  private parseLimits(raw: unknown): Record<string, AssetLimits> | undefined {
    if (raw === undefined) return undefined;
    if (raw === null) return {};
    const limits: Record<string, AssetLimits> = {};
    for (const [symbol, value] of Object.entries(fieldsOf(raw, 'limits'))) {
      const field = `limits.${symbol}`;
      if (symbol !== DEFAULT_LIMITS_KEY && this.deps.assets.find('TRON', symbol) === null) throw validationError(field, 'is not a known asset symbol');
      const rule = fieldsOf(value, field);
      refuseUnknown(rule, LIMIT_FIELDS, `${field}.`);
      limits[symbol] = {
        maxAmount24h: optionalAmount(rule['max_amount_24h'], `${field}.max_amount_24h`),
        maxCount1h: optionalCount(rule['max_count_1h'], `${field}.max_count_1h`),
        approvalThreshold: optionalAmount(rule['approval_threshold'], `${field}.approval_threshold`),
      };
    }
    return limits;
  }

  private parseSecret(raw: unknown): string | undefined {
    if (raw === undefined) return undefined;
    if (typeof raw !== 'string' || raw.length === 0) throw validationError('approval_secret', 'must be a non-empty string');
    if (raw.length > MAX_SECRET) throw validationError('approval_secret', `must be at most ${MAX_SECRET} characters`);
    return raw;
  }
}
