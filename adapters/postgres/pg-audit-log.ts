import type pg from 'pg';
import type { AuditEntry, UserId } from '../../core/domain/model/index.js';
import type { AuditLog } from '../../core/ports/audit-log.port.js';
import type { Page, PageRequest } from '../../core/ports/page.js';
import { AUDIT_ENTRY_RECORD } from '../records/audit-record.js';
import { guarded } from './pg-support.js';
import { PgTable } from './pg-table.js';

/** `audit_entries` (migration 0014) from its descriptor: the primary key (user_id, seq) makes an append at a taken seq write nothing. */
const ENTRIES = new PgTable(AUDIT_ENTRY_RECORD);

/** The audit chains on PostgreSQL: reads and the insert-once append from the descriptor; the chain itself is the core's. */
export class PgAuditLog implements AuditLog {
  constructor(private readonly pool: pg.Pool) {}

  head(userId: UserId): Promise<AuditEntry | null> {
    return guarded('audit head', () => ENTRIES.first(this.pool, 'user_id = $1', [userId], 'seq DESC'));
  }

  insert(entry: AuditEntry): Promise<boolean> {
    return guarded('audit append', () => ENTRIES.insertOnce(this.pool, entry, 'ON CONSTRAINT audit_entries_pkey'));
  }

  list(userId: UserId, page: PageRequest): Promise<Page<AuditEntry>> {
    return guarded('audit list', () => ENTRIES.page(this.pool, { where: 'user_id = $1', order: 'seq DESC', params: [userId] }, page));
  }

  readChain(userId: UserId, afterSeq: number, limit: number): Promise<AuditEntry[]> {
    return guarded('audit read', () => ENTRIES.select(this.pool, 'user_id = $1 AND seq > $2', [userId, afterSeq], 'seq', limit));
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
