import type { Collection, Db } from 'mongodb';
import type { UserId } from '../../core/domain/model/common.js';
import type { Member } from '../../core/domain/model/member.js';
import { StoreError } from '../../core/domain/errors.js';
import { isMemberRole, type MemberRole } from '../../core/domain/team-roles.js';
import type { MemberRepository, TeamStanding } from '../../core/ports/member-repository.port.js';
import { MEMBER_RECORD, type StoredMember } from '../records/member-record.js';
import { guarded, type MongoDocument } from './mongo-support.js';
import { fromDocument, MongoTable, type MongoTableOf } from './mongo-table.js';

type MemberDocument = MongoDocument<StoredMember>;

const decode = (doc: MemberDocument): Member => fromDocument(MEMBER_RECORD, doc);

/** A stored role, checked as the codec checks it. */
function roleOf(role: string, id: number): MemberRole {
  if (!isMemberRole(role)) throw new StoreError('INTERNAL-ERROR', `member ${id}: unknown role ${JSON.stringify(role)}`, { transient: false });
  return role;
}

/**
 * MemberRepository on MongoDB (issue #35 item 1), `_id` the member id, through the shared record codec. The indexes
 * carry the rules PostgreSQL's table does (mongo-indexes.ts): one member per (account, e-mail), a user in at most one
 * team (a unique partial index on a numeric userId), and the account's members by id.
 */
export class MongoMemberRepository implements MemberRepository {
  private readonly table: MongoTableOf<typeof MEMBER_RECORD>;
  private readonly members: Collection<MemberDocument>;

  constructor(db: Db) {
    this.table = new MongoTable(db, MEMBER_RECORD);
    this.members = this.table.typed();
  }

  create(member: Member): Promise<boolean> {
    return guarded('members.create', () => this.table.insertOnce(member));
  }

  listByAccount(accountId: UserId): Promise<readonly Member[]> {
    return guarded('members.listByAccount', async () => (await this.members.find({ accountId }).sort({ _id: 1 }).toArray()).map(decode));
  }

  findInvitation(email: string, invitationHash: string): Promise<Member | null> {
    return guarded('members.findInvitation', async () => {
      const doc = await this.members.findOne({ email, invitationHash, userId: null });
      return doc === null ? null : decode(doc);
    });
  }

  accept(id: number, userId: UserId, joinedAt: number): Promise<boolean> {
    return guarded('members.accept', async () => {
      const result = await this.members.updateOne({ _id: id, userId: null }, { $set: { userId, joinedAt, invitationHash: null } });
      return result.matchedCount === 1;
    });
  }

  setRole(accountId: UserId, id: number, role: MemberRole): Promise<boolean> {
    return guarded('members.setRole', async () => (await this.members.updateOne({ _id: id, accountId }, { $set: { role } })).matchedCount === 1);
  }

  remove(accountId: UserId, id: number): Promise<Member | null> {
    return guarded('members.remove', async () => {
      const doc = await this.members.findOneAndDelete({ _id: id, accountId });
      return doc === null ? null : decode(doc);
    });
  }

  standingOf(userId: UserId): Promise<TeamStanding | null> {
    return guarded('members.standingOf', async () => {
      // The user's own membership first (the unique userId index), else whether the user owns an account with members.
      const own = await this.members.findOne({ userId }, { projection: { accountId: 1, role: 1 } });
      if (own !== null) return { accountId: own.accountId, role: roleOf(own.role, own._id) };
      const owned = await this.members.findOne({ accountId: userId }, { projection: { _id: 1 } });
      return owned === null ? null : { accountId: userId, role: 'owner' };
    });
  }
}
