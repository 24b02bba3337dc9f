import type { ClientSession, Collection, Db, Filter, UpdateFilter } from 'mongodb';
import { ConcurrencyConflict } from '../../core/domain/errors.js';
import { COLLECTION_STATUS, type CollectionStatus, type CollectionTask, type UserId } from '../../core/domain/model/index.js';
import type { CollectionTaskFilter, CollectionTaskRepository } from '../../core/ports/collection-task-repository.port.js';
import type { Page, PageRequest } from '../../core/ports/page.js';
import type { CollectionTaskDocument } from './mongo-documents.js';
import { guarded, insertionStamp } from './mongo-support.js';
import { COLLECTION_TASK_RECORD } from '../records/collection-task-record.js';
import { fromDocument, MongoTable, replaceOf, toDocument, type MongoTableOf } from './mongo-table.js';

const TERMINAL: CollectionStatus[] = [COLLECTION_STATUS.DONE, COLLECTION_STATUS.FAILED];

/** The document a unit of work inserts: stamped so that "latest task" breaks equal startedAt by insertion order. */
export function taskInsertDocument(task: CollectionTask): CollectionTaskDocument {
  return { ...toDocument(COLLECTION_TASK_RECORD, task), insertedSeq: insertionStamp() };
}

/** Optimistic replace guarded by the stored version. */
export async function replaceTask(tasks: Collection<CollectionTaskDocument>, task: CollectionTask, session?: ClientSession): Promise<void> {
  const { filter, set } = replaceOf(COLLECTION_TASK_RECORD, task);
  const result = await tasks.updateOne(filter as Filter<CollectionTaskDocument>, { $set: set } as UpdateFilter<CollectionTaskDocument>, session === undefined ? {} : { session });
  if (result.matchedCount !== 1) throw new ConcurrencyConflict('collection task', task.taskNo);
}

/**
 * Collection tasks (inserted by MongoUnitOfWork). A claim is one findOneAndUpdate whose filter is the claimability
 * rule itself, so the server leases a task to exactly one of any number of racing workers.
 */
export class MongoCollectionTaskRepository implements CollectionTaskRepository {
  private readonly table: MongoTableOf<typeof COLLECTION_TASK_RECORD>;
  private readonly tasks: Collection<CollectionTaskDocument>;

  constructor(db: Db) {
    this.table = new MongoTable(db, COLLECTION_TASK_RECORD);
    this.tasks = this.table.typed();
  }

  get(taskNo: string): Promise<CollectionTask | null> {
    return guarded('collection task read', () => this.table.get(taskNo));
  }

  findLatestByAddress(address: string): Promise<CollectionTask | null> {
    return guarded('collection task read', () => this.table.first({ address }, { startedAt: -1, insertedSeq: -1 }));
  }

  /** Walks the `by_user_newest` index (mongo-indexes.ts). */
  listByUser(userId: UserId, filter: CollectionTaskFilter, page: PageRequest): Promise<Page<CollectionTask>> {
    const query = {
      userId, ...(filter.status === undefined ? {} : { status: filter.status }), ...(filter.address === undefined ? {} : { address: filter.address }),
    };
    return guarded('collection task list', () => this.table.page(query, { startedAt: -1, insertedSeq: -1, _id: -1 }, page));
  }

  update(task: CollectionTask): Promise<void> {
    return guarded('collection task update', () => replaceTask(this.tasks, task));
  }

  claimDue(now: number, owner: string, leaseMs: number): Promise<CollectionTask | null> {
    return guarded('collection task claim', async () => {
      const doc = await this.tasks.findOneAndUpdate(
        {
          status: { $nin: TERMINAL },
          nextRunAt: { $lte: now },
          $or: [{ lease: null }, { 'lease.expiresAt': { $lte: now } }],
        },
        { $set: { lease: { owner, expiresAt: now + leaseMs } }, $inc: { version: 1 } },
        { sort: { nextRunAt: 1, insertedSeq: 1 }, returnDocument: 'after' },
      );
      return doc === null ? null : fromDocument(COLLECTION_TASK_RECORD, doc);
    });
  }

  /** One findOneAndUpdate per task (MongoDB updates and returns one document at a time). */
  async claimSeveralDue(now: number, owner: string, leaseMs: number, limit: number): Promise<CollectionTask[]> {
    const claimed: CollectionTask[] = [];
    while (claimed.length < limit) {
      const task = await this.claimDue(now, owner, leaseMs);
      if (task === null) break;
      claimed.push(task);
    }
    return claimed;
  }

  claimReclaimDue(now: number, owner: string, leaseMs: number): Promise<CollectionTask | null> {
    return guarded('collection task reclaim claim', async () => {
      const doc = await this.tasks.findOneAndUpdate(
        {
          status: COLLECTION_STATUS.FAILED,
          'reclaim.status': 'pending',
          'reclaim.nextRunAt': { $lte: now },
          $or: [{ 'reclaim.lease': null }, { 'reclaim.lease.expiresAt': { $lte: now } }],
        },
        { $set: { 'reclaim.lease': { owner, expiresAt: now + leaseMs } }, $inc: { version: 1 } },
        { sort: { 'reclaim.nextRunAt': 1, insertedSeq: 1 }, returnDocument: 'after' },
      );
      return doc === null ? null : fromDocument(COLLECTION_TASK_RECORD, doc);
    });
  }

  /** Walks the `finished` index (mongo-indexes.ts). */
  listFinishedSince(status: CollectionStatus, since: number, limit: number): Promise<CollectionTask[]> {
    return guarded('collection task finished list', () => this.table.find({ status, finishedAt: { $gte: since } }, { finishedAt: 1, _id: 1 }, limit));
  }

  countByStatus(): Promise<ReadonlyMap<CollectionStatus, number>> {
    return guarded('collection task count', async () => {
      // Sorting on `status` first lets the server walk the `due` index (status leads it) instead of every document.
      const rows = await this.tasks.aggregate<{ _id: CollectionStatus; count: number }>([
        { $sort: { status: 1 } }, { $group: { _id: '$status', count: { $sum: 1 } } },
      ]).toArray();
      return new Map(rows.map((row) => [row._id, row.count]));
    });
  }
}
