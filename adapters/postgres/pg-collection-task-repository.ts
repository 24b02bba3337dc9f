import type pg from 'pg';
import { ConcurrencyConflict } from '../../core/domain/errors.js';
import { COLLECTION_STATUS, type CollectionStatus, type CollectionTask, type EnergyPath } from '../../core/domain/model/collection-task.js';
import type { NetworkCode, UserId } from '../../core/domain/model/common.js';
import type { CollectionTaskFilter, CollectionTaskRepository } from '../../core/ports/collection-task-repository.port.js';
import type { Page, PageRequest } from '../../core/ports/page.js';
import { fromStoredCollectionTask, toStoredCollectionTask, type StoredCollectionTask } from '../records/collection-task-record.js';
import {
  claimDue, guarded, insertRow, jsonb, pageOf, replaceStatement, versionedReplace, type Queryable, type Row, type TogetherWrite,
} from './pg-support.js';
import { prepared } from './pg-prepared.js';

const TERMINAL = `status NOT IN (${COLLECTION_STATUS.DONE}, ${COLLECTION_STATUS.FAILED})`;

/**
 * Record -> row of `collection_tasks`. The lease is flattened (its claim filters on it); the reclaim is kept whole as
 * JSONB and its status, schedule and lease expiry are repeated in columns for the reclaim claim.
 */
function toRow(record: StoredCollectionTask): Row & { version: number } {
  const reclaim = record.reclaim ?? null;
  return {
    task_no: record.id, command_no: record.commandNo, user_id: record.userId, network_code: record.networkCode,
    asset_symbol: record.assetSymbol, address: record.address, main_address: record.mainAddress, status: record.status,
    energy_path: record.energyPath, steps: jsonb(record.steps), swept_amount: record.sweptAmount,
    sweep_tx_hash: record.sweepTxHash, error_code: record.errorCode, last_error: record.lastError,
    next_run_at: record.nextRunAt, lease_owner: record.lease?.owner ?? null, lease_expires_at: record.lease?.expiresAt ?? null,
    started_at: record.startedAt, finished_at: record.finishedAt, reclaim: jsonb(reclaim),
    reclaim_status: reclaim?.status ?? null, reclaim_next_run_at: reclaim?.nextRunAt ?? null,
    reclaim_lease_expires_at: reclaim === null ? null : (reclaim.lease?.expiresAt ?? null),
    plan: jsonb(record.plan ?? null), cost: jsonb(record.cost ?? null), version: record.version,
  };
}

/** Row of `collection_tasks` -> record (absent optional parts stay absent). */
function fromRow(row: Row): StoredCollectionTask {
  const owner = row['lease_owner'] as string | null;
  const optional = (column: string) => (row[column] === null ? {} : { [column]: row[column] });
  return {
    id: row['task_no'] as string, commandNo: row['command_no'] as string, userId: row['user_id'] as number,
    networkCode: row['network_code'] as NetworkCode, assetSymbol: row['asset_symbol'] as string,
    address: row['address'] as string, mainAddress: row['main_address'] as string, status: row['status'] as CollectionStatus,
    energyPath: row['energy_path'] as EnergyPath | null, steps: row['steps'] as StoredCollectionTask['steps'],
    sweptAmount: row['swept_amount'] as string | null, sweepTxHash: row['sweep_tx_hash'] as string | null,
    errorCode: row['error_code'] as string | null, lastError: row['last_error'] as string | null,
    nextRunAt: row['next_run_at'] as number, lease: owner === null ? null : { owner, expiresAt: row['lease_expires_at'] as number },
    startedAt: row['started_at'] as number, finishedAt: row['finished_at'] as number | null, version: row['version'] as number,
    ...optional('reclaim'), ...optional('plan'), ...optional('cost'),
  };
}

/**
 * The columns fromRow reads, named (issue #37: never `SELECT *`; the reclaim claim's copies `reclaim_status`,
 * `reclaim_next_run_at`, `reclaim_lease_expires_at` and `inserted_seq` are not parsed). A column missing here fails
 * the contract suite's round trips.
 */
export const TASK_COLUMNS = 'task_no, command_no, user_id, network_code, asset_symbol, address, main_address, status, energy_path, '
  + 'steps, swept_amount, sweep_tx_hash, error_code, last_error, next_run_at, lease_owner, lease_expires_at, started_at, finished_at, '
  + 'reclaim, plan, cost, version';

/** Row -> domain value, through the shared record codec. */
export function taskFromRow(row: Row): CollectionTask {
  return fromStoredCollectionTask(fromRow(row));
}

/** Inserts a new task (a taken task number is a unique violation for the caller to classify). */
export function insertTask(q: Queryable, task: CollectionTask): Promise<void> {
  return insertRow(q, 'collection_tasks', toRow(toStoredCollectionTask(task)));
}

/** replaceTask as one write of a combined statement (writeTogether). */
export function taskReplaceWrite(task: CollectionTask): TogetherWrite {
  return {
    statement: (from) => replaceStatement('collection_tasks', { column: 'task_no', value: task.taskNo }, toRow(toStoredCollectionTask(task)), from),
    replaces: { entity: 'collection task', id: task.taskNo },
  };
}

/** Optimistic replace guarded by the stored version. */
export async function replaceTask(q: Queryable, task: CollectionTask): Promise<void> {
  if (!(await versionedReplace(prepared(q), 'collection_tasks', { column: 'task_no', value: task.taskNo }, toRow(toStoredCollectionTask(task))))) {
    throw new ConcurrencyConflict('collection task', task.taskNo);
  }
}

/** Collection tasks (inserted by PgUnitOfWork). A claim locks its row with SKIP LOCKED, so racing workers never share one. */
export class PgCollectionTaskRepository implements CollectionTaskRepository {
  constructor(private readonly pool: pg.Pool) {}

  get(taskNo: string): Promise<CollectionTask | null> {
    return guarded('collection task read', async () => {
      const { rows } = await prepared(this.pool).query(`SELECT ${TASK_COLUMNS} FROM collection_tasks WHERE task_no = $1`, [taskNo]);
      return rows.length === 0 ? null : taskFromRow(rows[0] as Row);
    });
  }

  findLatestByAddress(address: string): Promise<CollectionTask | null> {
    return guarded('collection task read', async () => {
      const { rows } = await prepared(this.pool).query(
        `SELECT ${TASK_COLUMNS} FROM collection_tasks WHERE address = $1 ORDER BY started_at DESC, inserted_seq DESC LIMIT 1`, [address],
      );
      return rows.length === 0 ? null : taskFromRow(rows[0] as Row);
    });
  }

  /** Walks collection_tasks_by_user_newest (migration 0017), or the address index when a sub-address is named. */
  listByUser(userId: UserId, filter: CollectionTaskFilter, page: PageRequest): Promise<Page<CollectionTask>> {
    const where = ['user_id = $1'];
    const params: unknown[] = [userId];
    if (filter.status !== undefined) where.push(`status = $${params.push(filter.status)}`);
    if (filter.address !== undefined) where.push(`address = $${params.push(filter.address)}`);
    return guarded('collection task list', () => pageOf(this.pool, {
      table: 'collection_tasks', where: where.join(' AND '), order: 'started_at DESC, inserted_seq DESC', params,
    }, taskFromRow, page));
  }

  update(task: CollectionTask): Promise<void> {
    return guarded('collection task update', () => replaceTask(this.pool, task));
  }

  /** Walks collection_tasks_finished (migration 0027), a partial index of the terminal tasks by finish. */
  listFinishedSince(status: CollectionStatus, since: number, limit: number): Promise<CollectionTask[]> {
    return guarded('collection task finished list', async () => {
      const { rows } = await this.pool.query(
        `SELECT ${TASK_COLUMNS} FROM collection_tasks WHERE status = $1 AND finished_at >= $2 AND finished_at IS NOT NULL ORDER BY finished_at, task_no COLLATE "C" LIMIT $3`,
        [status, since, limit],
      );
      return rows.map(taskFromRow);
    });
  }

  async claimDue(now: number, owner: string, leaseMs: number): Promise<CollectionTask | null> {
    return (await this.claimSeveralDue(now, owner, leaseMs, 1))[0] ?? null;
  }

  /** One UPDATE of up to `limit` rows locked with SKIP LOCKED; RETURNING has no order, so they are sorted here. */
  claimSeveralDue(now: number, owner: string, leaseMs: number, limit: number): Promise<CollectionTask[]> {
    if (limit <= 0) return Promise.resolve([]);
    return guarded('collection task claim', async () => {
      const rows = await claimDue(prepared(this.pool), 'collection_tasks', {
        key: 'task_no',
        where: `${TERMINAL} AND next_run_at <= $1 AND (lease_owner IS NULL OR lease_expires_at <= $1)`,
        order: 'next_run_at, inserted_seq',
        set: 'lease_owner = $2, lease_expires_at = $3, version = version + 1',
        params: [now, owner, now + leaseMs],
        limit: Math.floor(limit),
      });
      return rows.sort((a, b) => Number(a['next_run_at']) - Number(b['next_run_at']) || Number(a['inserted_seq']) - Number(b['inserted_seq'])).map(taskFromRow);
    });
  }

  claimReclaimDue(now: number, owner: string, leaseMs: number): Promise<CollectionTask | null> {
    return guarded('collection task reclaim claim', async () => {
      const rows = await claimDue(this.pool, 'collection_tasks', {
        key: 'task_no',
        where: `status = ${COLLECTION_STATUS.FAILED} AND reclaim_status = 'pending' AND reclaim_next_run_at <= $1
                AND (reclaim_lease_expires_at IS NULL OR reclaim_lease_expires_at <= $1)`,
        order: 'reclaim_next_run_at, inserted_seq',
        set: `reclaim = jsonb_set(reclaim, '{lease}', jsonb_build_object('owner', $2::text, 'expiresAt', $3::bigint)),
              reclaim_lease_expires_at = $3, version = version + 1`,
        params: [now, owner, now + leaseMs],
      });
      return rows.length === 0 ? null : taskFromRow(rows[0]!);
    });
  }

  countByStatus(): Promise<ReadonlyMap<CollectionStatus, number>> {
    return guarded('collection task count', async () => {
      const { rows } = await this.pool.query<{ status: CollectionStatus; n: number }>(
        'SELECT status, count(*)::bigint AS n FROM collection_tasks GROUP BY status',
      );
      return new Map(rows.map((r) => [r.status, r.n]));
    });
  }
}
