import type { Collection, Db } from 'mongodb';
import type { AuditEntry, UserId } from '../../core/domain/model/index.js';
import type { AuditLog } from '../../core/ports/audit-log.port.js';
import type { Page, PageRequest } from '../../core/ports/page.js';
import { AUDIT_ENTRY_RECORD } from '../records/audit-record.js';
import { COLLECTIONS } from './collections.js';
import { guarded } from './mongo-support.js';
import { MongoTable, type MongoTableOf } from './mongo-table.js';

/** The audit chains on MongoDB: an append at a taken seq meets the duplicate `_id` (and the unique user_seq index). */
export class MongoAuditLog implements AuditLog {
  /** `audit_entries` from its descriptor: the record plus `_id` `${userId}:${seq}`, so the server refuses a second entry at one seq. */
  private readonly entries: MongoTableOf<typeof AUDIT_ENTRY_RECORD>;

  private readonly locks: Collection<{ _id: string; n: number }>;

  constructor(db: Db) {
    this.entries = new MongoTable(db, AUDIT_ENTRY_RECORD);
    this.locks = db.collection<{ _id: string; n: number }>(COLLECTIONS.policyLocks);
  }

  head(userId: UserId): Promise<AuditEntry | null> {
    return guarded('audit head', () => this.entries.first({ userId }, { seq: -1 }));
  }

  /**
   * Inside an atomic scope (a transaction, decision 144) a duplicate key would abort the whole transaction, so the
   * account's lock document is updated first: a second scope appending to the same account meets a write conflict
   * there, which the driver retries with the whole scope, reading the new head. Outside a scope it is one write more.
   */
  insert(entry: AuditEntry): Promise<boolean> {
    return guarded('audit append', async () => {
      await this.locks.updateOne({ _id: `audit:${entry.userId}` }, { $inc: { n: 1 } }, { upsert: true });
      return this.entries.insertOnce(entry);
    });
  }

  list(userId: UserId, page: PageRequest): Promise<Page<AuditEntry>> {
    return guarded('audit list', () => this.entries.page({ userId }, { seq: -1 }, page));
  }

  readChain(userId: UserId, afterSeq: number, limit: number): Promise<AuditEntry[]> {
    return guarded('audit read', () => this.entries.find({ userId, seq: { $gt: afterSeq } }, { seq: 1 }, limit));
  }

  listAccounts(afterUserId: UserId, limit: number): Promise<UserId[]> {
    return guarded('audit accounts', async () => {
      const rows = await this.entries.collection.aggregate<{ _id: number }>([
        { $match: { userId: { $gt: afterUserId } } }, { $group: { _id: '$userId' } }, { $sort: { _id: 1 } }, { $limit: limit },
      ]).toArray();
      return rows.map((row) => row._id);
    });
  }
}
