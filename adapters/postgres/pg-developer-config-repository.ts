import type pg from 'pg';
import type { DeveloperConfig, UserId } from '../../core/domain/model/index.js';
import type { DeveloperConfigRepository } from '../../core/ports/developer-config-repository.port.js';
import { DEVELOPER_CONFIG_RECORD } from '../records/webhook-record.js';
import { guarded } from './pg-support.js';
import { PgTable } from './pg-table.js';

/** The `developer_configs` table, from the record's descriptor. */
const CONFIGS = new PgTable(DEVELOPER_CONFIG_RECORD);

/** Developer configurations per user, saved with optimistic versions. */
export class PgDeveloperConfigRepository implements DeveloperConfigRepository {
  constructor(private readonly pool: pg.Pool) {}

  get(userId: UserId): Promise<DeveloperConfig | null> {
    return guarded('developer config read', () => CONFIGS.get(this.pool, userId));
  }

  save(config: DeveloperConfig): Promise<void> {
    return guarded('developer config save', () => CONFIGS.save(this.pool, config));
  }

  listPending(): Promise<DeveloperConfig[]> {
    // The memory store's order: pendingSince (none first), then first insertion.
    return guarded('developer config list', () =>
      CONFIGS.select(this.pool, 'pending_url IS NOT NULL', [], 'pending_since NULLS FIRST, inserted_seq'));
  }
}
