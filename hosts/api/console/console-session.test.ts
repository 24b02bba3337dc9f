import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  cameOverTls, clearedCookie, CONSOLE_COOKIE, consoleCookieToken, cookieValue, isSameOriginConsoleRequest, sessionCookie,
} from './console-session.js';

const HOST = 'shop.example:8443';
const token = fc.stringMatching(/^st_[A-Za-z0-9_-]{20,43}$/);
const cookieName = fc.stringMatching(/^[a-z_]{1,12}$/).filter((n) => n !== CONSOLE_COOKIE);
const cookieText = fc.stringMatching(/^[A-Za-z0-9_-]{0,20}$/);

/** The console cookie's rules (issue #38 item 4), on their own; console-cookie.test.ts runs them through the pipeline. */
describe('console session cookie', () => {
  it('property: the console token is found among any other cookies, in any order; nothing else is taken for it', () => {
    fc.assert(fc.property(token, fc.array(fc.tuple(cookieName, cookieText), { maxLength: 5 }), fc.nat(), (value, others, at) => {
      const pairs = others.map(([n, v]) => `${n}=${v}`);
      pairs.splice(at % (pairs.length + 1), 0, `${CONSOLE_COOKIE}=${value}`);
      expect(consoleCookieToken(new Headers({ cookie: pairs.join('; ') }))).toBe(value);
      expect(consoleCookieToken(new Headers({ cookie: others.map(([n, v]) => `${n}=${v}`).join('; ') }))).toBeNull();
    }));
    expect(consoleCookieToken(new Headers({ cookie: `${CONSOLE_COOKIE}=dk_not_a_session` }))).toBeNull();
    expect(cookieValue(null, CONSOLE_COOKIE)).toBeNull();
  });

  it('the cookie is HttpOnly, SameSite=Strict, Path=/; Secure exactly when the request came over TLS', () => {
    expect(sessionCookie('st_abc', false)).toBe('ch_console=st_abc; Path=/; HttpOnly; SameSite=Strict');
    expect(sessionCookie('st_abc', true)).toBe('ch_console=st_abc; Path=/; HttpOnly; SameSite=Strict; Secure');
    expect(clearedCookie(true)).toBe('ch_console=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0; Secure');
  });

  it('TLS is believed only from trusted proxies: the nearest X-Forwarded-Proto entry, never without a trusted hop', () => {
    const proto = (value: string): Headers => new Headers({ 'x-forwarded-proto': value });
    expect(cameOverTls(proto('https'), 0)).toBe(false);
    expect(cameOverTls(proto('https'), 1)).toBe(true);
    expect(cameOverTls(proto('http, https'), 1)).toBe(true);
    expect(cameOverTls(proto('https, http'), 1)).toBe(false);
    expect(cameOverTls(new Headers(), 2)).toBe(false);
  });

  it('property: a request is the console\'s own only with X-Console: 1 and a same-origin signal', () => {
    const site = fc.constantFrom(undefined, 'same-origin', 'same-site', 'cross-site', 'none');
    const origin = fc.constantFrom(undefined, `https://${HOST}`, 'https://evil.example', 'null', `https://${HOST}.evil.example`);
    const referer = fc.constantFrom(undefined, `https://${HOST}/console`, 'https://evil.example/console', 'junk');
    const xConsole = fc.constantFrom(undefined, '1', '0', 'true');
    fc.assert(fc.property(xConsole, site, origin, referer, (x, s, o, r) => {
      const entries = Object.entries({ 'x-console': x, 'sec-fetch-site': s, origin: o, referer: r, host: HOST })
        .filter((e): e is [string, string] => e[1] !== undefined);
      const expected = x === '1' && (s !== undefined ? s === 'same-origin'
        : o !== undefined ? o === `https://${HOST}` : r === `https://${HOST}/console`);
      expect(isSameOriginConsoleRequest(new Headers(entries))).toBe(expected);
    }), { numRuns: 500 });
  });
});
