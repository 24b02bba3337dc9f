import type pg from 'pg';
import { ConcurrencyConflict } from '../../core/domain/errors.js';
import type { Deposit, UserId } from '../../core/domain/model/index.js';
import type { DepositFilter, DepositInsert, DepositRepository } from '../../core/ports/deposit-repository.port.js';
import type { Page, PageRequest } from '../../core/ports/page.js';
import { DEPOSIT_RECORD } from '../records/deposit-record.js';
import { guarded, isUniqueViolation, type Queryable } from './pg-support.js';
import { PgTable } from './pg-table.js';

/** The `deposits` table, from the record's descriptor (a replace matches the transfer, never writes it). */
const DEPOSITS = new PgTable(DEPOSIT_RECORD);
const TRANSFER_CONSTRAINT = 'deposits_transfer_unique';

/**
 * Writes a new record unless its transfer or its deposit id is taken (then nothing, false): the unit of work's insert,
 * on a pool or inside its transaction.
 */
export async function insertDeposit(q: Queryable, deposit: Deposit): Promise<boolean> {
  return DEPOSITS.insertOnce(q, deposit);
}

/**
 * The versioned replace: writes where the stored version is `version - 1` and the identity (id, transfer, network)
 * matches; the identity is matched, never written, so a caller cannot move a record to another transfer. Returns
 * whether a row matched.
 */
export function replaceDeposit(q: Queryable, deposit: Deposit): Promise<boolean> {
  return DEPOSITS.replace(q, deposit);
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
        if (await DEPOSITS.insertOnce(this.pool, deposit, `ON CONSTRAINT ${TRANSFER_CONSTRAINT}`)) {
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
      return DEPOSITS.page(this.pool, { where, order: 'detected_at DESC, inserted_seq DESC', params }, page);
    });
  }

  listPendingUpTo(networkCode: string, blockNumber: number, limit: number): Promise<Deposit[]> {
    return guarded('deposit read', () => DEPOSITS.select(this.pool, "status = 'pending' AND network_code = $1 AND block_number <= $2",
      [networkCode, blockNumber], 'block_number, deposit_id COLLATE "C"', Math.max(0, limit)));
  }

  listAutoCollectDue(networkCode: string, limit: number): Promise<Deposit[]> {
    return guarded('deposit read', () => DEPOSITS.select(this.pool,
      "(auto_collect = 'due' OR auto_collect_task IS NOT NULL) AND network_code = $1", [networkCode], 'confirmed_at, deposit_id COLLATE "C"',
      Math.max(0, limit)));
  }

  private async findOne(where: string, params: unknown[]): Promise<Deposit | null> {
    return DEPOSITS.first(this.pool, where, params);
  }
}
