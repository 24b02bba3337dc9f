import type pg from 'pg';
import { COMMAND_STATUS, COMMAND_TYPE, type BalanceSnapshot, type RefreshSource } from '../../core/domain/model/index.js';
import type { WalletAddress } from '../../core/domain/model/index.js';
import type { BalanceRepository, BalanceViewSource } from '../../core/ports/balance-repository.port.js';
import { BALANCE_RECORD, fromStoredBalance, type StoredBalance } from '../records/wallet-record.js';
import { statementName } from './pg-prepared.js';
import { ReadBatch } from './pg-read-batch.js';
import { guarded, inAtomicScopeOf } from './pg-support.js';
import { PgTable } from './pg-table.js';

/**
 * The balance view's one statement, for every address asked in one turn (ReadBatch): each wallet's four fields, its
 * snapshot and the amount its active fund-moving command holds (the first by creation, as
 * PgCommandRepository.findActiveByAddress), as array rows.
 */
const READ_VIEWS = `SELECT w.address, w.user_id, w.network_code, w.created_at, b.items, b.refresh_source, b.updated_at, c.asset_symbol, c.locked_amount
  FROM wallet_addresses w
  LEFT JOIN balance_snapshots b ON b.address = w.address
  LEFT JOIN LATERAL (
    SELECT asset_symbol, locked_amount FROM commands
    WHERE address = w.address AND type <> ${COMMAND_TYPE.QUERY} AND status IN (${COMMAND_STATUS.PENDING}, ${COMMAND_STATUS.RUNNING})
    ORDER BY created_at, inserted_seq LIMIT 1
  ) c ON true
  WHERE w.address = ANY($1::text[])`;
const READ_VIEWS_NAME = statementName(READ_VIEWS);

type ViewRow = [string, number, WalletAddress['networkCode'], number, StoredBalance['items'] | null, RefreshSource | null, number | null, string | null, string | null];

/** The `balance_snapshots` table, from the record's descriptor. */
const BALANCES = new PgTable(BALANCE_RECORD);

/**
 * Cached balance snapshots per address; an older snapshot never replaces a newer one and an equal time replaces
 * (last writer). One upsert whose update condition the server checks on the locked row, so racing puts need no retry.
 */
export class PgBalanceRepository implements BalanceRepository {
  private readonly views = new ReadBatch<string, BalanceViewSource>((addresses) => this.readViews(addresses));

  constructor(private readonly pool: pg.Pool) {}

  get(address: string): Promise<BalanceSnapshot | null> {
    return guarded('balance read', () => BALANCES.get(this.pool, address));
  }

  /**
   * One named statement with array rows, so only the columns the view shows are read and parsed; the reads asked in
   * one turn share it (ReadBatch). Inside an atomic scope the read runs on the scope's own connection, alone.
   */
  readView(address: string): Promise<BalanceViewSource | null> {
    if (!inAtomicScopeOf(this.pool)) return this.views.read(address);
    return this.readViews([address]).then((found) => found.get(address) ?? null);
  }

  private readViews(addresses: string[]): Promise<Map<string, BalanceViewSource>> {
    return guarded('balance read', async () => {
      const { rows } = await this.pool.query<ViewRow>({ name: READ_VIEWS_NAME, text: READ_VIEWS, values: [addresses], rowMode: 'array' });
      const found = new Map<string, BalanceViewSource>();
      for (const [address, userId, networkCode, createdAt, items, refreshSource, updatedAt, assetSymbol, lockedAmount] of rows) {
        found.set(address, {
          wallet: { userId, networkCode, address, createdAt },
          snapshot: updatedAt === null ? null
            : fromStoredBalance({ id: address, items: items!, refreshSource: refreshSource!, updatedAt }),
          active: lockedAmount === null ? null : { assetSymbol, lockedAmount: BigInt(lockedAmount) },
        });
      }
      return found;
    });
  }

  put(snapshot: BalanceSnapshot): Promise<void> {
    return guarded('balance write', async () => {
      const row = BALANCES.toRow(snapshot);
      await this.pool.query(
        `INSERT INTO balance_snapshots (address, items, refresh_source, updated_at) VALUES ($1, $2, $3, $4)
         ON CONFLICT (address) DO UPDATE
           SET items = excluded.items, refresh_source = excluded.refresh_source, updated_at = excluded.updated_at
           WHERE balance_snapshots.updated_at <= excluded.updated_at`,
        [row['address'], row['items'], row['refresh_source'], row['updated_at']],
      );
    });
  }

  /**
   * One upsert of every row (unnest of one array per column). A statement may not update a row twice, so of several
   * snapshots for one address only the one the puts in order would leave is sent (the newest; the last of equal
   * times); rows go in address order, so two batches lock their rows in the same order.
   */
  putAll(snapshots: readonly BalanceSnapshot[]): Promise<void> {
    if (snapshots.length === 0) return Promise.resolve();
    return guarded('balance write', async () => {
      const last = new Map<string, BalanceSnapshot>();
      for (const snapshot of snapshots) {
        const kept = last.get(snapshot.address);
        if (kept === undefined || kept.updatedAt <= snapshot.updatedAt) last.set(snapshot.address, snapshot);
      }
      const rows = [...last.values()].sort((a, b) => (a.address < b.address ? -1 : 1)).map((s) => BALANCES.toRow(s));
      await this.pool.query(
        `INSERT INTO balance_snapshots (address, items, refresh_source, updated_at)
         SELECT * FROM unnest($1::text[], $2::jsonb[], $3::smallint[], $4::bigint[])
         ON CONFLICT (address) DO UPDATE
           SET items = excluded.items, refresh_source = excluded.refresh_source, updated_at = excluded.updated_at
           WHERE balance_snapshots.updated_at <= excluded.updated_at`,
        [rows.map((r) => r['address']), rows.map((r) => r['items']), rows.map((r) => r['refresh_source']), rows.map((r) => r['updated_at'])],
      );
    });
  }
}
