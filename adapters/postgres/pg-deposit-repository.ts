import type pg from 'pg';
import { ConcurrencyConflict } from '../../core/domain/errors.js';
import type { Deposit, DepositStatus, UserId } from '../../core/domain/model/index.js';
import type { DepositFilter, DepositInsert, DepositRepository } from '../../core/ports/deposit-repository.port.js';
import type { Page, PageRequest } from '../../core/ports/page.js';
import { fromStoredDeposit, toStoredDeposit, type StoredDeposit } from '../records/deposit-record.js';
import { guarded, insertOnce, isUniqueViolation, pageOf, type Queryable, type Row } from './pg-support.js';

const TABLE = 'deposits';
const TRANSFER_CONSTRAINT = 'deposits_transfer_unique';

/** Record -> row of `deposits` (the amount as its decimal string: NUMERIC takes it exactly). */
function toRow(r: StoredDeposit): Row {
  return {
    deposit_id: r.id, transfer_id: r.transferId, user_id: r.userId, address: r.address, network_code: r.networkCode,
    asset_symbol: r.assetSymbol, amount: r.amount, from_address: r.fromAddress, txid: r.txid, block_number: r.blockNumber,
    status: r.status, detected_at: r.detectedAt, confirmed_at: r.confirmedAt, auto_collect: r.autoCollect ?? null,
    auto_collect_task: r.autoCollectTask ?? null, version: r.version,
  };
}

/** Row of `deposits` -> domain value (NUMERIC arrives as a string). */
function depositFromRow(row: Row): Deposit {
  return fromStoredDeposit({
    id: row['deposit_id'] as string, transferId: row['transfer_id'] as string, userId: row['user_id'] as number,
    address: row['address'] as string, networkCode: row['network_code'] as StoredDeposit['networkCode'],
    assetSymbol: row['asset_symbol'] as string, amount: row['amount'] as string, fromAddress: row['from_address'] as string,
    txid: row['txid'] as string, blockNumber: row['block_number'] as number, status: row['status'] as DepositStatus,
    detectedAt: row['detected_at'] as number, confirmedAt: row['confirmed_at'] as number | null,
    autoCollect: row['auto_collect'] as StoredDeposit['autoCollect'], autoCollectTask: row['auto_collect_task'] as string | null,
    version: row['version'] as number,
  });
}

/**
 * Writes a new record unless its transfer or its deposit id is taken (then nothing, false): the unit of work's insert,
 * on a pool or inside its transaction.
 */
export async function insertDeposit(q: Queryable, deposit: Deposit): Promise<boolean> {
  return insertOnce(q, TABLE, toRow(toStoredDeposit(deposit)));
}

/**
 * The versioned replace: writes where the stored version is `version - 1` and the identity (id, transfer, network)
 * matches; the identity is matched, never written, so a caller cannot move a record to another transfer. Returns
 * whether a row matched.
 */
export async function replaceDeposit(q: Queryable, deposit: Deposit): Promise<boolean> {
  const r = toStoredDeposit(deposit);
  const result = await q.query(
    `UPDATE ${TABLE} SET user_id = $5, address = $6, asset_symbol = $7, amount = $8, from_address = $9, txid = $10,
       block_number = $11, status = $12, detected_at = $13, confirmed_at = $14, version = $15, auto_collect = $16,
       auto_collect_task = $17
     WHERE deposit_id = $1 AND version = $2 AND transfer_id = $3 AND network_code = $4`,
    [r.id, r.version - 1, r.transferId, r.networkCode, r.userId, r.address, r.assetSymbol, r.amount, r.fromAddress, r.txid,
      r.blockNumber, r.status, r.detectedAt, r.confirmedAt, r.version, r.autoCollect ?? null, r.autoCollectTask ?? null],
  );
  return result.rowCount === 1;
}

/**
 * Deposit records. One per transfer is the unique constraint on (network_code, transfer_id): an insert that meets it
 * does nothing (ON CONFLICT waits for a racing inserter's commit), and the stored record is then read back.
 */
export class PgDepositRepository implements DepositRepository {
  constructor(private readonly pool: pg.Pool) {}

  insert(deposit: Deposit): Promise<DepositInsert> {
    return guarded('deposit insert', async () => {
      try {
        if (await insertOnce(this.pool, TABLE, toRow(toStoredDeposit(deposit)), `ON CONSTRAINT ${TRANSFER_CONSTRAINT}`)) {
          return { created: true, deposit };
        }
      } catch (error) {
        // Only the primary key can still be violated: a deposit id reused for another transfer.
        if (isUniqueViolation(error)) throw new ConcurrencyConflict('deposit', deposit.depositId);
        throw error;
      }
      const stored = await this.findOne('network_code = $1 AND transfer_id = $2', [deposit.networkCode, deposit.transferId]);
      if (stored === null) throw new ConcurrencyConflict('deposit', deposit.depositId);
      return { created: false, deposit: stored };
    });
  }

  findById(depositId: string): Promise<Deposit | null> {
    return guarded('deposit read', () => this.findOne('deposit_id = $1', [depositId]));
  }

  findByTransfer(networkCode: string, transferId: string): Promise<Deposit | null> {
    return guarded('deposit read', () => this.findOne('network_code = $1 AND transfer_id = $2', [networkCode, transferId]));
  }

  update(deposit: Deposit): Promise<void> {
    return guarded('deposit update', async () => {
      if (!(await replaceDeposit(this.pool, deposit))) throw new ConcurrencyConflict('deposit', deposit.depositId);
    });
  }

  listByUser(userId: UserId, filter: DepositFilter, page: PageRequest): Promise<Page<Deposit>> {
    return guarded('deposit list', () => {
      const params: unknown[] = [userId];
      let where = 'user_id = $1';
      if (filter.address !== undefined) where += ` AND address = $${params.push(filter.address)}`;
      if (filter.assetSymbol !== undefined) where += ` AND asset_symbol = $${params.push(filter.assetSymbol)}`;
      if (filter.status !== undefined) where += ` AND status = $${params.push(filter.status)}`;
      return pageOf(this.pool, { table: TABLE, where, order: 'detected_at DESC, inserted_seq DESC', params }, depositFromRow, page);
    });
  }

  listPendingUpTo(networkCode: string, blockNumber: number, limit: number): Promise<Deposit[]> {
    return guarded('deposit read', async () => {
      const { rows } = await this.pool.query(
        `SELECT * FROM ${TABLE} WHERE status = 'pending' AND network_code = $1 AND block_number <= $2
         ORDER BY block_number, deposit_id COLLATE "C" LIMIT $3`,
        [networkCode, blockNumber, Math.max(0, limit)],
      );
      return (rows as Row[]).map(depositFromRow);
    });
  }

  listAutoCollectDue(networkCode: string, limit: number): Promise<Deposit[]> {
    return guarded('deposit read', async () => {
      const { rows } = await this.pool.query(
        `SELECT * FROM ${TABLE} WHERE (auto_collect = 'due' OR auto_collect_task IS NOT NULL) AND network_code = $1
         ORDER BY confirmed_at, deposit_id COLLATE "C" LIMIT $2`,
        [networkCode, Math.max(0, limit)],
      );
      return (rows as Row[]).map(depositFromRow);
    });
  }

  private async findOne(where: string, params: unknown[]): Promise<Deposit | null> {
    const { rows } = await this.pool.query(`SELECT * FROM ${TABLE} WHERE ${where}`, params);
    return rows.length === 0 ? null : depositFromRow(rows[0] as Row);
  }
}
