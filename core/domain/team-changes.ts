/**
 * Team changes that loosen (issue #35 item 3): a new member with money rights, a role raised, and turning a money
 * member's 2FA off wait like a policy loosening; the rest is immediate. Pure rules, property-tested.
 */
import type { Millis, UserId } from './model/common.js';
import type { MemberRole, TeamRole } from './team-roles.js';

/**
 * What each role may do that touches money or its controls, as the route table grants it (hosts/api/route.ts):
 * `pay` (POST /transfers, cancelling its own), `approve` (approve or deny another's withdrawal), `control` (policies,
 * members below admin, API tokens, webhook settings, cancelling any withdrawal). A viewer reads only.
 */
export const ROLE_RIGHTS: Readonly<Record<TeamRole, readonly MoneyRight[]>> = {
  owner: ['pay', 'approve', 'control'],
  admin: ['approve', 'control'],
  approver: ['approve'],
  operator: ['pay'],
  viewer: [],
};
export type MoneyRight = 'pay' | 'approve' | 'control';

/** Roles with money rights: every member role but the viewer's. */
export function hasMoneyRights(role: TeamRole): boolean {
  return ROLE_RIGHTS[role].length > 0;
}

/** Whether inviting a member as `role` is a loosening: a member with money rights. A viewer is immediate. */
export function inviteLoosens(role: MemberRole): boolean {
  return hasMoneyRights(role);
}

/**
 * Whether a role change from `from` to `to` is a loosening: the new role may do something the old one could not
 * (viewer to operator, operator to approver, approver to operator, admin to operator ...). Anything else is a
 * lowering and immediate (to viewer, admin to approver, the same role).
 */
export function roleChangeLoosens(from: MemberRole, to: MemberRole): boolean {
  const before = new Set(ROLE_RIGHTS[from]);
  return ROLE_RIGHTS[to].some((right) => !before.has(right));
}

/**
 * Whether turning 2FA off is a loosening for a user of role `role` (null: a solo account's owner): the owner's, solo or
 * in a team, and a team member's with money rights (issue #35 item 3). Their code is what guards their money actions
 * (and for the owner, admins and approvers, what lets them act at all); a thief holding one session, the password and
 * one code must not be able to swap in their own authenticator at once. A viewer's is immediate.
 */
export function twoFactorOffLoosens(role: TeamRole | null): boolean {
  return role === null || hasMoneyRights(role);
}

/** How long an invitation code may be used once it may be used at all. */
export const INVITATION_TTL_MS = 7 * 24 * 3_600_000;

/**
 * When an invitation code stops working: INVITATION_TTL_MS after it may first be used, i.e. after the invitation,
 * plus the policy delay for a member with money rights (whose invitation waits for it unless approved sooner).
 */
export function invitationExpiresAt(invitedAt: Millis, role: MemberRole, policyChangeDelayMs: number): Millis {
  return invitedAt + INVITATION_TTL_MS + (inviteLoosens(role) ? policyChangeDelayMs : 0);
}

/** A team change waiting like a policy loosening, kept on the account's policy row beside the policy's own changes. */
export type TeamChange =
  | { readonly kind: 'member_invited'; readonly memberId: number; readonly email: string; readonly role: MemberRole }
  | { readonly kind: 'role_raised'; readonly memberId: number; readonly email: string; readonly from: MemberRole; readonly to: MemberRole }
  | { readonly kind: 'two_factor_off'; readonly userId: UserId; readonly email: string; readonly role: TeamRole };

/** What a team change loosens, as listed in `loosens`. */
export function teamChangeLoosens(change: TeamChange): string {
  switch (change.kind) {
    case 'member_invited': return `members.${change.memberId}.invited`;
    case 'role_raised': return `members.${change.memberId}.role`;
    case 'two_factor_off': return `users.${change.userId}.two_factor`;
  }
}
