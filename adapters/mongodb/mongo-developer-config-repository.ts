import type { Collection, Db } from 'mongodb';
import { ConcurrencyConflict } from '../../core/domain/errors.js';
import type { DeveloperConfig, UserId } from '../../core/domain/model/index.js';
import type { DeveloperConfigRepository } from '../../core/ports/developer-config-repository.port.js';
import { COLLECTIONS } from './collections.js';
import { fromDeveloperConfigDocument, toDeveloperConfigDocument, type DeveloperConfigDocument } from './mongo-documents.js';
import { guarded, isDuplicateKey } from './mongo-support.js';

/** Developer configurations per user (`_id`), saved with optimistic versions. */
export class MongoDeveloperConfigRepository implements DeveloperConfigRepository {
  private readonly configs: Collection<DeveloperConfigDocument>;

  constructor(db: Db) {
    this.configs = db.collection<DeveloperConfigDocument>(COLLECTIONS.developerConfigs);
  }

  get(userId: UserId): Promise<DeveloperConfig | null> {
    return guarded('developer config read', async () => {
      const doc = await this.configs.findOne({ _id: userId });
      return doc === null ? null : fromDeveloperConfigDocument(doc);
    });
  }

  save(config: DeveloperConfig): Promise<void> {
    return guarded('developer config save', async () => {
      const doc = toDeveloperConfigDocument(config);
      if (config.version === 1) {
        try {
          await this.configs.insertOne(doc);
          return;
        } catch (error) {
          if (!isDuplicateKey(error)) throw error;
          throw new ConcurrencyConflict('developer config', String(config.userId));
        }
      }
      const { _id, ...fields } = doc;
      const result = await this.configs.updateOne({ _id, version: config.version - 1 }, { $set: fields });
      if (result.matchedCount !== 1) throw new ConcurrencyConflict('developer config', String(config.userId));
    });
  }

  listPending(): Promise<DeveloperConfig[]> {
    return guarded('developer config list', async () => {
      const docs = await this.configs.find({ pendingUrl: { $type: 'string' } }).sort({ pendingSince: 1, _id: 1 }).toArray();
      return docs.map(fromDeveloperConfigDocument);
    });
  }
}
