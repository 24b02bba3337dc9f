import type pg from 'pg';
import { ConcurrencyConflict } from '../../core/domain/errors.js';
import { COLLECTION_STATUS, type CollectionStatus, type CollectionTask } from '../../core/domain/model/collection-task.js';
import type { UserId } from '../../core/domain/model/common.js';
import type { CollectionTaskFilter, CollectionTaskRepository } from '../../core/ports/collection-task-repository.port.js';
import type { Page, PageRequest } from '../../core/ports/page.js';
import { COLLECTION_TASK_RECORD } from '../records/collection-task-record.js';
import { claimDue, guarded, type Queryable, type Row, type TogetherWrite } from './pg-support.js';
import { prepared } from './pg-prepared.js';
import { PgTable } from './pg-table.js';

const TERMINAL = `status NOT IN (${COLLECTION_STATUS.DONE}, ${COLLECTION_STATUS.FAILED})`;

/** The `collection_tasks` table, from the record's descriptor. */
const TASKS = new PgTable(COLLECTION_TASK_RECORD);

/**
 * The columns the mapping reads, named (issue #37: never `SELECT *`; the reclaim claim's copies `reclaim_status`,
 * `reclaim_next_run_at`, `reclaim_lease_expires_at` and `inserted_seq` are not parsed). A column missing from the
 * descriptor fails the contract suite's round trips.
 */
export const TASK_COLUMNS = TASKS.columns;

/** Row -> domain value, through the shared record codec. */
export function taskFromRow(row: Row): CollectionTask {
  return TASKS.fromRow(row);
}

/** Inserts a new task (a taken task number is a unique violation for the caller to classify). */
export function insertTask(q: Queryable, task: CollectionTask): Promise<void> {
  return TASKS.insert(q, task);
}

/** replaceTask as one write of a combined statement (writeTogether). */
export function taskReplaceWrite(task: CollectionTask): TogetherWrite {
  return TASKS.replaceWrite(task);
}

/** Optimistic replace guarded by the stored version. */
export async function replaceTask(q: Queryable, task: CollectionTask): Promise<void> {
  if (!(await TASKS.replace(prepared(q), task))) throw new ConcurrencyConflict('collection task', task.taskNo);
}

/** Collection tasks (inserted by PgUnitOfWork). A claim locks its row with SKIP LOCKED, so racing workers never share one. */
export class PgCollectionTaskRepository implements CollectionTaskRepository {
  constructor(private readonly pool: pg.Pool) {}

  get(taskNo: string): Promise<CollectionTask | null> {
    return guarded('collection task read', () => TASKS.get(this.pool, taskNo));
  }

  findLatestByAddress(address: string): Promise<CollectionTask | null> {
    return guarded('collection task read', () =>
      TASKS.first(prepared(this.pool), 'address = $1', [address], 'started_at DESC, inserted_seq DESC'));
  }

  /** Walks collection_tasks_by_user_newest (migration 0017), or the address index when a sub-address is named. */
  listByUser(userId: UserId, filter: CollectionTaskFilter, page: PageRequest): Promise<Page<CollectionTask>> {
    const where = ['user_id = $1'];
    const params: unknown[] = [userId];
    if (filter.status !== undefined) where.push(`status = $${params.push(filter.status)}`);
    if (filter.address !== undefined) where.push(`address = $${params.push(filter.address)}`);
    return guarded('collection task list', () =>
      TASKS.page(this.pool, { where: where.join(' AND '), order: 'started_at DESC, inserted_seq DESC', params }, page));
  }

  update(task: CollectionTask): Promise<void> {
    return guarded('collection task update', () => replaceTask(this.pool, task));
  }

  /** Walks collection_tasks_finished (migration 0027), a partial index of the terminal tasks by finish. */
  listFinishedSince(status: CollectionStatus, since: number, limit: number): Promise<CollectionTask[]> {
    return guarded('collection task finished list', () => TASKS.select(this.pool,
      'status = $1 AND finished_at >= $2 AND finished_at IS NOT NULL', [status, since], 'finished_at, task_no COLLATE "C"', limit));
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
