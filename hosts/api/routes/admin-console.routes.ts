import { DomainError, validationError } from '../../../core/domain/errors.js';
import { formatIsoTime } from '../../../core/domain/time.js';
import { ADMIN_CONSOLE_SHELL, CONSOLE_HEADERS } from '../console/console-page.js';
import { adminSessionCookie, clearedAdminCookie, type AdminConsoleSessions } from '../console/admin-session.js';
import { cameOverTls, isSameOriginConsoleRequest } from '../console/console-session.js';
import { s } from '../openapi-schemas.js';
import type { Throttle } from '../rate-limit.js';
import { defineRoute, type RawResult, type RouteDef } from '../route.js';

/** What the operator console's routes need. */
export interface AdminConsoleRouteOptions {
  readonly sessions: AdminConsoleSessions;
  /** Proxies trusted for X-Forwarded-Proto (the cookie's Secure flag). */
  readonly trustedProxyHops: number;
}

const CROSS_SITE = 'cross-site request refused: the console cookie is accepted only on same-origin requests with X-Console: 1';

/** The sign-in's throttles: the login's per-address buckets (a guessed admin token costs as much as a guessed password). */
const ADMIN_SIGN_IN_THROTTLE: readonly Throttle[] = [{ bucket: 'login-ip', by: 'ip' }, { bucket: 'login-ip-hour', by: 'ip' }];

function withCookie(data: unknown, cookie: string): RawResult {
  return {
    raw: {
      contentType: 'application/json; charset=utf-8', body: JSON.stringify({ code: 'OK', message: 'success', data }),
      headers: { 'set-cookie': cookie, 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' },
    },
  };
}

const adminSession = s.obj({
  via_cookie: { ...s.bool(), description: 'true when the caller came in the operator console\'s cookie, false with the admin token in a header' },
  expires_at: s.nullable(s.str('ISO 8601 with offset: when the console session ends unless used (the idle timeout slides it); null with the token')),
  idle_timeout_s: s.int(),
});
const adminSessionExample = { via_cookie: true, expires_at: '2026-01-02T01:30:00+00:00', idle_timeout_s: 1800 };

/**
 * The operator console (issue #38 item 2, extensions): its page at /console/admin, and its cookie session. The admin
 * token is typed once and exchanged for an HttpOnly, SameSite=Strict cookie holding a server-side session id (never the
 * token); with that cookie the admin routes, and only they, answer as for the admin token (hosts/api/auth.ts).
 */
export function adminConsoleRoutes(options: AdminConsoleRouteOptions): RouteDef[] {
  const { sessions } = options;
  const idleS = Math.round(sessions.idleMs / 1_000);
  return [
    defineRoute({
      method: 'GET', path: '/console/admin', auth: 'none',
      docs: {
        operationId: 'getAdminConsolePage',
        example: '<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>Custody Hub operator console</title>…</head><body>…</body></html>\n',
        summary: 'The operator console (extension, issue #38): a single-page app; its screens live under /console/admin#/…', tag: 'Console',
        description: 'The same Content-Security-Policy as /console. Its modules are served under /console/admin-app/ and share '
          + 'the merchant console\'s libraries under /console/app/lib/ and /console/vendor/.',
        data: s.empty(), produces: 'text/html',
      },
      handle: () => Promise.resolve({
        raw: { contentType: 'text/html; charset=utf-8', body: ADMIN_CONSOLE_SHELL, headers: { ...CONSOLE_HEADERS, 'cache-control': 'no-store' } },
      }),
    }),
    defineRoute({
      method: 'POST', path: '/api/admin/console/session', auth: 'none', throttle: ADMIN_SIGN_IN_THROTTLE,
      docs: {
        operationId: 'signInAdminConsole',
        summary: 'Sign in to the operator console with the admin token: sets an HttpOnly session cookie (extension, issue #38)', tag: 'Console',
        description: 'Exchanges the admin token (ADMIN_TOKEN) for the cookie `ch_admin` (`HttpOnly; SameSite=Strict; Path=/api/admin`, '
          + '`Secure` when the request came over TLS through a trusted proxy) holding a random session id kept by the server: '
          + 'the token itself is never in the cookie. The request must come from the console page itself (`X-Console: 1` and a '
          + 'same-origin signal, as for POST /auth/console/session), else 403 FORBIDDEN; a wrong token is 401 UNAUTHENTICATED '
          + '(throttled per client address like the login). With the cookie, the admin routes answer as for the admin token, '
          + 'on same-origin requests with `X-Console: 1` only; no other route reads it. The session ends on sign-out, after the '
          + 'idle timeout (CONSOLE_IDLE_MIN) without a request other than a background poll (`X-Console-Poll: 1`), at the latest '
          + '24 h after sign-in, and when the API process restarts.',
        body: s.obj({ token: s.str('the admin token (ADMIN_TOKEN)') }), bodyExample: { token: 'adm_…' },
        data: adminSession, example: adminSessionExample,
        headers: { 'Set-Cookie': { description: 'the operator console session cookie', schema: s.str(), example: 'ch_admin=as_…; Path=/api/admin; HttpOnly; SameSite=Strict' } },
        errors: ['UNAUTHENTICATED', 'FORBIDDEN'],
      },
      handle: ({ body, headers }) => {
        if (!isSameOriginConsoleRequest(headers)) throw new DomainError('FORBIDDEN', { message: CROSS_SITE });
        const token = body['token'];
        if (typeof token !== 'string' || token.length === 0 || token.length > 512) throw validationError('token', 'must be a string of 1 to 512 characters');
        if (!sessions.isAdminToken(token)) throw new DomainError('UNAUTHENTICATED', { message: 'this is not the admin token' });
        const opened = sessions.open();
        const data = { via_cookie: true, expires_at: formatIsoTime(opened.expiresAt), idle_timeout_s: idleS };
        return Promise.resolve(withCookie(data, adminSessionCookie(opened.id, cameOverTls(headers, options.trustedProxyHops))));
      },
    }),
    defineRoute({
      method: 'GET', path: '/api/admin/console/session', auth: 'admin',
      docs: {
        operationId: 'getAdminConsoleSession', summary: 'Whether the operator console is signed in, and until when (extension, issue #38)',
        tag: 'Console', data: adminSession, example: adminSessionExample,
      },
      // A cookie request was slid by the authenticator already (unless it was a background poll).
      handle: ({ caller }) => {
        const live = caller.consoleSessionId === undefined ? null : sessions.check(caller.consoleSessionId, false);
        return Promise.resolve({ via_cookie: live !== null, expires_at: live === null ? null : formatIsoTime(live.expiresAt), idle_timeout_s: idleS });
      },
    }),
    defineRoute({
      method: 'DELETE', path: '/api/admin/console/session', auth: 'admin',
      docs: {
        operationId: 'signOutAdminConsole', summary: 'Sign out of the operator console: ends the session on the server and clears the cookie (extension, issue #38)',
        tag: 'Console', data: s.empty(),
      },
      handle: ({ caller, headers }) => {
        if (caller.consoleSessionId !== undefined) sessions.close(caller.consoleSessionId);
        return Promise.resolve(withCookie({}, clearedAdminCookie(cameOverTls(headers, options.trustedProxyHops))));
      },
    }),
  ];
}
