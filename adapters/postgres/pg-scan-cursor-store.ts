import type pg from 'pg';
import { StoreError } from '../../core/domain/errors.js';
import type { ScanCheckpoint, ScanClaim, ScanCursorStore } from '../../core/ports/scan-cursor-store.port.js';
import { fromStoredScanCheckpoint, toStoredScanCheckpoint, type StoredScanCheckpoint } from '../records/scan-checkpoint-record.js';
import { guarded, jsonb } from './pg-support.js';

/** Each round either decides or found no row after the upsert declined (never deleted, so one round is the norm). */
const MAX_CLAIM_ROUNDS = 4;

/**
 * Scanner checkpoints, one row per scanner name. A claim is one upsert whose update is allowed only when the lease is
 * free, expired at `now` or the claimer's own; a save is one update naming owner and version. The server checks
 * each condition on the locked row, so the lease and the version fence hold across processes.
 */
export class PgScanCursorStore implements ScanCursorStore {
  constructor(private readonly pool: pg.Pool) {}

  claim(name: string, owner: string, now: number, until: number): Promise<ScanClaim> {
    return guarded('scan cursor claim', async () => {
      for (let round = 0; round < MAX_CLAIM_ROUNDS; round++) {
        const taken = await this.pool.query<{ version: number; checkpoint: StoredScanCheckpoint | null }>(
          `INSERT INTO scan_cursors (name, owner, lease_until, version, checkpoint) VALUES ($1, $2, $4, 1, NULL)
           ON CONFLICT (name) DO UPDATE SET owner = excluded.owner, lease_until = excluded.lease_until, version = scan_cursors.version + 1
           WHERE scan_cursors.owner = excluded.owner OR scan_cursors.lease_until <= $3
           RETURNING version, checkpoint`,
          [name, owner, now, until],
        );
        const claimed = taken.rows[0];
        if (claimed !== undefined) {
          return { held: true, version: claimed.version, checkpoint: claimed.checkpoint === null ? null : fromStoredScanCheckpoint(claimed.checkpoint) };
        }
        const { rows } = await this.pool.query<{ owner: string; lease_until: number }>(
          'SELECT owner, lease_until FROM scan_cursors WHERE name = $1', [name],
        );
        if (rows[0] !== undefined) return { held: false, owner: rows[0].owner, until: rows[0].lease_until };
      }
      throw new StoreError('SERVICE-UNAVAILABLE', 'scan cursor kept changing; retry later', { transient: true });
    });
  }

  genesisIds(): Promise<readonly string[]> {
    return guarded('scan cursor genesis ids', async () => {
      const { rows } = await this.pool.query<{ genesis: string }>(
        "SELECT DISTINCT checkpoint->>'genesis' AS genesis FROM scan_cursors WHERE checkpoint->>'genesis' IS NOT NULL",
      );
      return rows.map((r) => r.genesis);
    });
  }

  save(name: string, owner: string, version: number, checkpoint: ScanCheckpoint, until: number): Promise<number | null> {
    return guarded('scan cursor save', async () => {
      const result = await this.pool.query(
        'UPDATE scan_cursors SET checkpoint = $4, lease_until = $5, version = version + 1 WHERE name = $1 AND owner = $2 AND version = $3',
        [name, owner, version, jsonb(toStoredScanCheckpoint(checkpoint)), until],
      );
      return result.rowCount === 1 ? version + 1 : null;
    });
  }
}
