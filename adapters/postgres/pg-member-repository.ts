import type pg from 'pg';
import type { Member } from '../../core/domain/model/member.js';
import type { UserId } from '../../core/domain/model/common.js';
import type { MemberRole } from '../../core/domain/team-roles.js';
import type { MemberRepository, TeamStanding } from '../../core/ports/member-repository.port.js';
import { prepared } from './pg-prepared.js';
import { guarded, insertOnce, type Row } from './pg-support.js';

const COLUMNS = 'id, account_id, email, role, invitation_hash, invited_at, user_id, joined_at';

function decode(row: Row): Member {
  const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
  return {
    id: Number(row['id']), accountId: Number(row['account_id']), email: row['email'] as string, role: row['role'] as MemberRole,
    invitationHash: row['invitation_hash'] as string | null, invitedAt: Number(row['invited_at']),
    userId: num(row['user_id']), joinedAt: num(row['joined_at']),
  };
}

/** MemberRepository on PostgreSQL (migration 0026, table account_members). */
export class PgMemberRepository implements MemberRepository {
  constructor(private readonly pool: pg.Pool) {}

  create(member: Member): Promise<boolean> {
    return guarded('members.create', () => insertOnce(this.pool, 'account_members', {
      id: member.id, account_id: member.accountId, email: member.email, role: member.role, invitation_hash: member.invitationHash,
      invited_at: member.invitedAt, user_id: member.userId, joined_at: member.joinedAt,
    }));
  }

  listByAccount(accountId: UserId): Promise<readonly Member[]> {
    return guarded('members.listByAccount', async () => {
      const { rows } = await this.pool.query(`SELECT ${COLUMNS} FROM account_members WHERE account_id = $1 ORDER BY id`, [accountId]);
      return rows.map(decode);
    });
  }

  findInvitation(email: string, invitationHash: string): Promise<Member | null> {
    return guarded('members.findInvitation', async () => {
      const { rows } = await this.pool.query(
        `SELECT ${COLUMNS} FROM account_members WHERE email = $1 AND invitation_hash = $2 AND user_id IS NULL`, [email, invitationHash],
      );
      return rows[0] === undefined ? null : decode(rows[0]);
    });
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
      const { rows } = await this.pool.query(`DELETE FROM account_members WHERE id = $2 AND account_id = $1 RETURNING ${COLUMNS}`, [accountId, id]);
      return rows[0] === undefined ? null : decode(rows[0]);
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
