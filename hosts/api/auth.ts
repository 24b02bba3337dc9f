import { createHash, timingSafeEqual } from 'node:crypto';
import type { Application, CashierContext } from '../../core/application/index.js';
import { API_ACCESS_ABILITY } from '../../core/domain/model/account.js';
import { DomainError } from '../../core/domain/errors.js';
import type { TeamRole } from '../../core/domain/team-roles.js';
import { CONSOLE_POLL_HEADER, consoleCookieToken, DEFAULT_CONSOLE_IDLE_MS, isSameOriginConsoleRequest } from './console/console-session.js';
import { adminCookieId, type AdminConsoleSessions } from './console/admin-session.js';

/** Which credential a route takes: none, a Developer API Token, a session token, a cashier token or the admin token. */
export type AuthKind = 'none' | 'developer' | 'session' | 'cashier' | 'admin';

export interface AnonymousCaller { readonly kind: 'none' }
export interface DeveloperCaller { readonly kind: 'developer'; readonly userId: number; readonly tokenId: number }
/**
 * The raw session token is kept for logout, which revokes exactly the presented session. `userId` is the account the
 * session acts on; `actorUserId` the session's own user (a member of a team, issue #35 item 1; else the same), whose
 * own two-factor the 2FA routes and the step-up use; `member` is present only in an account with members.
 */
export interface SessionCaller {
  readonly kind: 'session';
  readonly userId: number;
  readonly token: string;
  readonly actorUserId: number;
  readonly member?: { readonly userId: number; readonly role: TeamRole; readonly twoFactorOn: boolean };
  /** Present when the session came in the console's cookie (issue #38), not in an Authorization header. */
  readonly viaCookie?: true;
}
export interface CashierCaller { readonly kind: 'cashier'; readonly ctx: CashierContext }
export interface AdminCaller {
  readonly kind: 'admin';
  /** The operator console's session id (issue #38 item 2), when the admin came in its cookie rather than with the token. */
  readonly consoleSessionId?: string;
}

/** The authenticated caller of a route of kind K. */
export type CallerOf<K extends AuthKind> =
  // The console's cookie session reaches the developer routes as itself (issue #38): handlers read only `userId`.
  K extends 'developer' ? DeveloperCaller | SessionCaller
    : K extends 'session' ? SessionCaller
      : K extends 'cashier' ? CashierCaller
        : K extends 'admin' ? AdminCaller
          : AnonymousCaller;

export type Caller = AnonymousCaller | DeveloperCaller | SessionCaller | CashierCaller | AdminCaller;

const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

/** The token of an `Authorization: Bearer <token>` header, or null when absent or of another scheme. */
export function bearerToken(header: string | null): string | null {
  if (header === null) return null;
  return BEARER.exec(header)?.[1] ?? null;
}

function sha256(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

/** Token kind by prefix; anything without a known prefix can only be the admin token. */
function kindOf(token: string): Exclude<AuthKind, 'none'> {
  if (token.startsWith('dk_')) return 'developer';
  if (token.startsWith('st_')) return 'session';
  if (token.startsWith('ct_')) return 'cashier';
  return 'admin';
}

/**
 * Resolves the bearer token of a request for a route's auth kind. A valid token of another kind is 403 FORBIDDEN
 * (the caller is known but may not use this route); a missing or unknown token is 401 — UNAUTHENTICATED, or on the
 * cashier routes CASHIER-TOKEN-MISSING / CASHIER-TOKEN-INVALID (spec §4).
 */
export class BearerAuthenticator {
  private readonly adminDigest: Buffer;

  /** `adminSessions`: the operator console's sessions (issue #38 item 2); without them the admin cookie is never read. */
  constructor(
    private readonly app: Application, adminToken: string, private readonly consoleIdleMs = DEFAULT_CONSOLE_IDLE_MS,
    private readonly adminSessions?: AdminConsoleSessions,
  ) {
    // Comparing fixed-length digests keeps the comparison constant-time whatever the presented length.
    this.adminDigest = sha256(adminToken);
  }

  /**
   * `headers` (the request's) let the console's cookie stand in for a missing Authorization header on the session and
   * developer routes (issue #38); with an Authorization header, or on other kinds, the cookie is never looked at.
   */
  async authenticate<K extends AuthKind>(kind: K, authorization: string | null, headers?: Headers): Promise<CallerOf<K>> {
    if (kind === 'none') return { kind: 'none' } as CallerOf<K>;
    if (authorization === null && headers !== undefined && (kind === 'session' || kind === 'developer')) {
      const cookie = consoleCookieToken(headers);
      if (cookie !== null) return (await this.fromCookie(kind, cookie, headers)) as CallerOf<K>;
    }
    // The operator console's cookie stands in for the admin token on the admin routes only (issue #38 item 2).
    if (authorization === null && headers !== undefined && kind === 'admin' && this.adminSessions !== undefined) {
      const id = adminCookieId(headers);
      if (id !== null) return this.fromAdminCookie(this.adminSessions, id, headers) as CallerOf<K>;
    }
    const token = bearerToken(authorization);
    if (kind === 'cashier') {
      if (token === null) return { kind: 'cashier', ctx: await this.app.cashier.authenticateCashier(null) } as CallerOf<K>;
      if (kindOf(token) !== 'cashier') throw await this.wrongKind(token, 'CASHIER-TOKEN-INVALID');
      return { kind: 'cashier', ctx: await this.app.cashier.authenticateCashier(token) } as CallerOf<K>;
    }
    if (token === null) throw new DomainError('UNAUTHENTICATED');
    if (kindOf(token) !== kind) throw await this.wrongKind(token, 'UNAUTHENTICATED');
    return (await this.resolve(kind, token)) as CallerOf<K>;
  }

  private async resolve(kind: 'developer' | 'session' | 'admin', token: string): Promise<Caller> {
    if (kind === 'admin') {
      if (!this.isAdmin(token)) throw new DomainError('UNAUTHENTICATED');
      return { kind: 'admin' };
    }
    if (kind === 'session') {
      const session = await this.app.accounts.authenticateSession(token);
      if (session === null) throw new DomainError('UNAUTHENTICATED');
      return session.member === undefined
        ? { kind: 'session', userId: session.userId, token, actorUserId: session.userId }
        : { kind: 'session', userId: session.userId, token, actorUserId: session.member.userId, member: session.member };
    }
    const principal = await this.app.apiTokens.authenticateApiToken(token);
    if (principal === null) throw new DomainError('UNAUTHENTICATED');
    if (!principal.abilities.includes(API_ACCESS_ABILITY)) throw new DomainError('FORBIDDEN');
    return { kind: 'developer', userId: principal.userId, tokenId: principal.tokenId };
  }

  /**
   * The console's cookie session (issue #38 item 4): refused (403) unless the request is the console's own
   * same-origin call; on a developer route only when the account has API access (an active developer subscription,
   * what a developer token needs). A request that is not a background poll slides the idle timeout.
   */
  private async fromCookie(kind: 'session' | 'developer', token: string, headers: Headers): Promise<SessionCaller> {
    if (!isSameOriginConsoleRequest(headers)) {
      throw new DomainError('FORBIDDEN', { message: 'cross-site request refused: the console cookie is accepted only on same-origin requests with X-Console: 1' });
    }
    const session = await this.app.accounts.authenticateSession(token);
    if (session === null) throw new DomainError('UNAUTHENTICATED');
    if (kind === 'developer' && (await this.app.subscriptions.getDeveloperConfig(session.userId)).status !== 'active') {
      throw new DomainError('FORBIDDEN', { message: 'the account has no API access: activate the developer subscription' });
    }
    if (headers.get(CONSOLE_POLL_HEADER) !== '1' && (await this.app.accounts.slideSession(token, this.consoleIdleMs)) === null) {
      throw new DomainError('UNAUTHENTICATED');
    }
    return session.member === undefined
      ? { kind: 'session', userId: session.userId, token, actorUserId: session.userId, viaCookie: true }
      : { kind: 'session', userId: session.userId, token, actorUserId: session.member.userId, member: session.member, viaCookie: true };
  }

  /**
   * The operator console's cookie session: the same same-origin rule as the merchant's cookie (403 otherwise), 401 once
   * the session is unknown, signed out or idle too long; a request that is not a background poll slides it.
   */
  private fromAdminCookie(sessions: AdminConsoleSessions, id: string, headers: Headers): AdminCaller {
    if (!isSameOriginConsoleRequest(headers)) {
      throw new DomainError('FORBIDDEN', { message: 'cross-site request refused: the console cookie is accepted only on same-origin requests with X-Console: 1' });
    }
    if (sessions.check(id, headers.get(CONSOLE_POLL_HEADER) !== '1') === null) {
      throw new DomainError('UNAUTHENTICATED', { message: 'the operator console session ended: sign in again with the admin token' });
    }
    return { kind: 'admin', consoleSessionId: id };
  }

  /** 403 when the token is valid for its own kind, else the route's 401 code. */
  private async wrongKind(token: string, unauthenticated: 'UNAUTHENTICATED' | 'CASHIER-TOKEN-INVALID'): Promise<DomainError> {
    return (await this.isValid(token)) ? new DomainError('FORBIDDEN') : new DomainError(unauthenticated);
  }

  private async isValid(token: string): Promise<boolean> {
    switch (kindOf(token)) {
      case 'developer': return (await this.app.apiTokens.authenticateApiToken(token)) !== null;
      case 'session': return (await this.app.accounts.authenticateSession(token)) !== null;
      case 'cashier':
        return this.app.cashier.authenticateCashier(token).then(() => true, () => false);
      default: return this.isAdmin(token);
    }
  }

  private isAdmin(token: string): boolean {
    return timingSafeEqual(sha256(token), this.adminDigest);
  }
}
