import type { Collection, Db } from 'mongodb';
import { ConcurrencyConflict } from '../../core/domain/errors.js';
import type { ApiToken, UserId } from '../../core/domain/model/index.js';
import type { ApiTokenRepository } from '../../core/ports/api-token-repository.port.js';
import { API_TOKEN_RECORD } from '../records/account-record.js';
import type { ApiTokenDocument } from './mongo-documents.js';
import { MongoTable, type MongoTableOf } from './mongo-table.js';
import { guarded, isDuplicateKey } from './mongo-support.js';

/** Developer API tokens; ids and token hashes are both unique (the hash by index). */
export class MongoApiTokenRepository implements ApiTokenRepository {
  private readonly table: MongoTableOf<typeof API_TOKEN_RECORD>;
  private readonly tokens: Collection<ApiTokenDocument>;

  constructor(db: Db) {
    this.table = new MongoTable(db, API_TOKEN_RECORD);
    this.tokens = this.table.typed();
  }

  create(token: ApiToken): Promise<void> {
    return guarded('api token create', async () => {
      try {
        await this.table.insert(token);
      } catch (error) {
        if (!isDuplicateKey(error)) throw error;
        throw new ConcurrencyConflict('api token', String(token.id));
      }
    });
  }

  /**
   * Takes the lowest free slot below `max` among the user's unrevoked tokens and inserts with it; the partial unique
   * index on (userId, activeSlot) refuses a slot another process took meanwhile, and the next round reads again.
   */
  createWithinCap(token: ApiToken, max: number): Promise<boolean> {
    return guarded('api token create', async () => {
      for (;;) {
        const held = await this.tokens.find({ userId: token.userId, activeSlot: { $exists: true } }, { projection: { activeSlot: 1 } }).toArray();
        const taken = new Set(held.map((d) => d.activeSlot));
        let slot = 0;
        while (taken.has(slot)) slot += 1;
        if (slot >= max) return false;
        try {
          await this.table.insert(token, { activeSlot: slot });
          return true;
        } catch (error) {
          if (isDuplicateKey(error, 'activeSlot')) continue;
          if (!isDuplicateKey(error)) throw error;
          throw new ConcurrencyConflict('api token', String(token.id));
        }
      }
    });
  }

  listActiveByUser(userId: UserId): Promise<ApiToken[]> {
    return guarded('api token list', async () =>
      this.table.find({ userId, revokedAt: null }, { _id: 1 }));
  }

  setExpiry(id: number, expiresAt: number | null): Promise<ApiToken | null> {
    return guarded('api token expiry', async () => {
      await this.tokens.updateOne({ _id: id, revokedAt: null }, { $set: { expiresAt, reviewSince: null } });
      return this.table.get(id);
    });
  }

  markAllForReview(userId: UserId, at: number): Promise<number> {
    return guarded('api token review', async () => {
      const result = await this.tokens.updateMany(
        { userId, revokedAt: null, $or: [{ reviewSince: null }, { reviewSince: { $exists: false } }] }, { $set: { reviewSince: at } },
      );
      return result.modifiedCount;
    });
  }

  markUsed(id: number, at: number): Promise<void> {
    return guarded('api token use', async () => {
      await this.tokens.updateOne({ _id: id, $or: [{ lastUsedAt: null }, { lastUsedAt: { $lt: at } }] }, { $set: { lastUsedAt: at } });
    });
  }

  findById(id: number): Promise<ApiToken | null> {
    return guarded('api token read', async () => {
      return this.table.get(id);
    });
  }

  findByTokenHash(tokenHash: string): Promise<ApiToken | null> {
    return guarded('api token read', async () => {
      return this.table.first({ tokenHash });
    });
  }

  revoke(id: number, at: number): Promise<ApiToken | null> {
    return guarded('api token revoke', async () => {
      // Only the first revocation sets revokedAt; later calls read back the stored time.
      await this.tokens.updateOne({ _id: id, revokedAt: null }, { $set: { revokedAt: at }, $unset: { activeSlot: '' } });
      return this.table.get(id);
    });
  }
}
