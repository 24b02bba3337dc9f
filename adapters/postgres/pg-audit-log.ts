import type pg from 'pg';
import type { AuditEntry, UserId } from '../../core/domain/model/index.js';
import type { AuditLog } from '../../core/ports/audit-log.port.js';
import type { Page, PageRequest } from '../../core/ports/page.js';
import { fromStoredAuditEntry, toStoredAuditEntry } from '../records/audit-record.js';
import { guarded, insertOnce, jsonb, pageOf, type Row } from './pg-support.js';

function toRow(entry: AuditEntry): Row {
  const r = toStoredAuditEntry(entry);
  return {
    user_id: r.userId, seq: r.seq, at: r.at, action: r.action, actor_kind: r.actorKind, actor_id: r.actorId,
    detail: jsonb(r.detail), prev_hash: r.prevHash, hash: r.hash,
  };
}

function fromRow(row: Row): AuditEntry {
  return fromStoredAuditEntry({
    userId: row['user_id'] as number, seq: row['seq'] as number, at: row['at'] as number, action: row['action'] as string,
    actorKind: row['actor_kind'] as string, actorId: row['actor_id'] as string | null,
    detail: row['detail'] as Record<string, string | number | boolean | null>, prevHash: row['prev_hash'] as string,
    hash: row['hash'] as string,
  });
}

/** `audit_entries` (migration 0014): the primary key (user_id, seq) makes an append at a taken seq write nothing. */
export class PgAuditLog implements AuditLog {
  constructor(private readonly pool: pg.Pool) {}

  head(userId: UserId): Promise<AuditEntry | null> {
    return guarded('audit head', async () => {
      const { rows } = await this.pool.query('SELECT * FROM audit_entries WHERE user_id = $1 ORDER BY seq DESC LIMIT 1', [userId]);
      return rows.length === 0 ? null : fromRow(rows[0] as Row);
    });
  }

  insert(entry: AuditEntry): Promise<boolean> {
    return guarded('audit append', () => insertOnce(this.pool, 'audit_entries', toRow(entry), 'ON CONSTRAINT audit_entries_pkey'));
  }

  list(userId: UserId, page: PageRequest): Promise<Page<AuditEntry>> {
    return guarded('audit list', () => pageOf(
      this.pool, { table: 'audit_entries', where: 'user_id = $1', order: 'seq DESC', params: [userId] }, fromRow, page,
    ));
  }

  readChain(userId: UserId, afterSeq: number, limit: number): Promise<AuditEntry[]> {
    return guarded('audit read', async () => {
      const { rows } = await this.pool.query(
        'SELECT * FROM audit_entries WHERE user_id = $1 AND seq > $2 ORDER BY seq LIMIT $3', [userId, afterSeq, limit],
      );
      return (rows as Row[]).map(fromRow);
    });
  }

  listAccounts(afterUserId: UserId, limit: number): Promise<UserId[]> {
    return guarded('audit accounts', async () => {
      const { rows } = await this.pool.query<{ user_id: number }>(
        'SELECT DISTINCT user_id FROM audit_entries WHERE user_id > $1 ORDER BY user_id LIMIT $2', [afterUserId, limit],
      );
      return rows.map((row) => row.user_id);
    });
  }
}
