/**
 * The operator console's cookie session (issue #38 item 2): the admin token is typed once into the sign-in form and
 * exchanged for a random session id that the cookie carries (never the token, in clear or hashed). The server keeps
 * each session's idle deadline; sign-out forgets it. The same same-origin rule as the merchant's console cookie
 * (console-session.ts) applies to every request that comes with this cookie.
 *
 * The sessions live in the API process that opened them (an operator signs in again after a restart, or on another
 * API instance without sticky routing): a handful of operators, no money, nothing worth a durable table.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { cookieValue } from './console-session.js';

/** The cookie's name, apart from the merchant's `ch_console`. */
export const ADMIN_CONSOLE_COOKIE = 'ch_admin';

/** The cookie is sent only to the admin routes: the merchant routes never see it. */
export const ADMIN_COOKIE_PATH = '/api/admin';

/** Whatever the idle timeout, a session ends this long after sign-in (as a merchant's session does). */
export const ADMIN_SESSION_MAX_MS = 24 * 60 * 60_000;

/** At most this many live sessions; the oldest is dropped for a new one beyond it (the map stays bounded). */
export const MAX_ADMIN_SESSIONS = 64;

const ID = /^as_[A-Za-z0-9_-]{43}$/;

function sha256(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

/** The admin session id a request carries in its cookie, or null (only `as_…`-shaped values are looked at). */
export function adminCookieId(headers: Headers): string | null {
  const value = cookieValue(headers.get('cookie'), ADMIN_CONSOLE_COOKIE);
  return value !== null && ID.test(value) ? value : null;
}

/** The Set-Cookie value that stores a session id: HttpOnly, SameSite=Strict, Path=/api/admin, Secure over TLS. */
export function adminSessionCookie(id: string, secure: boolean): string {
  return `${ADMIN_CONSOLE_COOKIE}=${id}; Path=${ADMIN_COOKIE_PATH}; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`;
}

/** The Set-Cookie value that clears the cookie. */
export function clearedAdminCookie(secure: boolean): string {
  return `${ADMIN_CONSOLE_COOKIE}=; Path=${ADMIN_COOKIE_PATH}; HttpOnly; SameSite=Strict; Max-Age=0${secure ? '; Secure' : ''}`;
}

interface LiveSession { readonly startedAt: number; expiresAt: number }

/** A session as the routes describe it. */
export interface AdminSessionView { readonly expiresAt: number }

/**
 * The live admin sessions of this process, keyed by the SHA-256 of their id (a memory dump shows no usable id).
 * `now` is the API's clock (the Clock port), so tests move the idle timeout with the devnet's virtual time.
 */
export class AdminConsoleSessions {
  private readonly adminDigest: Buffer;
  private readonly live = new Map<string, LiveSession>();

  constructor(adminToken: string, readonly idleMs: number, private readonly now: () => number) {
    this.adminDigest = sha256(adminToken);
  }

  /** Whether `token` is the admin token (constant time whatever its length). */
  isAdminToken(token: string): boolean {
    return timingSafeEqual(sha256(token), this.adminDigest);
  }

  /** Opens a session for a caller that presented the admin token: its id (for the cookie only) and idle deadline. */
  open(): { readonly id: string; readonly expiresAt: number } {
    const now = this.now();
    for (const [key, s] of this.live) if (s.expiresAt <= now) this.live.delete(key);
    while (this.live.size >= MAX_ADMIN_SESSIONS) this.live.delete(this.live.keys().next().value!);
    const id = `as_${randomBytes(32).toString('base64url')}`;
    const expiresAt = Math.min(now + this.idleMs, now + ADMIN_SESSION_MAX_MS);
    this.live.set(this.keyOf(id), { startedAt: now, expiresAt });
    return { id, expiresAt };
  }

  /**
   * The live session of `id`, or null when unknown, signed out or expired; `slide` (any request but a background
   * poll) moves its idle deadline, never past 24 h after sign-in.
   */
  check(id: string, slide: boolean): AdminSessionView | null {
    const key = this.keyOf(id);
    const session = this.live.get(key);
    if (session === undefined) return null;
    const now = this.now();
    if (session.expiresAt <= now) {
      this.live.delete(key);
      return null;
    }
    if (slide) session.expiresAt = Math.min(now + this.idleMs, session.startedAt + ADMIN_SESSION_MAX_MS);
    return { expiresAt: session.expiresAt };
  }

  /** Ends the session of `id` (sign-out); a no-op when unknown. */
  close(id: string): void {
    this.live.delete(this.keyOf(id));
  }

  private keyOf(id: string): string {
    return sha256(id).toString('base64url');
  }
}
