import type { Collection, Db } from 'mongodb';
import { ConcurrencyConflict } from '../../core/domain/errors.js';
import type { ApiToken } from '../../core/domain/model/index.js';
import type { ApiTokenRepository } from '../../core/ports/api-token-repository.port.js';
import { fromApiTokenDocument, toApiTokenDocument, type ApiTokenDocument } from './account-document.js';
import { COLLECTIONS } from './collections.js';
import { guarded, isDuplicateKey } from './mongo-support.js';

/** Developer API tokens; ids and token hashes are both unique (the hash by index). */
export class MongoApiTokenRepository implements ApiTokenRepository {
  private readonly tokens: Collection<ApiTokenDocument>;

  constructor(db: Db) {
    this.tokens = db.collection<ApiTokenDocument>(COLLECTIONS.apiTokens);
  }

  create(token: ApiToken): Promise<void> {
    return guarded('api token create', async () => {
      try {
        await this.tokens.insertOne(toApiTokenDocument(token));
      } catch (error) {
        if (!isDuplicateKey(error)) throw error;
        throw new ConcurrencyConflict('api token', String(token.id));
      }
    });
  }

  findById(id: number): Promise<ApiToken | null> {
    return guarded('api token read', async () => {
      const doc = await this.tokens.findOne({ _id: id });
      return doc === null ? null : fromApiTokenDocument(doc);
    });
  }

  findByTokenHash(tokenHash: string): Promise<ApiToken | null> {
    return guarded('api token read', async () => {
      const doc = await this.tokens.findOne({ tokenHash });
      return doc === null ? null : fromApiTokenDocument(doc);
    });
  }

  revoke(id: number, at: number): Promise<ApiToken | null> {
    return guarded('api token revoke', async () => {
      // Only the first revocation sets revokedAt; later calls read back the stored time.
      await this.tokens.updateOne({ _id: id, revokedAt: null }, { $set: { revokedAt: at } });
      const doc = await this.tokens.findOne({ _id: id });
      return doc === null ? null : fromApiTokenDocument(doc);
    });
  }
}
