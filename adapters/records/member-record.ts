import type { Member } from '../../core/domain/model/member.js';
import { isMemberRole } from '../../core/domain/team-roles.js';
import { StoreError } from '../../core/domain/errors.js';
import { describeRecord } from './record-descriptor.js';

/** A team member as a document store keeps it (issue #35 item 1): the domain's fields, numbers and strings only. */
export interface StoredMember {
  id: number;
  accountId: number;
  email: string;
  role: string;
  /** SHA-256 of the invitation code; null once accepted. */
  invitationHash: string | null;
  invitedAt: number;
  /** The member's own user; null while the invitation is pending. */
  userId: number | null;
  joinedAt: number | null;
}

export function toStoredMember(member: Member): StoredMember {
  return {
    id: member.id, accountId: member.accountId, email: member.email, role: member.role, invitationHash: member.invitationHash,
    invitedAt: member.invitedAt, userId: member.userId, joinedAt: member.joinedAt,
  };
}

/** The member a stored document holds; a role outside MEMBER_ROLES is corrupted data (a permanent StoreError). */
export function fromStoredMember(doc: StoredMember): Member {
  if (!isMemberRole(doc.role)) throw new StoreError('INTERNAL-ERROR', `member ${doc.id}: unknown role ${JSON.stringify(doc.role)}`, { transient: false });
  return {
    id: doc.id, accountId: doc.accountId, email: doc.email, role: doc.role, invitationHash: doc.invitationHash ?? null,
    invitedAt: doc.invitedAt, userId: doc.userId ?? null, joinedAt: doc.joinedAt ?? null,
  };
}

/** An account's team members (`account_members`); one per (account, e-mail), a user in at most one team. */
export const MEMBER_RECORD = describeRecord({
  name: 'member', table: 'account_members', collection: 'account_members', encode: toStoredMember, decode: fromStoredMember,
  fields: {
    id: 'id', accountId: 'account_id', email: 'email', role: 'role', invitationHash: 'invitation_hash', invitedAt: 'invited_at',
    userId: 'user_id', joinedAt: 'joined_at',
  },
});
