import type { Application } from '../../../core/application/index.js';
import { ADMIN_ROLES, defineRoute, type RouteDef } from '../route.js';
import { itemsPage, s } from '../openapi-schemas.js';
import { pageQuery } from './wallet.routes.js';

const amountOrNull = s.nullable(s.amount());
const LIMITS = s.map(s.obj({
  max_amount_24h: { ...amountOrNull, description: 'what this asset\'s withdrawals of the last rolling 24 h may add up to, this one included; null: no limit' },
  max_count_1h: { ...s.nullable(s.int()), description: 'withdrawals of this asset in the last rolling hour, this one included; 0 freezes the asset; null: no limit' },
  approval_threshold: { ...amountOrNull, description: 'a withdrawal of MORE than this waits for the approver; null: never' },
}, ['max_amount_24h', 'max_count_1h', 'approval_threshold']));

const REVIEW = s.obj({
  status: s.enumOf(['unconfigured', 'pending', 'verified']), url: s.nullable(s.str()), pending_url: s.nullable(s.str()),
  pending_since: s.nullable(s.str()), verified_at: s.nullable(s.str()), review_note: s.nullable(s.str()),
});

const POLICY = s.obj({
  allow_list_only: s.bool(),
  approval_url: { ...s.nullable(s.str()), description: 'the URL last set: the pending one while under review, else the approved one' },
  approval: { ...REVIEW, description: 'the platform\'s review of approval_url, as for webhook_url' },
  approval_secret_set: s.bool(),
  approval_timeout_minutes: s.int(),
  limits: LIMITS,
  updated_at: s.nullable(s.str('ISO 8601 with offset; null before the first change')),
  new_destinations_held_until: {
    ...s.nullable(s.str('ISO 8601 with offset')),
    description: 'Extension (issue #35): after a password reset or a two-factor change, until then only destinations on the allow-list past their active_from may be paid (403 POLICY-DESTINATION-HELD), whatever allow_list_only says; null: no hold',
  },
});

/** A team change's fields (issue #35 item 3: a member with money rights, a role raised, 2FA off). */
const TEAM_CHANGE_MEMBER = s.obj({
  member_id: s.int(), email: s.str(), role: s.str('the invited role'), from: s.str('the role before'), to: s.str('the role raised to'),
}, ['role', 'from', 'to']);
const TEAM_CHANGE_TWO_FACTOR = s.obj({ user_id: s.int(), email: s.str(), enabled: s.enumOf([false]) });

export const CHANGE_FIELDS = {
  change_id: s.str('unique within the account'),
  status: { ...s.enumOf(['pending', 'cancelled', 'approved']), description: 'pending until it takes effect (then it leaves the list), is cancelled, or another admin approves it (it takes effect at once)' },
  loosens: {
    ...s.arr(s.str()),
    description: 'what it loosens: allow_list_only, limits.<SYMBOL>.<field>, approval_url, approval_secret; a team change (extension, '
      + 'issue #35): members.<id>.invited (a member with money rights), members.<id>.role (a role raised), users.<id>.two_factor (2FA off)',
  },
  changes: {
    ...s.obj({
      allow_list_only: s.bool(), limits: LIMITS, approval_url: s.nullable(s.str()), approval_secret_changed: s.bool(),
      member: TEAM_CHANGE_MEMBER, two_factor: TEAM_CHANGE_TWO_FACTOR,
    }, ['allow_list_only', 'limits', 'approval_url', 'approval_secret_changed', 'member', 'two_factor']),
    description: 'the fields that wait, as requested (limits: the whole map that replaces the current one); never the secret. '
      + 'A team change: `member` (an invitation: member_id, email, role; a role raised: member_id, email, from, to) or `two_factor`',
  },
  requested_at: s.str('ISO 8601 with offset'),
  effective_at: s.str('ISO 8601 with offset: it takes effect then (POLICY_CHANGE_DELAY_H after requested_at) unless cancelled first'),
  takes_effect_by: { ...s.enumOf(['delay']), description: 'delay: a solo owner\'s change, which nobody else can approve, waits out POLICY_CHANGE_DELAY_H' },
};
export const CHANGE = s.obj(CHANGE_FIELDS);

const ENTRY = s.obj({
  address: s.str(), label: s.nullable(s.str()), created_at: s.str('ISO 8601 with offset'),
  active_from: s.str('ISO 8601 with offset: from then on the address may be paid (WITHDRAWAL_ALLOWLIST_DELAY_H after it was added)'),
});

const EXAMPLE_POLICY = {
  allow_list_only: true, approval_url: 'https://approver.example.com/custody',
  approval: { status: 'verified', url: 'https://approver.example.com/custody', pending_url: null, pending_since: null, verified_at: '2026-01-01T12:00:00+00:00', review_note: null },
  approval_secret_set: true, approval_timeout_minutes: 60,
  limits: { USDT: { max_amount_24h: '100000000000', max_count_1h: 10, approval_threshold: '5000000000' } },
  updated_at: '2026-01-01T12:00:00+00:00', new_destinations_held_until: null,
};
const EXAMPLE_CHANGE = {
  change_id: '7', status: 'pending', loosens: ['allow_list_only', 'limits.USDT.max_amount_24h'],
  changes: { allow_list_only: false, limits: {} }, requested_at: '2026-01-01T12:00:00+00:00', effective_at: '2026-01-02T12:00:00+00:00',
  takes_effect_by: 'delay',
};
const EXAMPLE_ENTRY = {
  address: 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8', label: 'cold wallet', created_at: '2026-01-01T12:00:00+00:00', active_from: '2026-01-02T12:00:00+00:00',
};

const POLICY_DESCRIPTION = [
  'The account\'s withdrawal policy (issue #26). POST /transfers refuses, with nothing recorded or sent: a destination not on the',
  'allow-list while `allow_list_only` (403 POLICY-DESTINATION-NOT-ALLOWED) or not yet past its `active_from` (403',
  'POLICY-DESTINATION-COOLING-OFF); a withdrawal past `max_count_1h` or `max_amount_24h` of its asset (422',
  'POLICY-VELOCITY-COUNT-EXCEEDED, POLICY-VELOCITY-AMOUNT-EXCEEDED; exact under parallel requests); one above',
  '`approval_threshold` while no approved approval_url with a secret is set (422 POLICY-APPROVAL-UNAVAILABLE). A withdrawal',
  'above the threshold stays PENDING with an `approval` sub-state until the approver approves it (docs/integration.md,',
  '"Withdrawal policies and approvals"). With two-factor on, changes need a current code in X-TOTP-Code.',
].join('\n');

const PUT_DESCRIPTION = [
  'Changes the fields present; absent ones stay. `limits` replaces the whole map (null or {} clears it).',
  '`approval_url` follows webhook_url\'s rules (https on the default port; loopback, private and link-local addresses',
  'refused) and waits for the platform\'s review; \'\' or null removes it with its secret. `approval_secret` is write-only and',
  'required with a URL: requests are signed with it, and so must the approver\'s answers be.',
  '',
  'Extension (issue #35): a loosening waits, a tightening is immediate. A request that loosens the policy (allow_list_only',
  'turned off; a limit or threshold raised or removed, an asset dropped from `limits` included; a new approval_url, its',
  'removal, or a new approval_secret) answers **202** with the pending change: its tightenings (allow_list_only on, lower or',
  'new limits, the timeout) apply at once, the rest takes effect by itself at `effective_at`, POLICY_CHANGE_DELAY_H (default',
  '24) hours later, unless cancelled first (POST /policies/changes/{changeId}/cancel). The owner is mailed at once. A request',
  'that only tightens answers 200 with the policy as before.',
].join('\n');

/** Withdrawal policies and the allow-list (issue #26 items 1 and 2): session routes; the approval URL's review is the admin's. */
export function policyRoutes(app: Application): RouteDef[] {
  return [
    defineRoute({
      method: 'GET', path: '/api/policies/withdrawal', auth: 'session',
      docs: { operationId: 'getWithdrawalPolicy', summary: 'The withdrawal policy', tag: 'Policies', description: POLICY_DESCRIPTION, data: POLICY, example: EXAMPLE_POLICY },
      handle: ({ caller }) => app.withdrawalPolicies.getPolicy(caller.userId),
    }),
    defineRoute({
      method: 'PUT', path: '/api/policies/withdrawal', roles: ADMIN_ROLES, auth: 'session', rateLimit: 'account-write', stepUp: true,
      docs: {
        operationId: 'putWithdrawalPolicy', summary: 'Change the withdrawal policy', tag: 'Policies', description: PUT_DESCRIPTION,
        body: s.obj({
          allow_list_only: s.bool(), approval_url: s.nullable(s.str()), approval_secret: s.str('write-only'),
          approval_timeout_minutes: s.int('1-10080, default 60'), limits: s.nullable(LIMITS),
        }, ['allow_list_only', 'approval_url', 'approval_secret', 'approval_timeout_minutes', 'limits']),
        bodyExample: {
          allow_list_only: true, approval_url: 'https://approver.example.com/custody', approval_secret: 'a long random secret',
          limits: { USDT: { max_amount_24h: '100000000000', max_count_1h: 10, approval_threshold: '5000000000' } },
        },
        data: POLICY, example: EXAMPLE_POLICY, errors: ['BIZ-WEBHOOK-URL-BLOCKED', 'POLICY-CHANGES-FULL'],
        alsoAnswers: {
          status: 202, description: 'the request loosens the policy: the pending change, and the policy as it stands now (its tightenings applied)',
          data: s.obj({ ...CHANGE_FIELDS, policy: POLICY }),
          example: { ...EXAMPLE_CHANGE, policy: { ...EXAMPLE_POLICY, allow_list_only: true } },
        },
      },
      handle: async ({ caller, body }) => {
        const result = await app.withdrawalPolicies.putPolicy(caller.userId, body);
        if (!('change_id' in result)) return result;
        // A loosening (issue #35 item 3): 202 with the pending change, in the usual envelope.
        return { raw: { contentType: 'application/json', status: 202, body: JSON.stringify({ code: 'OK', message: 'success', data: result }) } };
      },
    }),
    defineRoute({
      method: 'GET', path: '/api/policies/changes', auth: 'session',
      docs: {
        operationId: 'listPolicyChanges', summary: 'Pending changes of the withdrawal policy, oldest first', tag: 'Policies',
        description: 'Extension (issue #35): the loosenings waiting to take effect. One whose effective_at has passed has taken effect (and left the list).',
        data: s.obj({ items: s.arr(CHANGE) }), example: { items: [EXAMPLE_CHANGE] },
      },
      handle: ({ caller }) => app.withdrawalPolicies.listChanges(caller.userId),
    }),
    defineRoute({
      method: 'POST', path: '/api/policies/changes/:changeId/approve', roles: ADMIN_ROLES, auth: 'session', rateLimit: 'account-write', stepUp: true,
      docs: {
        operationId: 'approvePolicyChange', summary: 'Approve a pending change (another admin\'s; a solo owner\'s change waits out the delay)', tag: 'Policies',
        description: 'Extension (issue #35). With two or more admins (the owner counts as one) an admin other than the one who '
          + 'asked approves a pending change, which takes effect at once (status `approved`); nobody approves their own (403 '
          + 'POLICY-CHANGE-OWN-REQUEST). An account with fewer admins answers 409 POLICY-CHANGE-SOLO-OWNER: its change takes effect at its effective_at.',
        data: CHANGE, example: EXAMPLE_CHANGE, errors: ['POLICY-CHANGE-NOT-FOUND', 'POLICY-CHANGE-SOLO-OWNER', 'POLICY-CHANGE-OWN-REQUEST'],
      },
      handle: ({ caller, params }) => app.withdrawalPolicies.approveChange(caller.userId, params.changeId ?? ''),
    }),
    defineRoute({
      // No step-up: cancelling only keeps the policy as tight as it is, and the owner mailed about a thief's change must
      // be able to stop it with the session alone.
      method: 'POST', path: '/api/policies/changes/:changeId/cancel', roles: ADMIN_ROLES, auth: 'session', rateLimit: 'account-write',
      docs: {
        operationId: 'cancelPolicyChange', summary: 'Cancel a pending change before it takes effect', tag: 'Policies',
        description: 'Extension (issue #35): the change is dropped and audited (policy.change_cancelled); the policy stays as it is.',
        data: CHANGE, example: { ...EXAMPLE_CHANGE, status: 'cancelled' }, errors: ['POLICY-CHANGE-NOT-FOUND'],
      },
      handle: ({ caller, params }) => app.withdrawalPolicies.cancelChange(caller.userId, params.changeId ?? ''),
    }),
    defineRoute({
      method: 'POST', path: '/api/policies/allow-list', roles: ADMIN_ROLES, auth: 'session', status: 201, rateLimit: 'account-write', stepUp: true,
      docs: {
        operationId: 'addAllowListEntry', summary: 'Add a destination to the allow-list', tag: 'Policies',
        description: 'The address becomes usable at `active_from`, WITHDRAWAL_ALLOWLIST_DELAY_H (default 24) hours from now.',
        body: s.obj({ address: s.str(), label: s.nullable(s.str('at most 120 characters')) }, ['label']), bodyExample: { address: EXAMPLE_ENTRY.address, label: 'cold wallet' },
        data: ENTRY, example: EXAMPLE_ENTRY, errors: ['POLICY-ALLOW-LIST-ENTRY-EXISTS', 'POLICY-ALLOW-LIST-FULL'],
      },
      handle: ({ caller, body }) => app.withdrawalPolicies.addAllowListEntry(caller.userId, body),
    }),
    defineRoute({
      method: 'GET', path: '/api/policies/allow-list', auth: 'session',
      docs: {
        operationId: 'listAllowList', summary: 'The allow-list, oldest first', tag: 'Policies', query: { ...pageQuery },
        data: itemsPage(ENTRY), example: { items: [EXAMPLE_ENTRY], pagination: { page: 1, per_page: 20, total: 1, pages: 1 } },
      },
      handle: ({ caller, query }) => app.withdrawalPolicies.listAllowList(caller.userId, query),
    }),
    defineRoute({
      // Step-up too (issue #26: policy changes): a removal is immediate and a re-add waits out the cooling-off, so a
      // thief removing the merchant's destinations would stop its withdrawals for a day.
      method: 'DELETE', path: '/api/policies/allow-list/:address', roles: ADMIN_ROLES, auth: 'session', rateLimit: 'account-write', stepUp: true,
      docs: {
        operationId: 'removeAllowListEntry', summary: 'Remove a destination from the allow-list (at once)', tag: 'Policies',
        data: s.obj({ address: s.str(), removed: s.bool() }), example: { address: EXAMPLE_ENTRY.address, removed: true },
        errors: ['POLICY-ALLOW-LIST-ENTRY-NOT-FOUND'],
      },
      handle: ({ caller, params }) => app.withdrawalPolicies.removeAllowListEntry(caller.userId, params.address ?? ''),
    }),
    defineRoute({
      method: 'GET', path: '/api/admin/approval-urls/pending', auth: 'admin',
      docs: {
        operationId: 'listPendingApprovalUrls', summary: 'Approval URLs waiting for review', tag: 'Admin',
        data: s.arr(s.obj({
          user_id: s.int(), pending_url: s.str(), pending_since: s.nullable(s.str()), url: s.nullable(s.str()), secret_fingerprint: s.nullable(s.str()),
        })),
        example: [{
          user_id: 7, pending_url: 'https://approver.example.com/custody', pending_since: '2026-01-01T12:00:00+00:00', url: null,
          secret_fingerprint: 'e63440bf7e369bab',
        }],
      },
      handle: () => app.withdrawalPolicies.listPendingApprovalUrls(),
    }),
    defineRoute({
      method: 'POST', path: '/api/admin/approval-urls/:userId/approve', auth: 'admin',
      docs: {
        operationId: 'approveApprovalUrl',
        summary: 'Approve the pending approval URL of a user: the body names the exact URL and secret fingerprint reviewed (409 REVIEW-STALE once either changed)',
        tag: 'Admin', body: s.obj({ url: s.str(), secret_fingerprint: s.str() }),
        bodyExample: { url: 'https://approver.example.com/custody', secret_fingerprint: 'e63440bf7e369bab' },
        data: REVIEW, example: EXAMPLE_POLICY.approval, errors: ['BIZ-USER-NOT-FOUND', 'POLICY-APPROVAL-URL-NOT-PENDING', 'REVIEW-STALE'],
      },
      handle: ({ params, body }) => app.withdrawalPolicies.approveApprovalUrl(params.userId ?? '', body),
    }),
    defineRoute({
      method: 'POST', path: '/api/admin/approval-urls/:userId/reject', auth: 'admin',
      docs: {
        operationId: 'rejectApprovalUrl', summary: 'Reject the pending approval URL with a note', tag: 'Admin',
        body: s.obj({ note: s.str() }), bodyExample: { note: 'not an https endpoint of the company' },
        data: REVIEW, example: { ...EXAMPLE_POLICY.approval, status: 'unconfigured', url: null, verified_at: null, review_note: 'not an https endpoint of the company' },
        errors: ['BIZ-USER-NOT-FOUND', 'POLICY-APPROVAL-URL-NOT-PENDING'],
      },
      handle: ({ params, body }) => app.withdrawalPolicies.rejectApprovalUrl(params.userId ?? '', body),
    }),
  ];
}
