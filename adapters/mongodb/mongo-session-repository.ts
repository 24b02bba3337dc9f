import type { Db } from 'mongodb';
import type { Millis, Session, UserId } from '../../core/domain/model/index.js';
import type { SessionRepository } from '../../core/ports/session-repository.port.js';
import { SESSION_RECORD } from '../records/account-record.js';
import { guarded, isDuplicateKey } from './mongo-support.js';
import { MongoTable, type MongoTableOf } from './mongo-table.js';

/** Sessions keyed by the SHA-256 of their token. */
export class MongoSessionRepository implements SessionRepository {
  private readonly table: MongoTableOf<typeof SESSION_RECORD>;

  constructor(db: Db) {
    this.table = new MongoTable(db, SESSION_RECORD);
  }

  private get sessions() {
    return this.table.collection;
  }

  create(session: Session): Promise<void> {
    return guarded('session create', async () => {
      const doc = this.table.toDocument(session);
      // A token hash names one session; writing the same one twice stores the latest, as the memory adapter does.
      try {
        await this.sessions.replaceOne({ _id: doc._id }, doc, { upsert: true });
      } catch (error) {
        // Two first writes raced to insert (servers before 4.2 do not retry such upserts): the loser replaces.
        if (!isDuplicateKey(error)) throw error;
        await this.sessions.replaceOne({ _id: doc._id }, doc);
      }
    });
  }

  findByTokenHash(tokenHash: string): Promise<Session | null> {
    return guarded('session read', () => this.table.get(tokenHash));
  }

  revoke(tokenHash: string, at: number): Promise<void> {
    return guarded('session revoke', async () => {
      await this.sessions.updateOne({ _id: tokenHash, revokedAt: null }, { $set: { revokedAt: at } });
    });
  }

  setExpiry(tokenHash: string, expiresAt: Millis): Promise<void> {
    return guarded('session expiry', async () => {
      await this.sessions.updateOne({ _id: tokenHash, revokedAt: null }, { $set: { expiresAt } });
    });
  }

  revokeAllOfUser(userId: UserId, at: Millis): Promise<number> {
    return guarded('session revoke', async () => {
      const result = await this.sessions.updateMany({ userId, revokedAt: null }, { $set: { revokedAt: at } });
      return result.modifiedCount;
    });
  }
}
