import type { Application } from '../../../core/application/index.js';
import { MEMBER_ROLES } from '../../../core/domain/team-roles.js';
import { s } from '../openapi-schemas.js';
import { CHANGE_FIELDS } from './policy.routes.js';
import { ADMIN_ROLES, DECIDER_ROLES, defineRoute, type RouteDef } from '../route.js';

const member = s.obj({
  member_id: s.int(), email: s.str(), role: s.enumOf(MEMBER_ROLES), status: s.enumOf(['invited', 'active']),
  user_id: s.nullable(s.int('the member\'s own user, once joined')), invited_at: s.str('ISO 8601 with offset'),
  joined_at: s.nullable(s.str('ISO 8601 with offset')),
  invitation_expires_at: s.nullable(s.str('extension (issue #35): when the invitation code stops working (7 days, plus POLICY_CHANGE_DELAY_H for a member with money rights); null once joined')),
});
const memberExample = {
  member_id: 3, email: 'ops@example.com', role: 'operator', status: 'invited', user_id: null,
  invited_at: '2026-01-02T01:00:00+00:00', joined_at: null, invitation_expires_at: '2026-01-10T01:00:00+00:00',
};
const memberChange = s.obj({ ...CHANGE_FIELDS, member });
const memberChangeExample = {
  change_id: '4', status: 'pending', loosens: ['members.3.invited'], changes: { member: { member_id: 3, email: 'ops@example.com', role: 'operator' } },
  requested_at: '2026-01-02T01:00:00+00:00', effective_at: '2026-01-03T01:00:00+00:00', takes_effect_by: 'delay', member: memberExample,
};
const LOOSENING_TEXT = 'A member with money rights (admin, approver, operator) and a role that may do more (e.g. viewer to operator, '
  + 'operator to approver) are loosenings (issue #35): the answer is **202** with the pending change (listed in GET /policies/changes, '
  + 'mailed to every member with money rights), which takes effect when another admin approves it or POLICY_CHANGE_DELAY_H later, '
  + 'unless an admin cancels it first (a cancelled invitation is withdrawn). Until then the invitation code answers 409 '
  + 'INVITATION-AWAITING-APPROVAL and the member keeps the role it had. A viewer invitation and a lowered role are immediate.';

/** A use case's answer: the member (201/200), or a pending change in the usual envelope (202). */
function memberOrChange(result: object): unknown {
  if (!('change_id' in result)) return result;
  return { raw: { contentType: 'application/json', status: 202, body: JSON.stringify({ code: 'OK', message: 'success', data: result }) } };
}
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
        description: `${ROLES_TEXT} The invitee is mailed a code and joins with \`POST /auth/register {email, password, invitation_code}\` `
          + 'within 7 days of it taking effect (then 422 INVITATION-INVALID). '
          + `Once an account has members, the owner, admins and approvers need two-factor on for anything but reads (403 TEAM-2FA-REQUIRED). ${LOOSENING_TEXT}`,
        body: s.obj({ email: s.str(), role: s.enumOf(MEMBER_ROLES) }), bodyExample: { email: 'ops@example.com', role: 'viewer' },
        data: member, example: { ...memberExample, role: 'viewer' }, errors: ['TEAM-ROLE-FORBIDDEN', 'MEMBER-EXISTS', 'TEAMS-UNAVAILABLE', 'POLICY-CHANGES-FULL'],
        alsoAnswers: { status: 202, description: 'a member with money rights: the pending change and the invited member', data: memberChange, example: memberChangeExample },
      },
      handle: async ({ caller, body }) => memberOrChange(await app.members.invite(caller.userId, body)),
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
        operationId: 'changeMemberRole', summary: 'Change a member\'s role (extension)', tag: 'Team', description: `${ROLES_TEXT} ${LOOSENING_TEXT}`,
        body: s.obj({ role: s.enumOf(MEMBER_ROLES) }), bodyExample: { role: 'viewer' },
        data: member, example: { ...memberExample, role: 'viewer' }, errors: ['TEAM-ROLE-FORBIDDEN', 'MEMBER-NOT-FOUND', 'TEAMS-UNAVAILABLE', 'POLICY-CHANGES-FULL'],
        alsoAnswers: {
          status: 202, description: 'a role that may do more: the pending change and the member with the role it has until then', data: memberChange,
          example: { ...memberChangeExample, loosens: ['members.3.role'], changes: { member: { member_id: 3, email: 'ops@example.com', from: 'viewer', to: 'operator' } } },
        },
      },
      handle: async ({ caller, params, body }) => memberOrChange(await app.members.changeRole(caller.userId, params.memberId ?? '', body)),
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
