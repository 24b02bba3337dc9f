import type { Collection, Db } from 'mongodb';
import type { AuditEntry, UserId } from '../../core/domain/model/index.js';
import type { AuditLog } from '../../core/ports/audit-log.port.js';
import type { Page, PageRequest } from '../../core/ports/page.js';
import { fromStoredAuditEntry, toStoredAuditEntry, type StoredAuditEntry } from '../records/audit-record.js';
import { COLLECTIONS } from './collections.js';
import { guarded, isDuplicateKey, pageFrom } from './mongo-support.js';

/** `audit_entries`: the record plus `_id` `${userId}:${seq}`, so the server refuses a second entry at one seq. */
type AuditDocument = StoredAuditEntry & { _id: string };

function fromDocument(doc: AuditDocument): AuditEntry {
  const { _id: _ignored, ...record } = doc;
  return fromStoredAuditEntry(record);
}

/** The audit chains on MongoDB: an append at a taken seq meets the duplicate `_id` (and the unique user_seq index). */
export class MongoAuditLog implements AuditLog {
  private readonly entries: Collection<AuditDocument>;

  private readonly locks: Collection<{ _id: string; n: number }>;

  constructor(db: Db) {
    this.entries = db.collection<AuditDocument>(COLLECTIONS.auditEntries);
    this.locks = db.collection<{ _id: string; n: number }>(COLLECTIONS.policyLocks);
  }

  head(userId: UserId): Promise<AuditEntry | null> {
    return guarded('audit head', async () => {
      const doc = await this.entries.findOne({ userId }, { sort: { seq: -1 } });
      return doc === null ? null : fromDocument(doc);
    });
  }

  /**
   * Inside an atomic scope (a transaction, decision 144) a duplicate key would abort the whole transaction, so the
   * account's lock document is updated first: a second scope appending to the same account meets a write conflict
   * there, which the driver retries with the whole scope, reading the new head. Outside a scope it is one write more.
   */
  insert(entry: AuditEntry): Promise<boolean> {
    return guarded('audit append', async () => {
      await this.locks.updateOne({ _id: `audit:${entry.userId}` }, { $inc: { n: 1 } }, { upsert: true });
      try {
        await this.entries.insertOne({ _id: `${entry.userId}:${entry.seq}`, ...toStoredAuditEntry(entry) });
        return true;
      } catch (error) {
        if (isDuplicateKey(error)) return false;
        throw error;
      }
    });
  }

  list(userId: UserId, page: PageRequest): Promise<Page<AuditEntry>> {
    return guarded('audit list', () => pageFrom(
      () => this.entries.countDocuments({ userId }),
      async (skip, limit) => (await this.entries.find({ userId }).sort({ seq: -1 }).skip(skip).limit(limit).toArray()).map(fromDocument),
      page,
    ));
  }

  readChain(userId: UserId, afterSeq: number, limit: number): Promise<AuditEntry[]> {
    return guarded('audit read', async () => (
      await this.entries.find({ userId, seq: { $gt: afterSeq } }).sort({ seq: 1 }).limit(limit).toArray()
    ).map(fromDocument));
  }

  listAccounts(afterUserId: UserId, limit: number): Promise<UserId[]> {
    return guarded('audit accounts', async () => {
      const rows = await this.entries.aggregate<{ _id: number }>([
        { $match: { userId: { $gt: afterUserId } } }, { $group: { _id: '$userId' } }, { $sort: { _id: 1 } }, { $limit: limit },
      ]).toArray();
      return rows.map((row) => row._id);
    });
  }
}
