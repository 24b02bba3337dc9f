import QRCode from 'qrcode';
import type { Application } from '../../../core/application/index.js';
import { ANY_ROLE, defineRoute, type RouteDef } from '../route.js';
import { s } from '../openapi-schemas.js';
import { CHANGE } from './policy.routes.js';

/** Where a wrong code on enable or disable is a bad input (422), not a failed login (401). */
const CODE_INPUT_STATUSES = { 'AUTH-TOTP-INVALID': 422, 'AUTH-INVALID-CREDENTIALS': 422 } as const;

/** The key URI as an SVG QR code, rendered on the server (error correction M, a 2-module quiet zone). */
function keyUriQrSvg(uri: string): Promise<string> {
  return QRCode.toString(uri, { type: 'svg', errorCorrectionLevel: 'M', margin: 2, color: { dark: '#000000', light: '#ffffff' } });
}

const EXAMPLE_URI = 'otpauth://totp/Custody%20Hub:dev%40merchant.example?issuer=Custody%20Hub&secret=JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP&algorithm=SHA1&digits=6&period=30';

/** TOTP two-factor (issue #26 item 3): enrol, confirm with recovery codes, turn off. Session token. */
export function twoFactorRoutes(app: Application): RouteDef[] {
  return [
    defineRoute({
      method: 'POST', path: '/api/auth/2fa/setup', auth: 'session', rateLimit: 'account-write', roles: ANY_ROLE,
      docs: {
        operationId: 'setupTwoFactor',
        summary: 'Start two-factor enrolment: a new TOTP secret as an otpauth:// URI and its QR code (extension)', tag: 'Account',
        description: 'Scan `qr_svg` (or enter the URI) in an authenticator app, then confirm with `POST /auth/2fa/enable`. '
          + 'Nothing changes until then; calling setup again replaces the unconfirmed secret. The secret is stored encrypted '
          + 'and never shown again. 409 AUTH-2FA-ALREADY-ENABLED while two-factor is on.',
        data: s.obj({ otpauth_uri: s.str('otpauth://totp/… (SHA1, 6 digits, 30 s)'), qr_svg: s.str('the URI as an SVG QR code') }),
        example: { otpauth_uri: EXAMPLE_URI, qr_svg: '<svg xmlns="http://www.w3.org/2000/svg" …</svg>' },
        errors: ['AUTH-2FA-ALREADY-ENABLED'],
      },
      handle: async ({ caller }) => {
        const { otpauth_uri } = await app.twoFactor.setup(caller.actorUserId);
        return { otpauth_uri, qr_svg: await keyUriQrSvg(otpauth_uri) };
      },
    }),
    defineRoute({
      method: 'POST', path: '/api/auth/2fa/enable', auth: 'session', rateLimit: 'account-write', roles: ANY_ROLE, errorStatuses: CODE_INPUT_STATUSES,
      docs: {
        operationId: 'enableTwoFactor',
        bodyExample: { password: 'correct horse battery staple', code: '492039' },
        summary: 'Turn two-factor on with the password and a current code; answers the 10 single-use recovery codes, once (extension)', tag: 'Account',
        description: 'From then on login needs `totp_code`, and withdrawals, staking, API-token creation, expiry and revocation, '
          + 'webhook URL or secret changes, the payer-facing name, event types, auto-collect without a fee cap and withdrawal-'
          + 'policy changes need a code in the `X-TOTP-Code` header: a code authorises one kind of action for 5 minutes, a '
          + 'withdrawal\'s code that withdrawal only, a recovery code none (issue #35). Each try counts against the code-try '
          + 'limits (5 a minute, 20 an hour, 50 a day) and the account\'s budget of 10 wrong codes.\n\n'
          + 'Issue #35: the account password is needed too (a stolen session cannot enrol the thief\'s authenticator; a wrong '
          + 'one is 422 AUTH-INVALID-CREDENTIALS). Turning two-factor on mails the owner a notice and holds withdrawals to '
          + 'destinations not on the allow-list for POLICY_CHANGE_DELAY_H (403 POLICY-DESTINATION-HELD). A later password '
          + 'reset requests turning it off again (a pending change `users.<id>.two_factor`, cancellable with a code), so an '
          + 'owner whose account got a thief\'s authenticator recovers it after the delay.',
        body: s.obj({ password: s.str('the account password'), code: s.str('the 6-digit code the app shows now') }),
        data: s.obj({ recovery_codes: s.arr(s.str('XXXXX-XXXXX; each works once in place of a code')) }),
        example: { recovery_codes: ['7KD2M-QX9TP', 'H3N8W-2CFRB', '…'] },
        errors: ['AUTH-2FA-SETUP-REQUIRED', 'AUTH-2FA-ALREADY-ENABLED', 'AUTH-TOTP-INVALID', 'AUTH-INVALID-CREDENTIALS'],
      },
      handle: ({ caller, body, codeTry }) => app.twoFactor.enable(caller.actorUserId, body, codeTry),
    }),
    defineRoute({
      method: 'POST', path: '/api/auth/2fa/disable', auth: 'session', rateLimit: 'account-write', roles: ANY_ROLE, errorStatuses: CODE_INPUT_STATUSES,
      docs: {
        operationId: 'disableTwoFactor',
        bodyExample: { password: 'correct horse battery staple', code: '492039' },
        summary: 'Turn two-factor off with the password and a current code or a recovery code; waits POLICY_CHANGE_DELAY_H, then ends every session (extension)', tag: 'Account',
        description: 'Both the account password and a code are needed (a stolen session and one code are not enough). Every '
          + 'session of the account ends, this one included; the answer carries the caller\'s new session. A wrong password '
          + 'or code counts against the code-guessing budget shared with login and step-up: once it is spent the account is '
          + 'locked (403 AUTH-ACCOUNT-LOCKED), the owner is mailed, and a password reset unlocks it.\n\n'
          + 'Issue #35: in an account with members, the owner\'s and an admin\'s, approver\'s or operator\'s 2FA going off is a '
          + 'loosening: the password and code are checked (and the code used) as above, then the answer is **202** with a pending '
          + 'change of the account (GET /policies/changes, `loosens: [users.<id>.two_factor]`, mailed to every member with money '
          + 'rights). Nothing changes until it takes effect (another admin approves it, or POLICY_CHANGE_DELAY_H later): then 2FA '
          + 'is off, every session of that user ends, and new destinations are held. Any admin can cancel it first. A solo '
          + 'owner\'s disable is a pending change too (issue #35 item 3): 202, the owner mailed and able to cancel it, no early '
          + 'approval, 2FA on until POLICY_CHANGE_DELAY_H later. A viewer keeps the 200 answer above, and so does a solo '
          + 'owner when POLICY_CHANGE_DELAY_H is 0 (development only).',
        body: s.obj({ password: s.str('the account password'), code: s.str('a current 6-digit code or an unused recovery code') }),
        data: s.obj({ enabled: s.enumOf([false]), session_token: s.str('the caller\'s new session token'), expires_at: s.str('ISO 8601') }),
        example: { enabled: false, session_token: 'st_…', expires_at: '2026-01-02T01:00:00+00:00' },
        errors: ['AUTH-2FA-NOT-ENABLED', 'AUTH-TOTP-INVALID', 'AUTH-INVALID-CREDENTIALS', 'AUTH-ACCOUNT-LOCKED', 'POLICY-CHANGES-FULL'],
        alsoAnswers: {
          status: 202, description: 'the owner (solo or in a team) or a team member with money rights: the pending change that turns 2FA off', data: CHANGE,
          example: {
            change_id: '9', status: 'pending', loosens: ['users.14.two_factor'], changes: { two_factor: { user_id: 14, email: 'ops@example.com', enabled: false } },
            requested_at: '2026-01-02T01:00:00+00:00', effective_at: '2026-01-03T01:00:00+00:00', takes_effect_by: 'delay',
          },
        },
      },
      handle: async ({ caller, body, codeTry }) => {
        const result = await app.twoFactor.disable(caller.actorUserId, body, codeTry);
        if (!('change_id' in result)) return result;
        return { raw: { contentType: 'application/json', status: 202, body: JSON.stringify({ code: 'OK', message: 'success', data: result }) } };
      },
    }),
  ];
}
