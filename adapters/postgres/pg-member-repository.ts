import type pg from 'pg';
import type { Member } from '../../core/domain/model/member.js';
import type { UserId } from '../../core/domain/model/common.js';
import type { MemberRole } from '../../core/domain/team-roles.js';
import type { MemberRepository, TeamStanding } from '../../core/ports/member-repository.port.js';
import { prepared } from './pg-prepared.js';
import { MEMBER_RECORD } from '../records/member-record.js';
import { guarded, type Row } from './pg-support.js';
import { PgTable } from './pg-table.js';

/** The `account_members` table, from the record's descriptor. */
const MEMBERS = new PgTable(MEMBER_RECORD);

/** MemberRepository on PostgreSQL (migration 0026, table account_members). */
export class PgMemberRepository implements MemberRepository {
  constructor(private readonly pool: pg.Pool) {}

  create(member: Member): Promise<boolean> {
    return guarded('members.create', () => MEMBERS.insertOnce(this.pool, member));
  }

  listByAccount(accountId: UserId): Promise<readonly Member[]> {
    return guarded('members.listByAccount', () => MEMBERS.select(this.pool, 'account_id = $1', [accountId], 'id'));
  }

  findInvitation(email: string, invitationHash: string): Promise<Member | null> {
    return guarded('members.findInvitation', () =>
      MEMBERS.first(this.pool, 'email = $1 AND invitation_hash = $2 AND user_id IS NULL', [email, invitationHash]));
  }

  accept(id: number, userId: UserId, joinedAt: number): Promise<boolean> {
    return guarded('members.accept', async () => {
      const result = await this.pool.query(
        'UPDATE account_members SET user_id = $2, joined_at = $3, invitation_hash = NULL WHERE id = $1 AND user_id IS NULL', [id, userId, joinedAt],
      );
      return result.rowCount === 1;
    });
  }

  setRole(accountId: UserId, id: number, role: MemberRole): Promise<boolean> {
    return guarded('members.setRole', async () => {
      const result = await this.pool.query('UPDATE account_members SET role = $3 WHERE id = $2 AND account_id = $1', [accountId, id, role]);
      return result.rowCount === 1;
    });
  }

  remove(accountId: UserId, id: number): Promise<Member | null> {
    return guarded('members.remove', async () => {
      const { rows } = await this.pool.query(`DELETE FROM account_members WHERE id = $2 AND account_id = $1 RETURNING ${MEMBERS.columns}`, [accountId, id]);
      return rows[0] === undefined ? null : MEMBERS.fromRow(rows[0] as Row);
    });
  }

  standingOf(userId: UserId): Promise<TeamStanding | null> {
    return guarded('members.standingOf', async () => {
      // One named statement on every session request (a hot read): the user's own membership first, else whether the
      // user owns an account with members (the unique user_id and the account_id prefix of UNIQUE (account_id, email)).
      const { rows } = await prepared(this.pool).query(
        `(SELECT account_id, role FROM account_members WHERE user_id = $1)
         UNION ALL (SELECT account_id, 'owner' FROM account_members WHERE account_id = $1 LIMIT 1) LIMIT 1`, [userId],
      );
      const row = rows[0];
      return row === undefined ? null : { accountId: Number(row['account_id']), role: row['role'] as TeamStanding['role'] };
    });
  }
}
