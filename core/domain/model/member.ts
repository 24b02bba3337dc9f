import type { Millis, UserId } from './common.js';
import type { MemberRole } from '../team-roles.js';

/**
 * A member of an account's team (issue #35 item 1): invited by e-mail (pending while `userId` is null), joined by
 * registering with the invitation code. The account (its owner's user id) owns every resource a member acts on.
 */
export interface Member {
  readonly id: number;
  readonly accountId: UserId;
  readonly email: string;
  readonly role: MemberRole;
  /** SHA-256 of the invitation code mailed to `email`; null once accepted. */
  readonly invitationHash: string | null;
  readonly invitedAt: Millis;
  /** The member's own user (their login); null while the invitation is pending. */
  readonly userId: UserId | null;
  readonly joinedAt: Millis | null;
}
