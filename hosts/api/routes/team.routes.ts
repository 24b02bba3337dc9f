import type { Application } from '../../../core/application/index.js';
import { MEMBER_ROLES } from '../../../core/domain/team-roles.js';
import { s } from '../openapi-schemas.js';
import { ADMIN_ROLES, DECIDER_ROLES, defineRoute, type RouteDef } from '../route.js';

const member = s.obj({
  member_id: s.int(), email: s.str(), role: s.enumOf(MEMBER_ROLES), status: s.enumOf(['invited', 'active']),
  user_id: s.nullable(s.int('the member\'s own user, once joined')), invited_at: s.str('ISO 8601 with offset'),
  joined_at: s.nullable(s.str('ISO 8601 with offset')),
});
const memberExample = {
  member_id: 3, email: 'ops@example.com', role: 'operator', status: 'invited', user_id: null,
  invited_at: '2026-01-02T01:00:00+00:00', joined_at: null,
};
const ROLES_TEXT = 'Roles: `admin` (policies, members, tokens, webhooks), `approver` (approves or denies withdrawals), `operator` '
  + '(payments, collections, refunds within the policy), `viewer` (reads only). The owner invites any role; an admin only '
  + 'the roles below admin.';

/**
 * Teams and approvals by people (issue #35 items 1 and 2, extensions): the interface's fixed names. Session token.
 */
export function teamRoutes(app: Application): RouteDef[] {
  return [
    defineRoute({
      method: 'POST', path: '/api/members', auth: 'session', status: 201, rateLimit: 'account-write', roles: ADMIN_ROLES,
      docs: {
        operationId: 'inviteMember', summary: 'Invite a member by e-mail (extension)', tag: 'Team',
        description: `${ROLES_TEXT} The invitee is mailed a code and joins with \`POST /auth/register {email, password, invitation_code}\`. `
          + 'Once an account has members, the owner, admins and approvers need two-factor on for anything but reads (403 TEAM-2FA-REQUIRED).',
        body: s.obj({ email: s.str(), role: s.enumOf(MEMBER_ROLES) }), bodyExample: { email: 'ops@example.com', role: 'operator' },
        data: member, example: memberExample, errors: ['TEAM-ROLE-FORBIDDEN', 'MEMBER-EXISTS', 'TEAMS-UNAVAILABLE'],
      },
      handle: ({ caller, body }) => app.members.invite(caller.userId, body),
    }),
    defineRoute({
      method: 'GET', path: '/api/members', auth: 'session',
      docs: {
        operationId: 'listMembers', summary: 'The account\'s members and pending invitations (extension)', tag: 'Team',
        data: s.obj({ items: s.arr(member) }), example: { items: [memberExample] }, errors: ['TEAMS-UNAVAILABLE'],
      },
      handle: ({ caller }) => app.members.list(caller.userId),
    }),
    defineRoute({
      method: 'PATCH', path: '/api/members/:memberId', auth: 'session', rateLimit: 'account-write', roles: ADMIN_ROLES,
      docs: {
        operationId: 'changeMemberRole', summary: 'Change a member\'s role (extension)', tag: 'Team', description: ROLES_TEXT,
        body: s.obj({ role: s.enumOf(MEMBER_ROLES) }), bodyExample: { role: 'approver' },
        data: member, example: { ...memberExample, role: 'approver' }, errors: ['TEAM-ROLE-FORBIDDEN', 'MEMBER-NOT-FOUND', 'TEAMS-UNAVAILABLE'],
      },
      handle: ({ caller, params, body }) => app.members.changeRole(caller.userId, params.memberId ?? '', body),
    }),
    defineRoute({
      method: 'DELETE', path: '/api/members/:memberId', auth: 'session', rateLimit: 'account-write', roles: ADMIN_ROLES,
      docs: {
        operationId: 'removeMember', summary: 'Remove a member or withdraw an invitation; the member\'s sessions end (extension)', tag: 'Team',
        data: member, example: memberExample, errors: ['TEAM-ROLE-FORBIDDEN', 'MEMBER-NOT-FOUND', 'TEAMS-UNAVAILABLE'],
      },
      handle: ({ caller, params }) => app.members.remove(caller.userId, params.memberId ?? ''),
    }),
    defineRoute({
      method: 'GET', path: '/api/approvals', auth: 'session',
      docs: {
        operationId: 'listAwaitingApprovals', summary: 'Withdrawals awaiting an approval (extension)', tag: 'Commands',
        description: 'Issue #35: the account\'s PENDING withdrawals whose approval is `awaiting`, oldest first (at most 100), for '
          + 'the members who decide them with a session (GET /commands takes a Developer API Token).',
        data: s.obj({ items: s.arr(s.ref('Command')) }),
      },
      handle: ({ caller }) => app.commandApprovals.listAwaiting(caller.userId),
    }),
    defineRoute({
      method: 'POST', path: '/api/commands/:commandNo/approve', auth: 'session', rateLimit: 'account-write', stepUp: true, roles: DECIDER_ROLES,
      docs: {
        operationId: 'approveWithdrawal', summary: 'Approve a withdrawal awaiting its approval (extension)', tag: 'Commands',
        description: 'Issue #35: the owner, an admin or an approver, never the member who requested it (403 APPROVAL-OWN-WITHDRAWAL), '
          + 'approves a PENDING withdrawal whose approval is `awaiting`; the worker then sends it. Needs a step-up code with 2FA on. '
          + 'The `approval_url` machine approver keeps working beside it; the first decision wins (409 APPROVAL-NOT-AWAITING after).',
        data: s.ref('Command'), errors: ['BIZ-COMMAND-NOT-FOUND', 'APPROVAL-NOT-AWAITING', 'APPROVAL-OWN-WITHDRAWAL', 'TEAM-ROLE-FORBIDDEN'],
      },
      handle: ({ caller, params }) => app.commandApprovals.approve(caller.userId, params.commandNo ?? ''),
    }),
    defineRoute({
      method: 'POST', path: '/api/commands/:commandNo/deny', auth: 'session', rateLimit: 'account-write', stepUp: true, roles: DECIDER_ROLES,
      docs: {
        operationId: 'denyWithdrawal', summary: 'Deny a withdrawal awaiting its approval (extension)', tag: 'Commands',
        description: 'As approve; the withdrawal ends REJECTED with error_code APPROVAL-DENIED and `withdrawal.failed`.',
        data: s.ref('Command'), errors: ['BIZ-COMMAND-NOT-FOUND', 'APPROVAL-NOT-AWAITING', 'APPROVAL-OWN-WITHDRAWAL', 'TEAM-ROLE-FORBIDDEN'],
      },
      handle: ({ caller, params }) => app.commandApprovals.deny(caller.userId, params.commandNo ?? ''),
    }),
  ];
}
