/**
 * The merchant console's cookie session (issue #38 item 4): the cookie that carries a session token the page script
 * cannot read, and the same-origin rule every cookie-authenticated request must pass. A bearer token never goes
 * through here: with an Authorization header the API answers exactly as before.
 */

/** The cookie's name. Not `__Host-`: that prefix needs `Secure`, which a plain-HTTP `npm start` cannot set. */
export const CONSOLE_COOKIE = 'ch_console';

/** The header the console's fetch wrapper sends on every call: a form post or a cross-site image cannot set it. */
export const CONSOLE_HEADER = 'x-console';

/**
 * Sent by the console's background polls (lib/poll.js): such a request is authenticated as usual but does not count as
 * activity, so a tab left open (polling the dashboard) still lets its idle session expire.
 */
export const CONSOLE_POLL_HEADER = 'x-console-poll';

/** The idle timeout when the configuration names none (CONSOLE_IDLE_MIN): 30 minutes. */
export const DEFAULT_CONSOLE_IDLE_MS = 30 * 60_000;

/** The value of the named cookie in a Cookie header, or null. Only `st_…`-shaped values are looked at further. */
export function cookieValue(header: string | null, name: string): string | null {
  if (header === null) return null;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return null;
}

/** The console session token a request carries in its cookie, or null. */
export function consoleCookieToken(headers: Headers): string | null {
  const value = cookieValue(headers.get('cookie'), CONSOLE_COOKIE);
  return value !== null && /^st_[A-Za-z0-9_-]{1,200}$/.test(value) ? value : null;
}

/**
 * Whether a cookie-authenticated request comes from the console page itself: `X-Console: 1` (which only a script of
 * the page's origin can add to a credentialed request: a cross-site one would need a CORS preflight the API never
 * grants), and a same-origin signal. `Sec-Fetch-Site: same-origin` where the browser sends it (over HTTPS and on
 * localhost); any other value (cross-site, same-site, none) refuses. Without it (a plain-HTTP origin), an `Origin` whose
 * host is the request's Host, or, where no Origin is sent (a GET), a `Referer` of this host: the console's fetch
 * wrapper asks for `referrerPolicy: 'same-origin'`, so a browser sends it on the console's own calls and to no one else.
 */
export function isSameOriginConsoleRequest(headers: Headers): boolean {
  if (headers.get(CONSOLE_HEADER) !== '1') return false;
  const site = headers.get('sec-fetch-site');
  if (site !== null) return site === 'same-origin';
  const host = headers.get('host');
  if (host === null) return false;
  const origin = headers.get('origin');
  return origin !== null ? hostOf(origin) === host.toLowerCase() : hostOf(headers.get('referer')) === host.toLowerCase();
}

/** The host (name and port) of a URL, or null when absent or not a URL ("null" origins included). */
function hostOf(url: string | null): string | null {
  if (url === null) return null;
  try {
    return new URL(url).host;
  } catch {
    return null;
  }
}

/**
 * Whether the request reached the proxy over TLS: only trusted proxies' `X-Forwarded-Proto` counts (its right-most
 * entry, the one the nearest proxy wrote); without trusted proxies the API itself speaks plain HTTP.
 */
export function cameOverTls(headers: Headers, trustedProxyHops: number): boolean {
  if (trustedProxyHops <= 0) return false;
  const proto = headers.get('x-forwarded-proto');
  if (proto === null) return false;
  return proto.split(',').at(-1)?.trim().toLowerCase() === 'https';
}

/** The Set-Cookie value that stores a session token: HttpOnly, SameSite=Strict, Path=/, Secure over TLS. */
export function sessionCookie(token: string, secure: boolean): string {
  return `${CONSOLE_COOKIE}=${token}; Path=/; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`;
}

/** The Set-Cookie value that clears the cookie. */
export function clearedCookie(secure: boolean): string {
  return `${CONSOLE_COOKIE}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0${secure ? '; Secure' : ''}`;
}
