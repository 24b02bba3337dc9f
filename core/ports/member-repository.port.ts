import type { Member } from '../domain/model/member.js';
import type { MemberRole } from '../domain/team-roles.js';
import type { UserId } from '../domain/model/common.js';

/** Where a session's user stands in a team: the account it acts on and its role there. */
export interface TeamStanding {
  readonly accountId: UserId;
  readonly role: 'owner' | MemberRole;
}

/** Accounts' team members (issue #35 item 1). */
export interface MemberRepository {
  /** Stores a new invitation; false (nothing written) when the account already has a member of that e-mail. */
  create(member: Member): Promise<boolean>;
  /** The account's members, pending invitations included, by id. */
  listByAccount(accountId: UserId): Promise<readonly Member[]>;
  /** The pending invitation of `email` whose code hashes to `invitationHash`, or null. */
  findInvitation(email: string, invitationHash: string): Promise<Member | null>;
  /**
   * Accepts a pending invitation: sets its user and join time and clears its code, only while it is still pending;
   * false when it is not (accepted already or removed).
   */
  accept(id: number, userId: UserId, joinedAt: number): Promise<boolean>;
  /** Sets the role of the account's member `id`; false when it has no such member. */
  setRole(accountId: UserId, id: number, role: MemberRole): Promise<boolean>;
  /** Deletes the account's member `id`; the removed member, or null when it had none. */
  remove(accountId: UserId, id: number): Promise<Member | null>;
  /**
   * The standing of `userId`: a joined member's account and role; the owner of an account with at least one member
   * (pending or joined) as 'owner'; null for a solo account's owner (today's rules) or a user of no team. One read.
   */
  standingOf(userId: UserId): Promise<TeamStanding | null>;
}
