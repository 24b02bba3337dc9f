import { DomainError } from '../../core/domain/errors.js';
import { TWO_FACTOR_ROLES } from '../../core/domain/team-roles.js';
import type { SessionCaller } from './auth.js';
import { rolesOf, type RouteDef } from './route.js';

/**
 * The team gate of a session route (issue #35 item 1), for a session of an account with members (a solo account's
 * session has no `member` and is never checked): the member's role must be one of the route's (rolesOf; 403
 * TEAM-ROLE-FORBIDDEN), and an owner, admin or approver without two-factor on may only read and manage their own
 * login (the /api/auth routes, where 2FA is turned on) until they enrol (403 TEAM-2FA-REQUIRED).
 */
export function enforceTeamAccess(route: Pick<RouteDef, 'method' | 'path' | 'roles'>, member: NonNullable<SessionCaller['member']>): void {
  if (!rolesOf(route).includes(member.role)) {
    throw new DomainError('TEAM-ROLE-FORBIDDEN', { message: `the ${member.role} role may not call ${route.method} ${route.path.replace(/^\/api/, '')}` });
  }
  if (route.method !== 'GET' && TWO_FACTOR_ROLES.has(member.role) && !member.twoFactorOn && !route.path.startsWith('/api/auth/')) {
    throw new DomainError('TEAM-2FA-REQUIRED');
  }
}
