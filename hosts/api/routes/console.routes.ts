import type { Application } from '../../../core/application/index.js';
import { DomainError, validationError } from '../../../core/domain/errors.js';
import { formatIsoTime } from '../../../core/domain/time.js';
import { TEAM_ROLES } from '../../../core/domain/team-roles.js';
import { addressQrSvg } from '../cashier-page/address-qr.js';
import { CONSOLE_HEADERS, CONSOLE_SHELL } from '../console/console-page.js';
import { cameOverTls, clearedCookie, isSameOriginConsoleRequest, sessionCookie } from '../console/console-session.js';
import { s } from '../openapi-schemas.js';
import { ANY_ROLE, defineRoute, type RawResult, type RouteDef } from '../route.js';
import { LOGIN_THROTTLE } from './account.routes.js';

/** What the console's routes need besides the use cases. */
export interface ConsoleRouteOptions {
  /** The server-side idle timeout of a console session (CONSOLE_IDLE_MIN). */
  readonly idleMs: number;
  /** Proxies trusted for X-Forwarded-Proto (the cookie's Secure flag). */
  readonly trustedProxyHops: number;
}

const CROSS_SITE = 'cross-site request refused: the console cookie is accepted only on same-origin requests with X-Console: 1';

/** The envelope of a console answer that also sets or clears the cookie (a RawResult: the route table has no header hook). */
function withCookie(data: unknown, cookie: string): RawResult {
  return {
    raw: {
      contentType: 'application/json; charset=utf-8', body: JSON.stringify({ code: 'OK', message: 'success', data }),
      headers: { 'set-cookie': cookie, 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' },
    },
  };
}

const consoleSession = s.obj({
  user_id: s.int('the account the session acts on (the owner\'s user id in a team)'),
  email: s.str('the signed-in user\'s own e-mail'),
  role: s.enumOf(TEAM_ROLES),
  two_factor_enabled: s.bool(),
  api_access: s.bool(),
  expires_at: s.str('ISO 8601 with offset: when the session ends unless used (the idle timeout slides it)'),
  idle_timeout_s: s.int(),
});
const consoleSessionExample = {
  user_id: 12, email: 'dev@merchant.example', role: 'owner', two_factor_enabled: true, api_access: true,
  expires_at: '2026-01-02T01:30:00+00:00', idle_timeout_s: 1800,
};

/**
 * The merchant console (issue #38, extensions): its page, and its cookie session. Signing in uses the login use case
 * (same limits, lockout and audit as POST /auth/login) and answers with an HttpOnly, SameSite=Strict cookie holding
 * the session token; every other console call is an ordinary API route reached with that cookie (hosts/api/auth.ts).
 */
export function consoleRoutes(app: Application, options: ConsoleRouteOptions): RouteDef[] {
  const idleS = Math.round(options.idleMs / 1_000);
  /** The answer about a session; `slide` (a console session's sign-in) starts its idle timeout. A bearer session never slides. */
  const describe = async (token: string, userId: number, role: (typeof TEAM_ROLES)[number], slide: boolean): Promise<typeof consoleSessionExample> => {
    const slid = slide ? await app.accounts.slideSession(token, options.idleMs) : undefined;
    const [own, developer] = await Promise.all([app.accounts.sessionUser(token), app.subscriptions.getDeveloperConfig(userId)]);
    if (own === null || slid === null) throw new DomainError('UNAUTHENTICATED');
    return {
      user_id: userId, email: own.email, role, two_factor_enabled: own.twoFactorOn, api_access: developer.status === 'active',
      expires_at: formatIsoTime(own.expiresAt), idle_timeout_s: idleS,
    };
  };
  // Under /api/auth/: a member's own login, which every role reaches, with or without 2FA on (team-access.ts).
  return [
    defineRoute({
      method: 'GET', path: '/console', auth: 'none',
      docs: {
        operationId: 'getConsolePage',
        example: '<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>Custody Hub console</title>…</head><body>…</body></html>\n',
        summary: 'The merchant console (extension, issue #38): a single-page app; its screens live under /console#/…', tag: 'Console',
        description: 'Served with a strict Content-Security-Policy (scripts of this origin and the import map\'s hash only, '
          + '`frame-ancestors \'none\'`). Its modules and libraries are served under /console/app/ and /console/vendor/.',
        data: s.empty(), produces: 'text/html',
      },
      handle: () => Promise.resolve({
        raw: { contentType: 'text/html; charset=utf-8', body: CONSOLE_SHELL, headers: { ...CONSOLE_HEADERS, 'cache-control': 'no-store' } },
      }),
    }),
    defineRoute({
      method: 'POST', path: '/api/auth/console/session', auth: 'none', throttle: LOGIN_THROTTLE,
      docs: {
        operationId: 'signInConsole',
        summary: 'Sign in to the console: sets an HttpOnly session cookie (extension, issue #38)', tag: 'Console',
        description: 'The login of POST /auth/login (same checks, limits, lockout and audit), for the console page: instead of '
          + 'returning the session token it sets the cookie `ch_console` (`HttpOnly; SameSite=Strict; Path=/`, `Secure` when '
          + 'the request came over TLS through a trusted proxy). The request must come from the console page itself '
          + '(`X-Console: 1` and `Sec-Fetch-Site: same-origin` or an `Origin` of this host), else 403 FORBIDDEN. With the cookie, '
          + 'the session and developer routes answer as for the session (the developer routes only when the account has API '
          + `access; writes for the owner, admins and operators unless the route names its roles), on same-origin requests with `
          + '`X-Console: 1` only. The session ends after the idle timeout (CONSOLE_IDLE_MIN, default 30 min) without a request '
          + 'other than a background poll (`X-Console-Poll: 1`), and at the latest 24 h after sign-in.',
        body: s.obj({ email: s.str(), password: s.str(), code: s.str('required once two-factor is on: a current 6-digit code or an unused recovery code') }, ['code']),
        bodyExample: { email: 'dev@merchant.example', password: 'correct horse battery', code: '493817' },
        data: consoleSession, example: consoleSessionExample,
        headers: { 'Set-Cookie': { description: 'the console session cookie', schema: s.str(), example: 'ch_console=st_…; Path=/; HttpOnly; SameSite=Strict' } },
        errors: ['AUTH-INVALID-CREDENTIALS', 'AUTH-NOT-VERIFIED', 'AUTH-TOTP-REQUIRED', 'AUTH-TOTP-INVALID', 'AUTH-ACCOUNT-LOCKED', 'FORBIDDEN'],
      },
      handle: async ({ body, headers }) => {
        if (!isSameOriginConsoleRequest(headers)) throw new DomainError('FORBIDDEN', { message: CROSS_SITE });
        const code = body['code'] ?? body['totp_code'];
        const login = await app.accounts.login({ email: body['email'], password: body['password'], ...(code === undefined ? {} : { totp_code: code }) });
        const principal = await app.accounts.authenticateSession(login.session_token);
        if (principal === null) throw new DomainError('UNAUTHENTICATED');
        const data = await describe(login.session_token, principal.userId, principal.member?.role ?? 'owner', true);
        return withCookie(data, sessionCookie(login.session_token, cameOverTls(headers, options.trustedProxyHops)));
      },
    }),
    defineRoute({
      method: 'GET', path: '/api/auth/console/session', auth: 'session', roles: ANY_ROLE,
      docs: {
        operationId: 'getConsoleSession', summary: 'Who is signed in to the console (extension, issue #38)', tag: 'Console',
        description: 'With the console cookie (or a session token): the user, the member\'s role, 2FA on or off, and whether the '
          + 'account has API access.',
        data: consoleSession, example: consoleSessionExample,
      },
      // A cookie request was slid by the authenticator already (unless it was a background poll).
      handle: ({ caller }) => describe(caller.token, caller.userId, caller.member?.role ?? 'owner', false),
    }),
    defineRoute({
      method: 'DELETE', path: '/api/auth/console/session', auth: 'session', roles: ANY_ROLE, rateLimit: 'account-write',
      docs: {
        operationId: 'signOutConsole', summary: 'Sign out: revokes the session on the server and clears the cookie (extension, issue #38)',
        tag: 'Console', data: s.empty(),
      },
      handle: async ({ caller, headers }) => {
        await app.accounts.logout(caller.token);
        return withCookie({}, clearedCookie(cameOverTls(headers, options.trustedProxyHops)));
      },
    }),
    defineRoute({
      method: 'POST', path: '/api/auth/console/qr', auth: 'session', roles: ANY_ROLE, rateLimit: 'account-write',
      docs: {
        operationId: 'renderConsoleQrCode', summary: 'A QR code (SVG) of a text, for the console (extension, issue #38)', tag: 'Console',
        description: 'The console shows the otpauth URI of 2FA enrolment and a payment link as QR codes, rendered here by the '
          + 'server\'s QR code library so the page loads none of its own. Up to 1024 characters.',
        body: s.obj({ text: s.str() }), bodyExample: { text: 'otpauth://totp/Custody%20Hub:dev%40merchant.example?secret=JBSWY3DPEHPK3PXP' },
        data: s.empty(), produces: 'image/svg+xml',
        example: '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 41 41"><path fill="#fff" d="M0 0h41v41H0z"/><path d="M4 4.5h7…"/></svg>',
      },
      handle: async ({ body }) => {
        const text = body['text'];
        if (typeof text !== 'string' || text.length === 0 || text.length > 1024) {
          throw validationError('text', 'must be a string of 1 to 1024 characters');
        }
        return { raw: { contentType: 'image/svg+xml', body: await addressQrSvg(text), headers: { 'cache-control': 'no-store' } } };
      },
    }),
  ];
}
