import type { Db } from 'mongodb';
import type { DeveloperConfig, UserId } from '../../core/domain/model/index.js';
import type { DeveloperConfigRepository } from '../../core/ports/developer-config-repository.port.js';
import { DEVELOPER_CONFIG_RECORD } from '../records/webhook-record.js';
import { guarded } from './mongo-support.js';
import { MongoTable, type MongoTableOf } from './mongo-table.js';

/** Developer configurations per user (`_id`), saved with optimistic versions. */
export class MongoDeveloperConfigRepository implements DeveloperConfigRepository {
  private readonly configs: MongoTableOf<typeof DEVELOPER_CONFIG_RECORD>;

  constructor(db: Db) {
    this.configs = new MongoTable(db, DEVELOPER_CONFIG_RECORD);
  }

  get(userId: UserId): Promise<DeveloperConfig | null> {
    return guarded('developer config read', () => this.configs.get(userId));
  }

  save(config: DeveloperConfig): Promise<void> {
    return guarded('developer config save', () => this.configs.save(config));
  }

  listPending(): Promise<DeveloperConfig[]> {
    return guarded('developer config list', () => this.configs.find({ pendingUrl: { $type: 'string' } }, { pendingSince: 1, _id: 1 }));
  }
}
