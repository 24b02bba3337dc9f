/**
 * Teams (issue #35 item 1): an account's members and what each role may do. The owner is the account's own user; the
 * others are invited by e-mail and act on the account's resources with their own login, password and 2FA.
 */
export const TEAM_ROLES = ['owner', 'admin', 'approver', 'operator', 'viewer'] as const;
export type TeamRole = (typeof TEAM_ROLES)[number];

/** The roles a member can be invited to or given: every role but the owner's, which is the account's own user. */
export const MEMBER_ROLES = ['admin', 'approver', 'operator', 'viewer'] as const;
export type MemberRole = (typeof MEMBER_ROLES)[number];

/** Roles that decide or control (policies, members, approvals): once the account has members they need 2FA on. */
export const TWO_FACTOR_ROLES: ReadonlySet<TeamRole> = new Set(['owner', 'admin', 'approver']);

/** Roles that may approve or deny another member's withdrawal. */
export const APPROVER_ROLES: ReadonlySet<TeamRole> = new Set(['owner', 'admin', 'approver']);

export function isMemberRole(value: unknown): value is MemberRole {
  return typeof value === 'string' && (MEMBER_ROLES as readonly string[]).includes(value);
}

/**
 * Whether `actor` may invite a member as, give a member, or remove a member holding `role`: the owner any member
 * role; an admin only the roles below admin (so an admin never makes or unmakes another admin); nobody else.
 */
export function mayManage(actor: TeamRole, role: MemberRole): boolean {
  if (actor === 'owner') return true;
  return actor === 'admin' && role !== 'admin';
}
