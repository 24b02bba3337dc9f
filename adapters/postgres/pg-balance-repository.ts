import type pg from 'pg';
import type { BalanceSnapshot, RefreshSource } from '../../core/domain/model/index.js';
import type { BalanceRepository } from '../../core/ports/balance-repository.port.js';
import { fromStoredBalance, toStoredBalance, type StoredBalance } from '../records/wallet-record.js';
import { guarded, jsonb, type Row } from './pg-support.js';

/** Record -> row of `balance_snapshots` (items JSONB: no query reads them, the amounts stay decimal strings). */
function toRow(record: StoredBalance): Row {
  return { address: record.id, items: jsonb(record.items), refresh_source: record.refreshSource, updated_at: record.updatedAt };
}

/** Row of `balance_snapshots` -> record. */
function fromRow(row: Row): StoredBalance {
  return {
    id: row['address'] as string, items: row['items'] as StoredBalance['items'],
    refreshSource: row['refresh_source'] as RefreshSource, updatedAt: row['updated_at'] as number,
  };
}

/**
 * Cached balance snapshots per address; an older snapshot never replaces a newer one and an equal time replaces
 * (last writer). One upsert whose update condition the server checks on the locked row, so racing puts need no retry.
 */
export class PgBalanceRepository implements BalanceRepository {
  constructor(private readonly pool: pg.Pool) {}

  get(address: string): Promise<BalanceSnapshot | null> {
    return guarded('balance read', async () => {
      const { rows } = await this.pool.query('SELECT * FROM balance_snapshots WHERE address = $1', [address]);
      return rows.length === 0 ? null : fromStoredBalance(fromRow(rows[0] as Row));
    });
  }

  put(snapshot: BalanceSnapshot): Promise<void> {
    return guarded('balance write', async () => {
      const row = toRow(toStoredBalance(snapshot));
      await this.pool.query(
        `INSERT INTO balance_snapshots (address, items, refresh_source, updated_at) VALUES ($1, $2, $3, $4)
         ON CONFLICT (address) DO UPDATE
           SET items = excluded.items, refresh_source = excluded.refresh_source, updated_at = excluded.updated_at
           WHERE balance_snapshots.updated_at <= excluded.updated_at`,
        [row['address'], row['items'], row['refresh_source'], row['updated_at']],
      );
    });
  }
}
