import { applyWebhookUrl, reviewAgain } from './webhook-review.js';
import type { Millis } from './model/common.js';
import type { AllowListEntry, AssetLimits, PendingPolicyChange, PolicyPatch, WithdrawalPolicy } from './model/withdrawal-policy.js';
import { DEFAULT_LIMITS_KEY } from './withdrawal-policy-rules.js';

export type { PendingPolicyChange, PolicyPatch } from './model/withdrawal-policy.js';

/** Pending changes one account may hold at once (each is mailed; cancel one to ask for another). */
export const MAX_PENDING_POLICY_CHANGES = 10;

const NO_LIMITS: AssetLimits = { maxAmount24h: null, maxCount1h: null, approvalThreshold: null };

/** The tighter of two optional bounds (null: none, so the other one binds). */
function tighter<T extends bigint | number>(a: T | null, b: T | null): T | null {
  if (a === null) return b;
  if (b === null) return a;
  return a < b ? a : b;
}

/** Whether `next` lets more through than `current` (null: unbounded). */
function raised<T extends bigint | number>(current: T | null, next: T | null): boolean {
  if (current === null) return false;
  return next === null || next > current;
}

const LIMIT_FIELDS: readonly [keyof AssetLimits, string][] = [
  ['maxAmount24h', 'max_amount_24h'], ['maxCount1h', 'max_count_1h'], ['approvalThreshold', 'approval_threshold'],
];

/** What binds an asset under a limits map: its own entry, else the default entry (`*`), else nothing (limitsOf's rule). */
function limitsFor(limits: Readonly<Record<string, AssetLimits>>, symbol: string): AssetLimits {
  if (Object.hasOwn(limits, symbol)) return limits[symbol]!;
  return Object.hasOwn(limits, DEFAULT_LIMITS_KEY) ? limits[DEFAULT_LIMITS_KEY]! : NO_LIMITS;
}

/** Every key that can bind differently under the two maps: their own keys and the default entry (any other asset). */
function keysOf(a: Readonly<Record<string, AssetLimits>>, b: Readonly<Record<string, AssetLimits>>): string[] {
  return [...new Set([...Object.keys(a), ...Object.keys(b), DEFAULT_LIMITS_KEY])].sort();
}

/**
 * What applying `patch` to `current` loosens: anything that lets money leave more easily. Empty: the patch only
 * tightens (or changes nothing that matters to a withdrawal) and may take effect at once.
 * - `allow_list_only` turned off;
 * - a limit or threshold raised or removed, for an asset or the default entry (`*`): an asset dropped from the map
 *   falls under the default entry, or none;
 * - a new approver: another approval URL (not the live or pending one), its removal, or a new secret. Removing the
 *   approver is counted as a loosening too: approvals must not be taken away without the delay, whatever the rules
 *   that decide who approves become.
 * The approval timeout is neither: it never lets a withdrawal through that its approver did not approve.
 */
export function looseningsOf(current: WithdrawalPolicy, patch: PolicyPatch): string[] {
  const loosens: string[] = [];
  if (patch.allowListOnly === false && current.allowListOnly) loosens.push('allow_list_only');
  if (patch.limits !== undefined) {
    for (const symbol of keysOf(current.limits, patch.limits)) {
      const before = limitsFor(current.limits, symbol);
      const after = limitsFor(patch.limits, symbol);
      for (const [key, name] of LIMIT_FIELDS) {
        if (raised(before[key] as bigint | number | null, after[key] as bigint | number | null)) loosens.push(`limits.${symbol}.${name}`);
      }
    }
  }
  if (patch.approvalUrl !== undefined) {
    const url = patch.approvalUrl;
    const approval = current.approval;
    const changes = url === '' ? approval.url !== null || approval.pendingUrl !== null : url !== approval.url && url !== approval.pendingUrl;
    if (changes) loosens.push('approval_url');
  }
  if (patch.approvalSecret !== undefined) loosens.push('approval_secret');
  return loosens;
}

/**
 * The part of `patch` that takes effect at once: every tightening in it. `allow_list_only: true`, the timeout, and
 * for limits the field-by-field tighter of the current and the requested values (so a request lowering one limit and
 * removing another lowers the first now and leaves the second as it is until the pending change takes effect). The
 * approver is never changed at once.
 */
export function immediatePart(current: WithdrawalPolicy, patch: PolicyPatch): PolicyPatch {
  const part: { -readonly [K in keyof PolicyPatch]: PolicyPatch[K] } = {};
  if (patch.allowListOnly !== undefined && (patch.allowListOnly || !current.allowListOnly)) part.allowListOnly = patch.allowListOnly;
  if (patch.approvalTimeoutMinutes !== undefined) part.approvalTimeoutMinutes = patch.approvalTimeoutMinutes;
  if (patch.limits !== undefined) {
    const limits: Record<string, AssetLimits> = {};
    for (const symbol of keysOf(current.limits, patch.limits)) {
      const before = limitsFor(current.limits, symbol);
      const after = limitsFor(patch.limits, symbol);
      const merged: AssetLimits = {
        maxAmount24h: tighter(before.maxAmount24h, after.maxAmount24h),
        maxCount1h: tighter(before.maxCount1h, after.maxCount1h),
        approvalThreshold: tighter(before.approvalThreshold, after.approvalThreshold),
      };
      // An explicit entry stays explicit (it overrides the default); the default entry only when it limits something.
      const explicit = Object.hasOwn(current.limits, symbol) || Object.hasOwn(patch.limits, symbol);
      const limiting = merged.maxAmount24h !== null || merged.maxCount1h !== null || merged.approvalThreshold !== null;
      if (symbol === DEFAULT_LIMITS_KEY ? limiting : explicit) limits[symbol] = merged;
    }
    part.limits = limits;
  }
  if (patch.approvalUrl !== undefined && !looseningsOf(current, { approvalUrl: patch.approvalUrl }).includes('approval_url')) {
    part.approvalUrl = patch.approvalUrl;
  }
  return part;
}

/**
 * The part of `patch` that waits: the fields with a loosening (looseningsOf). `limits` waits whole, as requested, and
 * replaces the map when the change takes effect; a URL that does not loosen and the timeout were applied at once.
 */
export function pendingPart(current: WithdrawalPolicy, patch: PolicyPatch): PolicyPatch {
  const loosens = looseningsOf(current, patch);
  const part: { -readonly [K in keyof PolicyPatch]: PolicyPatch[K] } = {};
  if (loosens.includes('allow_list_only')) part.allowListOnly = false;
  if (loosens.some((l) => l.startsWith('limits.'))) part.limits = patch.limits!;
  if (loosens.includes('approval_url')) part.approvalUrl = patch.approvalUrl!;
  if (patch.approvalSecret !== undefined) part.approvalSecret = patch.approvalSecret;
  return part;
}

/**
 * The policy with `patch` applied at `now` (version and updatedAt are the caller's). A URL goes to the platform's
 * review as before (applyWebhookUrl); '' removes it with its secret; a new secret sends the URL back to review.
 */
export function applyPolicyPatch(policy: WithdrawalPolicy, patch: PolicyPatch, now: Millis): WithdrawalPolicy {
  let approval = patch.approvalUrl === undefined ? policy.approval : applyWebhookUrl(policy.approval, patch.approvalUrl, now);
  if (patch.approvalUrl === '') approval = { ...approval, secret: null };
  if (patch.approvalSecret !== undefined) approval = reviewAgain({ ...approval, secret: patch.approvalSecret }, now);
  if (patch.approvalTimeoutMinutes !== undefined) approval = { ...approval, timeoutMinutes: patch.approvalTimeoutMinutes };
  return {
    ...policy, approval,
    ...(patch.allowListOnly === undefined ? {} : { allowListOnly: patch.allowListOnly }),
    ...(patch.limits === undefined ? {} : { limits: patch.limits }),
  };
}

/** The account's pending changes (a policy stored before issue #35 has none). */
export function pendingChangesOf(policy: WithdrawalPolicy): readonly PendingPolicyChange[] {
  return policy.pendingChanges ?? [];
}

/**
 * The policy with every pending change due at `now` applied, oldest first, and the changes applied; the policy itself
 * when none is due (same object). Version and updatedAt are the caller's. A team change (issue #35 item 3) leaves the
 * policy as it is and is settled only when `withTeam` says the caller carries its effect out in the same write (a
 * reader without the team's stores leaves it pending: it holds nothing back from the policy).
 */
export function settleDueChanges(
  policy: WithdrawalPolicy, now: Millis, withTeam = false,
): { policy: WithdrawalPolicy; applied: readonly PendingPolicyChange[] } {
  const pending = pendingChangesOf(policy);
  const isDue = (c: PendingPolicyChange): boolean => c.effectiveAt <= now && (withTeam || c.team === undefined);
  const due = pending.filter(isDue).sort((a, b) => a.effectiveAt - b.effectiveAt || a.requestedAt - b.requestedAt);
  if (due.length === 0) return { policy, applied: [] };
  let next: WithdrawalPolicy = { ...policy, pendingChanges: pending.filter((c) => !isDue(c)) };
  for (const change of due) next = applyPolicyPatch(next, change.patch, Math.max(change.effectiveAt, 0));
  return { policy: next, applied: due };
}

/**
 * Withdrawals to destinations not on the allow-list are held for POLICY_CHANGE_DELAY_H after a password reset or a
 * two-factor change (issue #35 item 3), as exchanges hold them after a security change: until
 * `newDestinationsHeldUntil`, only an allow-list entry past its active_from may be paid, even with allow_list_only off.
 */
export function heldDestinationRefusal(
  policy: Pick<WithdrawalPolicy, 'newDestinationsHeldUntil'> | null, entry: Pick<AllowListEntry, 'activeFrom'> | null, now: Millis,
): 'POLICY-DESTINATION-HELD' | null {
  const until = policy?.newDestinationsHeldUntil ?? null;
  if (until === null || now >= until) return null;
  return entry !== null && entry.activeFrom <= now ? null : 'POLICY-DESTINATION-HELD';
}
