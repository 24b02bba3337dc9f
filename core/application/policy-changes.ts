import type { Millis, UserId } from '../domain/model/common.js';
import type { AuditEvent } from '../domain/model/audit.js';
import type { PendingPolicyChange, WithdrawalPolicy } from '../domain/model/withdrawal-policy.js';
import { DomainError } from '../domain/errors.js';
import { MAX_PENDING_POLICY_CHANGES, pendingChangesOf, settleDueChanges } from '../domain/policy-change.js';
import { hasMoneyRights, teamChangeLoosens, type TeamChange } from '../domain/team-changes.js';
import { actingMember } from './acting-member.js';
import { emptyWithdrawalPolicy } from '../domain/withdrawal-policy-rules.js';
import { formatIsoTime } from '../domain/time.js';
import { AuditTrail } from './audit-trail.js';
import type { ResolvedDeps } from './deps.js';
import { retryOnConflict } from './retry-on-conflict.js';

/**
 * The ports settling touches. With `members`, `accounts` and `sessions` a due team change (issue #35 item 3) is
 * carried out in the same write; without them it stays pending for a reader that has them.
 */
export type SettleDeps = Pick<ResolvedDeps, 'withdrawalPolicies' | 'clock' | 'auditLog' | 'uow'>
  & Partial<Pick<ResolvedDeps, 'members' | 'accounts' | 'sessions' | 'settings'>>;

/** The ports that carry a team change out. */
export type TeamEffectDeps = Pick<ResolvedDeps, 'accounts' | 'sessions' | 'settings' | 'clock'> & Partial<Pick<ResolvedDeps, 'members'>>;

function teamDepsOf(deps: SettleDeps): TeamEffectDeps | null {
  const { members, accounts, sessions, settings } = deps;
  // A solo owner's 2FA off (issue #35 item 3) needs no member store; a member's change finds no member without one.
  if (accounts === undefined || sessions === undefined || settings === undefined) return null;
  return { ...(members === undefined ? {} : { members }), accounts, sessions, settings, clock: deps.clock };
}

/**
 * Carries out a team change taking effect (issue #35 item 3), inside the caller's atomic scope, and answers its audit
 * entries and the policy to save (a 2FA turned off holds new destinations, as an immediate disable does):
 * - a member invited: nothing to write, the invitation code works from now on (MembersUseCases.accept);
 * - a role raised: set, only while the member is still there with the role it was raised from (a removal or another
 *   change since lapses it);
 * - 2FA off: the user's second factor is cleared and every session of theirs ends; new destinations are held.
 */
export async function carryOutTeamChange(
  deps: TeamEffectDeps, accountId: UserId, change: PendingPolicyChange, policy: WithdrawalPolicy, now: Millis,
): Promise<{ policy: WithdrawalPolicy; events: AuditEvent[] }> {
  const team = change.team;
  if (team === undefined) return { policy, events: [] };
  if (team.kind === 'role_raised') {
    const member = (await deps.members?.listByAccount(accountId))?.find((m) => m.id === team.memberId);
    if (member === undefined || member.role !== team.from || !(await deps.members!.setRole(accountId, team.memberId, team.to))) {
      return { policy, events: [] };
    }
    return { policy, events: [{
      userId: accountId, action: 'member.role_changed', actor: { kind: 'system', id: null },
      detail: { member_id: team.memberId, email: team.email, from: team.from, to: team.to, change_id: change.changeId },
    }] };
  }
  if (team.kind === 'two_factor_off') {
    const account = await deps.accounts.findById(team.userId);
    if (account === null || account.twoFactor?.enabledAt == null) return { policy, events: [] };
    await deps.accounts.update({ ...account, twoFactor: null, version: account.version + 1 });
    await deps.sessions.revokeAllOfUser(team.userId, now);
    const heldUntil = Math.max(policy.newDestinationsHeldUntil ?? 0, now + deps.settings.policyChangeDelayMs);
    return { policy: { ...policy, newDestinationsHeldUntil: heldUntil }, events: [{
      userId: accountId, action: 'auth.2fa_disabled', actor: { kind: 'system', id: null },
      detail: { user_id: team.userId, email: team.email, change_id: change.changeId },
    }] };
  }
  return { policy, events: [] };
}

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
    const team = teamDepsOf(deps);
    const { policy, applied } = settleDueChanges(stored, now, team !== null);
    if (applied.length === 0) return stored;
    let next: WithdrawalPolicy = { ...policy, updatedAt: now, version: stored.version + 1 };
    const teamEvents: AuditEvent[] = [];
    await audit.recordWith(async () => {
      for (const change of applied) {
        if (team === null || change.team === undefined) continue;
        const done = await carryOutTeamChange(team, userId, change, next, now);
        next = done.policy;
        teamEvents.push(...done.events);
      }
      await deps.withdrawalPolicies.save(next);
    }, () => [...applied.map((change) => ({
      userId, action: 'policy.change_applied' as const, actor: { kind: 'system' as const, id: null },
      detail: {
        change_id: change.changeId, loosens: change.loosens.join(','), requested_at: formatIsoTime(change.requestedAt),
        effective_at: formatIsoTime(change.effectiveAt), allow_list_only: next.allowListOnly,
        approval_url: next.approval.pendingUrl ?? next.approval.url,
      },
    })), ...teamEvents]);
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

/** The ports a team change's request touches. */
export type TeamChangeRequestDeps = SettleDeps & Pick<ResolvedDeps, 'settings' | 'accounts' | 'mailer'>;

/**
 * Records a team change that loosens (issue #35 item 3) as a pending change of the account's policy, exactly as a
 * policy loosening: POLICY_CHANGE_DELAY_H from now, at most MAX_PENDING_POLICY_CHANGES, one versioned write with its
 * `policy.change_requested` entry and `alongside` (the caller's own writes, e.g. the invitation) in one atomic scope;
 * then every member with money rights is mailed. `teamOf` builds the change from the id it gets.
 */
export async function requestTeamChange(
  deps: TeamChangeRequestDeps, accountId: UserId, teamOf: () => Promise<TeamChange> | TeamChange,
  alongside: (change: PendingPolicyChange) => Promise<readonly AuditEvent[]> = async () => [],
): Promise<PendingPolicyChange> {
  const change = await retryOnConflict(() => addTeamChange(deps, accountId, teamOf, alongside), 5);
  await mailPendingChange(deps, accountId, change);
  return change;
}

/**
 * The write of requestTeamChange, once, with no retry and no mail: for a caller that records the change inside its own
 * atomic scope (a 2FA disable, with the code it uses) and mails it (mailPendingChange) once that scope is committed.
 * A version conflict throws ConcurrencyConflict for the caller's retry.
 */
export async function addTeamChange(
  deps: TeamChangeRequestDeps, accountId: UserId, teamOf: () => Promise<TeamChange> | TeamChange,
  alongside: (change: PendingPolicyChange) => Promise<readonly AuditEvent[]> = async () => [],
): Promise<PendingPolicyChange> {
  const audit = new AuditTrail(deps);
  const current = (await settledPolicy(deps, accountId)) ?? emptyWithdrawalPolicy(accountId, deps.clock.now());
  if (pendingChangesOf(current).length >= MAX_PENDING_POLICY_CHANGES) throw new DomainError('POLICY-CHANGES-FULL');
  const now = deps.clock.now();
  const team = await teamOf();
  const requested: PendingPolicyChange = {
    changeId: String(current.version + 1), requestedAt: now, effectiveAt: now + deps.settings.policyChangeDelayMs,
    patch: {}, loosens: [teamChangeLoosens(team)], requestedBy: actingMember()?.userId ?? accountId, team,
  };
  const next: WithdrawalPolicy = { ...current, pendingChanges: [...pendingChangesOf(current), requested], updatedAt: now, version: current.version + 1 };
  let extra: readonly AuditEvent[] = [];
  await audit.recordWith(async () => {
    extra = await alongside(requested);
    await deps.withdrawalPolicies.save(next);
  }, () => [...extra, {
    userId: accountId, action: 'policy.change_requested' as const, actor: { kind: 'user' as const, id: null },
    detail: {
      change_id: requested.changeId, loosens: requested.loosens.join(','), requested_at: formatIsoTime(now),
      effective_at: formatIsoTime(requested.effectiveAt), ...teamDetail(team),
    },
  }]);
  return requested;
}

/** A team change's fields in an audit entry. */
export function teamDetail(team: TeamChange): Record<string, string | number> {
  switch (team.kind) {
    case 'member_invited': return { team_change: team.kind, member_id: team.memberId, email: team.email, role: team.role };
    case 'role_raised': return { team_change: team.kind, member_id: team.memberId, email: team.email, from: team.from, to: team.to };
    case 'two_factor_off': return { team_change: team.kind, user_id: team.userId, email: team.email, role: team.role };
  }
}

/** Every member with money or control rights is mailed at once: the owner and the joined admins, approvers and operators. */
export async function mailPendingChange(
  deps: Pick<ResolvedDeps, 'accounts' | 'mailer'> & Partial<Pick<ResolvedDeps, 'members'>>, accountId: UserId, change: PendingPolicyChange,
): Promise<void> {
  const account = await deps.accounts.findById(accountId);
  if (account === null) return;
  const members = (await deps.members?.listByAccount(accountId)) ?? [];
  const emails = [account.email, ...members.filter((m) => m.userId !== null && hasMoneyRights(m.role)).map((m) => m.email)];
  for (const email of emails) {
    await deps.mailer.sendPolicyChangeRequested(email, {
      changeId: change.changeId, loosens: change.loosens, effectiveAt: formatIsoTime(change.effectiveAt),
    });
  }
}
