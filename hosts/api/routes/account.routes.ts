import type { Application } from '../../../core/application/index.js';
import { OPT_IN_EVENT_TYPES, SPEC_EVENT_TYPES } from '../../../core/domain/model/webhook.js';
import { ADMIN_ROLES, ANY_ROLE, defineRoute, type RouteDef } from '../route.js';
import { itemsPage, s } from '../openapi-schemas.js';
import { EX } from '../openapi-examples.js';
import { pageQuery } from './wallet.routes.js';
import type { Throttle } from '../rate-limit.js';

/** The login's throttles, shared by the console's sign-in (issue #38), which is the same login. */
export const LOGIN_THROTTLE: readonly Throttle[] = [
  { bucket: 'login-ip', by: 'ip' }, { bucket: 'login-ip-hour', by: 'ip' },
  { bucket: 'login-email', by: 'email' }, { bucket: 'login-email-hour', by: 'email' }, { bucket: 'login-email-day', by: 'email' },
];

const credentialFields = { email: s.str(), password: s.str() };
const credentials = s.obj(credentialFields);

/**
 * Above this `max_fee_sun` an auto_collect rule counts as one without a fee cap (issue #35 item 4): more than a USDT
 * sweep costs even when its energy is burnt (about 7.5 TRX, docs/operations.md "Energy: choose one").
 */
export const UNCAPPED_AUTO_COLLECT_FEE_SUN = 10_000_000n;

/** True when an auto_collect body sets a rule whose max_fee_sun is not a fee cap (above UNCAPPED_AUTO_COLLECT_FEE_SUN). */
function uncappedAutoCollect(raw: unknown): boolean {
  if (typeof raw !== 'object' || raw === null) return false;
  return Object.values(raw).some((rule: unknown) => {
    const fee = typeof rule === 'object' && rule !== null ? (rule as Record<string, unknown>)['max_fee_sun'] : undefined;
    return typeof fee === 'string' && /^[0-9]{1,78}$/.test(fee) && BigInt(fee) > UNCAPPED_AUTO_COLLECT_FEE_SUN;
  });
}

/**
 * A configuration that could weaken the service needs a step-up: the webhook URL or secret (issue #26 item 3; any
 * value, the same included), and (issue #35 item 4) the payer-facing name, the event types (silencing events), and
 * auto-collect without a fee cap.
 */
function weakensService(body: Readonly<Record<string, unknown>>): boolean {
  const config = body['config'];
  if (typeof config !== 'object' || config === null) return false;
  return 'webhook_url' in config || 'webhook_secret' in config || 'display_name' in config || 'event_types' in config
    || uncappedAutoCollect((config as Record<string, unknown>)['auto_collect']);
}

/** DESIGN.md "Accounts and session tokens" and the session-token endpoints of spec §4. */
export function accountRoutes(app: Application): RouteDef[] {
  return [
    defineRoute({
      method: 'POST', path: '/api/auth/register', auth: 'none', status: 201,
      // Per e-mail as asked from one client network: a squatter elsewhere cannot spend the owner's quota (issue #26 item 6).
      throttle: [{ bucket: 'register-ip', by: 'ip' }, { bucket: 'register-email', by: 'email-network' }],
      docs: {
        operationId: 'register',
        bodyExample: { email: 'dev@merchant.example', password: 'correct horse battery' },
        example: { user_id: 12, email: 'dev@merchant.example' },
        summary: 'Register; a 6-digit code is e-mailed', tag: 'Account', data: s.obj({ user_id: s.int(), email: s.str() }),
        body: s.obj({ ...credentialFields, invitation_code: s.str('extension (issue #35): the code of a team invitation to this e-mail') }, ['invitation_code']),
        description: 'Every registration is pending until its code is verified, and none blocks another: registering an e-mail '
          + 'someone else registered but did not verify gets its own code, and whoever verifies first owns the account (the '
          + 'other pending registrations of the e-mail are void). An e-mail that already has an account answers the same 201 '
          + '(with an id that will never be used) and is mailed a note instead of a code, so the answer never tells whether an '
          + 'e-mail is registered.\n\nExtension (issue #35): with `invitation_code`, the code a team invitation mailed to this '
          + 'e-mail, the account is made verified and joins the inviting account\'s team in the invited role (422 '
          + 'INVITATION-INVALID for a wrong, used, expired or withdrawn code; 409 MEMBER-EXISTS when the e-mail has an account; '
          + '409 INVITATION-AWAITING-APPROVAL while the invitation of a member with money rights is a pending change).',
        errors: ['INVITATION-INVALID', 'MEMBER-EXISTS', 'INVITATION-AWAITING-APPROVAL'],
      },
      handle: ({ body }) => app.accounts.register(body),
    }),
    defineRoute({
      method: 'POST', path: '/api/auth/verify', auth: 'none',
      throttle: [{ bucket: 'verify-ip', by: 'ip' }, { bucket: 'verify-email', by: 'email' }],
      docs: {
        operationId: 'verifyEmail',
        bodyExample: { email: 'dev@merchant.example', code: '493817' }, example: { user_id: 12, email: 'dev@merchant.example', verified: true },
        summary: 'Verify the e-mail address', tag: 'Account',
        description: 'Extension (issue #35): `password`, the one chosen at registration, may be sent with the code; a right code '
          + 'with another password is AUTH-VERIFICATION-FAILED. While several registrations of the e-mail are pending, each '
          + 'mailed its own code naming its registration, a code counts only with its registration\'s password '
          + '(422 VALIDATION-ERROR naming `password` without it), so verifying never sets a password its verifier did not choose.',
        body: s.obj({ email: s.str(), code: s.str(), password: s.str() }, ['password']),
        data: s.obj({ user_id: s.int(), email: s.str(), verified: s.enumOf([true]) }), errors: ['AUTH-VERIFICATION-FAILED'],
      },
      handle: ({ body }) => app.accounts.verify(body),
    }),
    defineRoute({
      method: 'POST', path: '/api/auth/login', auth: 'none',
      throttle: LOGIN_THROTTLE,
      docs: {
        operationId: 'login',
        bodyExample: { email: 'dev@merchant.example', password: 'correct horse battery' },
        example: { session_token: 'st_Yp3Kq8Vb1Nw6Zr0Tx4Mc7Hd2Js5Lf9Ga', expires_at: EX.isoExpiry, user_id: 12 },
        summary: 'Log in; returns a session token (st_…)', tag: 'Account',
        body: s.obj({
          email: s.str(), password: s.str(),
          totp_code: s.str('extension (issue #26): required once two-factor is on; a current 6-digit code or an unused recovery code'),
        }, ['totp_code']),
        description: 'With two-factor on, a right password without `totp_code` is 401 AUTH-TOTP-REQUIRED, and a wrong, expired or '
          + 'already used code is 401 AUTH-TOTP-INVALID (each try counts against the login limits). The accepted code authorises '
          + 'the login only (issue #35): each step-up action needs a code of its own. Wrong codes at login, step-up and 2FA '
          + 'disable share one budget of 10; once it is spent the account is locked (403 AUTH-ACCOUNT-LOCKED), the owner is '
          + 'mailed, and a password reset unlocks it.',
        data: s.obj({ session_token: s.str(), expires_at: s.str(), user_id: s.int() }),
        errors: ['AUTH-INVALID-CREDENTIALS', 'AUTH-NOT-VERIFIED', 'AUTH-TOTP-REQUIRED', 'AUTH-TOTP-INVALID', 'AUTH-ACCOUNT-LOCKED'],
      },
      handle: ({ body }) => app.accounts.login(body),
    }),
    // Extension (issue #14): the password reset; the same 202 answer for every e-mail, a code by mail to a verified one.
    defineRoute({
      method: 'POST', path: '/api/auth/password-reset/request', auth: 'none', status: 202,
      throttle: [{ bucket: 'reset-request-ip', by: 'ip' }, { bucket: 'reset-request-email', by: 'email' }],
      docs: {
        operationId: 'requestPasswordReset',
        bodyExample: { email: 'dev@merchant.example' },
        summary: 'Ask for a password-reset code by e-mail; the same answer whether or not the e-mail has an account (extension)',
        tag: 'Account', body: s.obj({ email: s.str() }), data: s.empty(),
      },
      handle: ({ body }) => app.accounts.requestPasswordReset(body),
    }),
    defineRoute({
      method: 'POST', path: '/api/auth/password-reset/confirm', auth: 'none',
      throttle: [{ bucket: 'reset-confirm-ip', by: 'ip' }, { bucket: 'reset-confirm-email', by: 'email' }],
      docs: {
        operationId: 'confirmPasswordReset',
        bodyExample: { email: 'dev@merchant.example', code: 'K7M2P9X4QD', new_password: 'another long passphrase' },
        example: { user_id: 12, email: 'dev@merchant.example' },
        summary: 'Set a new password with the mailed code; the code is consumed and every session revoked (extension)', tag: 'Account',
        description: 'Every session ends and API tokens are marked for review. With two-factor on, the reset also requests turning '
          + 'it off as a pending change (issue #35; `users.<id>.two_factor` in GET /policies/changes, mailed, cancellable with a '
          + 'code): the first login after POLICY_CHANGE_DELAY_H needs no code, so an owner whose account got a stranger\'s '
          + 'authenticator recovers it, and a mailbox thief faces the delay and a notice. A viewer\'s 2FA goes off at once.',
        body: s.obj({ email: s.str(), code: s.str('the 10-character code from the mail'), new_password: s.str('at least 8 characters') }),
        data: s.obj({ user_id: s.int(), email: s.str() }), errors: ['AUTH-RESET-FAILED'],
      },
      handle: ({ body }) => app.accounts.confirmPasswordReset(body),
    }),
    defineRoute({
      method: 'POST', path: '/api/auth/logout', roles: ANY_ROLE, auth: 'session', rateLimit: 'account-write',
      docs: { operationId: 'logout', summary: 'Revoke the presented session token', tag: 'Account', data: s.empty() },
      handle: async ({ caller }) => {
        await app.accounts.logout(caller.token);
        return {};
      },
    }),
    defineRoute({
      method: 'POST', path: '/api/subscriptions/activate', auth: 'session', rateLimit: 'account-write',
      docs: {
        operationId: 'activateSubscription',
        bodyExample: { service_code: 'sub_address', plan_code: 'starter' },
        summary: 'Activate (or switch) a plan', tag: 'Account',
        body: s.obj({ service_code: s.enumOf(['developer', 'sub_address']), plan_code: s.str('sub_address: starter | pro | unlimited') }, ['plan_code']),
        data: s.ref('Subscription'), errors: ['BIZ-SERVICE-NOT-FOUND', 'BIZ-PLAN-NOT-FOUND'],
      },
      handle: ({ caller, body }) => app.subscriptions.activate(caller.userId, body),
    }),
    defineRoute({
      method: 'PUT', path: '/api/subscriptions/config', roles: ADMIN_ROLES, auth: 'session', rateLimit: 'account-write', stepUp: weakensService,
      docs: {
        operationId: 'setDeveloperConfig',
        bodyExample: {
          service_code: 'developer',
          config: {
            webhook_url: EX.webhookUrl, webhook_secret: 'a-long-random-secret', min_collect_amounts: { USDT: '1000000' },
            event_types: ['deposit.confirmed'], auto_collect: { USDT: { min_amount: '10000000', max_fee_sun: '3000000' } },
          },
        },
        summary: 'Set the developer configuration (webhook URL and secret, minimum collect amounts, event types)', tag: 'Account',
        body: s.obj({
          service_code: s.enumOf(['developer']),
          config: s.obj({
            webhook_url: s.str(), webhook_secret: s.str(), min_collect_amounts: s.map(s.amount()),
            event_types: {
              ...s.arr(s.enumOf([...SPEC_EVENT_TYPES, ...OPT_IN_EVENT_TYPES])),
              description: "Extension (issue #24): replaces the opt-in event types. The spec's four are always sent, listed or not; add "
                + 'deposit.pending, deposit.confirmed or deposit.reverted to receive them, and payment.paid, payment.expired or '
                + 'payment.paid_late for payment requests (issue #25; see the webhooks section), and ledger.discrepancy for the books '
                + 'against the chain (issue #36). Absent: unchanged. '
                + 'Events are written for the types in force when the deposit changes; opting in later sends none for earlier changes. '
                + 'Any other value: 422 VALIDATION-ERROR',
            },
            auto_collect: {
              ...s.nullable(s.map(s.obj({ min_amount: s.amount(), max_fee_sun: s.amount() }))),
              description: 'Extension (issue #24): per asset symbol, collect by itself after a confirmed deposit. When a deposit of the '
                + 'asset is confirmed and the sub-address holds at least min_amount that a sweep can move (dust never counts), and no '
                + 'command holds the address, the worker starts a collection exactly as POST /collections would (same task, webhooks, '
                + 'cost record), once per deposit. If the cheapest sweep plan costs more than max_fee_sun (SUN), it waits and tries '
                + 'again later. Both are integer strings ("0" allowed). Replaces the whole map; null or {} clears it; absent: '
                + 'unchanged. An unknown asset symbol or a malformed amount: 422 VALIDATION-ERROR',
            },
            display_name: {
              ...s.nullable(s.str()),
              description: 'Extension (issue #25): the merchant name the payer page shows beside a payment request (trimmed, at most '
                + '80 characters). null or blank clears it; absent: unchanged',
            },
          }, ['webhook_url', 'webhook_secret', 'min_collect_amounts', 'event_types', 'auto_collect', 'display_name']),
        }),
        description: 'With two-factor on, a code in `X-TOTP-Code` is needed when the body sets webhook_url or webhook_secret '
          + '(issue #26), or display_name, event_types, or an auto_collect rule whose max_fee_sun is above 10000000 (10 TRX: no '
          + 'fee cap) (issue #35). Without two-factor nothing is asked.',
        data: s.ref('DeveloperConfig'), errors: ['BIZ-WEBHOOK-URL-BLOCKED', 'BIZ-DEVELOPER-SUBSCRIPTION-REQUIRED'],
      },
      handle: ({ caller, body }) => app.subscriptions.putConfig(caller.userId, body),
    }),
    defineRoute({
      method: 'GET', path: '/api/subscriptions/config/developer', auth: 'session',
      docs: { operationId: 'getDeveloperConfig', summary: 'The developer configuration with the webhook status', tag: 'Account', data: s.ref('DeveloperConfig') },
      handle: ({ caller }) => app.subscriptions.getDeveloperConfig(caller.userId),
    }),
    defineRoute({
      method: 'POST', path: '/api/api-tokens', roles: ADMIN_ROLES, auth: 'session', status: 201, rateLimit: 'api-token-create', stepUp: true,
      docs: {
        operationId: 'createApiToken',
        bodyExample: { name: 'backend' },
        summary: 'Create a Developer API Token (dk_…, shown once)', tag: 'Account',
        body: s.obj({
          name: s.str(),
          expires_at: s.nullable(s.str('extension (issue #35): ISO 8601 with an offset, in the future, when the token stops working; absent or null: never')),
        }, ['expires_at']),
        data: s.ref('ApiTokenCreated'), errors: ['BIZ-DEVELOPER-SUBSCRIPTION-REQUIRED', 'BIZ-API-TOKEN-QUOTA-EXCEEDED'],
      },
      handle: ({ caller, body }) => app.apiTokens.create(caller.userId, body),
    }),
    // Extension (issue #13): the caller's unrevoked tokens, never their values.
    defineRoute({
      method: 'GET', path: '/api/api-tokens', auth: 'session',
      docs: {
        operationId: 'listApiTokens',
        summary: 'List your Developer API Tokens (no token values) with last_used_at (extension)', tag: 'Account', data: s.ref('ApiTokenList'),
      },
      handle: ({ caller }) => app.apiTokens.list(caller.userId),
    }),
    defineRoute({
      method: 'PUT', path: '/api/api-tokens/:id/expiry', roles: ADMIN_ROLES, auth: 'session', rateLimit: 'api-token-revoke', stepUp: true,
      docs: {
        operationId: 'setApiTokenExpiry',
        bodyExample: { expires_at: '2027-01-01T00:00:00Z' },
        summary: 'Set a Developer API Token\'s expiry, reviewing it (extension)', tag: 'Account',
        description: 'Issue #35: `expires_at` (ISO 8601 with an offset, in the future) is when the token stops working; null: '
          + 'never. Setting it also clears the review mark a password reset puts on every token (`review_since`). A code in '
          + '`X-TOTP-Code` is needed with two-factor on. A token may be given an expiry at creation too (`POST /api-tokens`).',
        body: s.obj({ expires_at: s.nullable(s.str('ISO 8601 with an offset, in the future; null: never')) }),
        data: s.obj({
          id: s.int(), name: s.str(), abilities: s.arr(s.str()), created_at: s.str(), last_used_at: s.nullable(s.str()),
          expires_at: s.nullable(s.str()), review_since: s.nullable(s.str()),
        }),
        example: {
          id: 3, name: 'backend', abilities: ['api:access'], created_at: '2026-01-01T12:00:00+00:00', last_used_at: '2026-01-02T08:15:00+00:00',
          expires_at: '2027-01-01T00:00:00+00:00', review_since: null,
        },
        errors: ['API-TOKEN-NOT-FOUND'],
      },
      handle: ({ caller, params, body }) => app.apiTokens.setExpiry(caller.userId, params.id ?? '', body),
    }),
    defineRoute({
      method: 'DELETE', path: '/api/api-tokens/:id', roles: ADMIN_ROLES, auth: 'session', rateLimit: 'api-token-revoke', stepUp: true,
      docs: {
        operationId: 'revokeApiToken',
        summary: 'Revoke a Developer API Token', tag: 'Account', data: s.ref('ApiTokenRevoked'), errors: ['API-TOKEN-NOT-FOUND'],
        description: 'With two-factor on, a code in `X-TOTP-Code` is needed (issue #35: a stolen session must not cut the '
          + 'backend off its API).',
      },
      handle: ({ caller, params }) => app.apiTokens.revoke(caller.userId, params.id ?? ''),
    }),
    defineRoute({
      method: 'POST', path: '/api/webhooks/debug/test', roles: ADMIN_ROLES, auth: 'session', rateLimit: 'webhook-test',
      docs: {
        operationId: 'sendTestWebhook',
        summary: 'Send a signed webhook.test event to the approved URL', tag: 'Webhooks', data: s.ref('WebhookTest'), errors: ['BIZ-WEBHOOK-URL-UNVERIFIED'],
      },
      handle: ({ caller }) => app.webhooks.test(caller.userId),
    }),
    defineRoute({
      method: 'GET', path: '/api/webhooks/deliveries', auth: 'session',
      docs: {
        operationId: 'listWebhookDeliveries',
        summary: 'Webhook deliveries, DEAD and SKIPPED included, each with its payload and attempts', tag: 'Webhooks',
        query: { ...pageQuery, status: { schema: s.ref('DeliveryStatus'), description: 'only deliveries in this status' } },
        data: itemsPage(s.ref('Delivery')),
      },
      handle: ({ caller, query }) => app.webhooks.deliveries(caller.userId, query),
    }),
    defineRoute({
      method: 'POST', path: '/api/webhooks/deliveries/:id/redeliver', roles: ADMIN_ROLES, auth: 'session', rateLimit: 'webhook-redeliver',
      docs: {
        operationId: 'redeliverWebhook',
        summary: 'Extension: send a DEAD or delivered event again (same event_id) to the approved URL, as a new recorded attempt',
        tag: 'Webhooks', data: s.ref('Redelivery'),
        errors: ['WEBHOOK-DELIVERY-NOT-FOUND', 'WEBHOOK-DELIVERY-SKIPPED', 'WEBHOOK-DELIVERY-IN-PROGRESS', 'BIZ-WEBHOOK-URL-UNVERIFIED'],
      },
      handle: ({ caller, params }) => app.webhooks.redeliver(caller.userId, params.id ?? ''),
    }),
  ];
}
