import { AsyncLocalStorage } from 'node:async_hooks';
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
