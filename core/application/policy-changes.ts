import type { Millis, UserId } from '../domain/model/common.js';
import type { WithdrawalPolicy } from '../domain/model/withdrawal-policy.js';
import { settleDueChanges } from '../domain/policy-change.js';
import { emptyWithdrawalPolicy } from '../domain/withdrawal-policy-rules.js';
import { formatIsoTime } from '../domain/time.js';
import { AuditTrail } from './audit-trail.js';
import type { ResolvedDeps } from './deps.js';
import { retryOnConflict } from './retry-on-conflict.js';

/** The ports settling touches. */
export type SettleDeps = Pick<ResolvedDeps, 'withdrawalPolicies' | 'clock' | 'auditLog' | 'uow'>;

/**
 * The account's withdrawal policy with every pending change that is due by the Clock applied (issue #35 item 3), or
 * null when none was ever saved. Changes take effect lazily, at the first read of the policy from their effectiveAt
 * on: the policy routes and POST /transfers read it through here, so no withdrawal is judged under a policy with a
 * change due and not applied. Applying is one versioned write of the policy row with one `policy.change_applied`
 * audit entry per change, in one atomic scope: a crash before it leaves the change pending and the next read applies
 * it; a racing reader that lost the version re-reads and finds it applied. Readers that do not settle (the worker's
 * approval request) see the policy from before the change, which is the tighter one.
 */
export async function settledPolicy(deps: SettleDeps, userId: UserId): Promise<WithdrawalPolicy | null> {
  const audit = new AuditTrail(deps);
  return retryOnConflict(async () => {
    const stored = await deps.withdrawalPolicies.get(userId);
    if (stored === null) return null;
    const now = deps.clock.now();
    const { policy, applied } = settleDueChanges(stored, now);
    if (applied.length === 0) return stored;
    const next: WithdrawalPolicy = { ...policy, updatedAt: now, version: stored.version + 1 };
    await audit.recordWith(() => deps.withdrawalPolicies.save(next), () => applied.map((change) => ({
      userId, action: 'policy.change_applied' as const, actor: { kind: 'system' as const, id: null },
      detail: {
        change_id: change.changeId, loosens: change.loosens.join(','), requested_at: formatIsoTime(change.requestedAt),
        effective_at: formatIsoTime(change.effectiveAt), allow_list_only: next.allowListOnly,
        approval_url: next.approval.pendingUrl ?? next.approval.url,
      },
    })));
    return next;
  }, 5);
}

/**
 * Holds withdrawals to destinations not on the allow-list for POLICY_CHANGE_DELAY_H from `now` (issue #35 item 3):
 * called by a password reset and a two-factor change inside their own atomic scope (AuditTrail.recordWith), so the
 * change and its hold land together. An earlier, later-ending hold is kept. Returns the end of the hold. A version
 * conflict throws ConcurrencyConflict: the caller's scope rolls back and its retry runs again.
 */
export async function holdNewDestinations(
  deps: Pick<ResolvedDeps, 'withdrawalPolicies' | 'settings'>, userId: UserId, now: Millis,
): Promise<Millis> {
  const current = (await deps.withdrawalPolicies.get(userId)) ?? emptyWithdrawalPolicy(userId, now);
  const heldUntil = Math.max(current.newDestinationsHeldUntil ?? 0, now + deps.settings.policyChangeDelayMs);
  await deps.withdrawalPolicies.save({ ...current, newDestinationsHeldUntil: heldUntil, updatedAt: now, version: current.version + 1 });
  return heldUntil;
}
