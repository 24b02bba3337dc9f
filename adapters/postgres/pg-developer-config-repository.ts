import type pg from 'pg';
import { ConcurrencyConflict } from '../../core/domain/errors.js';
import type { DeveloperConfig, UserId } from '../../core/domain/model/index.js';
import type { DeveloperConfigRepository } from '../../core/ports/developer-config-repository.port.js';
import { fromStoredDeveloperConfig, toStoredDeveloperConfig, type StoredDeveloperConfig } from '../records/webhook-record.js';
import { guarded, insertOnce, jsonb, versionedReplace, type Row } from './pg-support.js';

/** Record -> row of `developer_configs`; the minimums keep the record's decimal strings (see the migration). */
function toRow(record: StoredDeveloperConfig): Row & { version: number } {
  return {
    user_id: record.id, url: record.url, pending_url: record.pendingUrl, pending_since: record.pendingSince,
    verified_at: record.verifiedAt, review_note: record.reviewNote, secret: jsonb(record.secret),
    previous_secret: jsonb(record.previousSecret), min_collect_amounts: jsonb(record.minCollectAmounts),
    opt_in_event_types: jsonb(record.optInEventTypes ?? null), auto_collect: jsonb(record.autoCollect ?? null),
    display_name: record.displayName ?? null, version: record.version,
  };
}

/** Row of `developer_configs` -> record. */
function fromRow(row: Row): StoredDeveloperConfig {
  return {
    id: row['user_id'] as number, url: row['url'] as string | null, pendingUrl: row['pending_url'] as string | null,
    pendingSince: row['pending_since'] as number | null, verifiedAt: row['verified_at'] as number | null,
    reviewNote: row['review_note'] as string | null, secret: row['secret'] as StoredDeveloperConfig['secret'],
    previousSecret: row['previous_secret'] as StoredDeveloperConfig['previousSecret'],
    minCollectAmounts: row['min_collect_amounts'] as StoredDeveloperConfig['minCollectAmounts'],
    optInEventTypes: row['opt_in_event_types'] as StoredDeveloperConfig['optInEventTypes'],
    autoCollect: row['auto_collect'] as StoredDeveloperConfig['autoCollect'],
    displayName: row['display_name'] as string | null, version: row['version'] as number,
  };
}

function decode(row: Row): DeveloperConfig {
  return fromStoredDeveloperConfig(fromRow(row));
}

/** Developer configurations per user, saved with optimistic versions. */
export class PgDeveloperConfigRepository implements DeveloperConfigRepository {
  constructor(private readonly pool: pg.Pool) {}

  get(userId: UserId): Promise<DeveloperConfig | null> {
    return guarded('developer config read', async () => {
      const { rows } = await this.pool.query('SELECT * FROM developer_configs WHERE user_id = $1', [userId]);
      return rows.length === 0 ? null : decode(rows[0] as Row);
    });
  }

  save(config: DeveloperConfig): Promise<void> {
    return guarded('developer config save', async () => {
      const row = toRow(toStoredDeveloperConfig(config));
      const written = config.version === 1
        ? await insertOnce(this.pool, 'developer_configs', row, '(user_id)')
        : await versionedReplace(this.pool, 'developer_configs', { column: 'user_id', value: config.userId }, row);
      if (!written) throw new ConcurrencyConflict('developer config', String(config.userId));
    });
  }

  listPending(): Promise<DeveloperConfig[]> {
    return guarded('developer config list', async () => {
      // The memory store's order: pendingSince (none first), then first insertion.
      const { rows } = await this.pool.query(
        'SELECT * FROM developer_configs WHERE pending_url IS NOT NULL ORDER BY pending_since NULLS FIRST, inserted_seq',
      );
      return (rows as Row[]).map(decode);
    });
  }
}
