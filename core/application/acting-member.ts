import { AsyncLocalStorage } from 'node:async_hooks';
import type { AuditActor } from '../domain/model/audit.js';
import type { UserId } from '../domain/model/common.js';
import type { TeamRole } from '../domain/team-roles.js';

/**
 * Who is acting in a team account (issue #35 item 1): the member's own user and role, while the account (its owner's
 * user id) owns every resource. The API host runs each session request inside `actAs`, so the audit trail names the
 * member and a withdrawal records its requester without every use case taking one more argument. Outside a request
 * (the worker, tests calling use cases directly) nobody is acting.
 */
export interface ActingMember {
  readonly userId: UserId;
  readonly role: TeamRole;
}

const acting = new AsyncLocalStorage<ActingMember>();

/** Runs `work` with `member` acting. */
export function actAs<T>(member: ActingMember, work: () => Promise<T>): Promise<T> {
  return acting.run(member, work);
}

/** The member acting in the current request, or undefined (a solo account, a developer token, the worker). */
export function actingMember(): ActingMember | undefined {
  return acting.getStore();
}

/**
 * Where the request being served comes from (issue #35 item 8): every audit entry it causes carries the client address
 * and the user agent, and names its caller (a session's user, an API token). Set by the API host for every request,
 * solo sessions, API tokens and sign-in included; the worker and direct use-case calls have none.
 */
export interface RequestOrigin {
  /** The client's address as the API host sees it (the socket's peer or what the trusted proxies vouch for). */
  readonly clientAddress: string | null;
  /** The request's User-Agent header, cut to MAX_USER_AGENT characters. */
  readonly userAgent: string | null;
  /** The authenticated caller, when there is one: a session's acting user or an API token (its id). */
  readonly actor: AuditActor | null;
}

/** The longest user agent kept: a client sets the header, so its length is the client's choice. */
export const MAX_USER_AGENT = 256;

const origins = new AsyncLocalStorage<RequestOrigin>();

/** Runs `work` on behalf of a request from `origin`. */
export function fromOrigin<T>(origin: RequestOrigin, work: () => Promise<T>): Promise<T> {
  return origins.run(origin, work);
}

/** The origin of the request being served, or undefined (the worker, tests calling use cases directly). */
export function requestOrigin(): RequestOrigin | undefined {
  return origins.getStore();
}
