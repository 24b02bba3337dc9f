import { ConcurrencyConflict } from '../../core/domain/errors.js';
import { COLLECTION_STATUS, type CollectionStatus, type CollectionTask } from '../../core/domain/model/index.js';
import type { CollectionTaskRepository } from '../../core/ports/collection-task-repository.port.js';
import { outboundCopy, storedCopy } from './frozen-copy.js';
import type { MemoryStore } from './memory-store.js';

function isTerminal(task: CollectionTask): boolean {
  return task.status === COLLECTION_STATUS.DONE || task.status === COLLECTION_STATUS.FAILED;
}

/** Collection tasks (inserted through MemoryUnitOfWork); claims lease a due task in one synchronous step. */
export class MemoryCollectionTaskRepository implements CollectionTaskRepository {
  constructor(private readonly store: MemoryStore) {}

  async get(taskNo: string): Promise<CollectionTask | null> {
    const task = this.store.tasks.get(taskNo);
    return task === undefined ? null : outboundCopy(task);
  }

  async findLatestByAddress(address: string): Promise<CollectionTask | null> {
    let latest: CollectionTask | undefined;
    // Insertion order breaks ties of startedAt: the later inserted task is the more recent.
    for (const task of this.store.tasks.values()) {
      if (task.address === address && (latest === undefined || task.startedAt >= latest.startedAt)) latest = task;
    }
    return latest === undefined ? null : outboundCopy(latest);
  }

  async update(task: CollectionTask): Promise<void> {
    const stored = this.store.tasks.get(task.taskNo);
    if (stored === undefined || stored.version !== task.version - 1) {
      throw new ConcurrencyConflict('collection task', task.taskNo);
    }
    this.store.tasks.set(task.taskNo, storedCopy(task));
  }

  async claimDue(now: number, owner: string, leaseMs: number): Promise<CollectionTask | null> {
    let due: CollectionTask | undefined;
    for (const task of this.store.tasks.values()) {
      const free = task.lease === null || task.lease.expiresAt <= now;
      if (!isTerminal(task) && task.nextRunAt <= now && free && (due === undefined || task.nextRunAt < due.nextRunAt)) {
        due = task;
      }
    }
    if (due === undefined) return null;
    const claimed: CollectionTask = { ...due, lease: { owner, expiresAt: now + leaseMs }, version: due.version + 1 };
    this.store.tasks.set(claimed.taskNo, storedCopy(claimed));
    return outboundCopy(claimed);
  }

  async claimReclaimDue(now: number, owner: string, leaseMs: number): Promise<CollectionTask | null> {
    let due: CollectionTask | undefined;
    for (const task of this.store.tasks.values()) {
      const r = task.reclaim;
      if (task.status !== COLLECTION_STATUS.FAILED || r === undefined || r.status !== 'pending' || r.nextRunAt > now) continue;
      if (r.lease !== null && r.lease.expiresAt > now) continue;
      if (due === undefined || r.nextRunAt < due.reclaim!.nextRunAt) due = task;
    }
    if (due === undefined) return null;
    const claimed: CollectionTask = { ...due, reclaim: { ...due.reclaim!, lease: { owner, expiresAt: now + leaseMs } }, version: due.version + 1 };
    this.store.tasks.set(claimed.taskNo, storedCopy(claimed));
    return outboundCopy(claimed);
  }

  async countByStatus(): Promise<ReadonlyMap<CollectionStatus, number>> {
    const counts = new Map<CollectionStatus, number>();
    for (const task of this.store.tasks.values()) counts.set(task.status, (counts.get(task.status) ?? 0) + 1);
    return counts;
  }
}
