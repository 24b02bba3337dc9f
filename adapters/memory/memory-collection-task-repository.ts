import { ConcurrencyConflict } from '../../core/domain/errors.js';
import { type CollectionStatus, type CollectionTask, type UserId } from '../../core/domain/model/index.js';
import type { CollectionTaskFilter, CollectionTaskRepository } from '../../core/ports/collection-task-repository.port.js';
import type { Page, PageRequest } from '../../core/ports/page.js';
import { outboundCopy, storedCopy } from './frozen-copy.js';
import type { MemoryStore } from './memory-store.js';
import { pageOf, pageOfKeys } from './paging.js';

/**
 * Collection tasks (inserted through MemoryUnitOfWork); claims lease a due task in one synchronous step, found through
 * the table's due-time index (memory-tables.ts) instead of a scan.
 */
export class MemoryCollectionTaskRepository implements CollectionTaskRepository {
  constructor(private readonly store: MemoryStore) {}

  async get(taskNo: string): Promise<CollectionTask | null> {
    const task = this.store.tasks.get(taskNo);
    return task === undefined ? null : outboundCopy(task);
  }

  async findLatestByAddress(address: string): Promise<CollectionTask | null> {
    let latest: CollectionTask | undefined;
    // Insertion order breaks ties of startedAt: the later inserted task is the more recent.
    for (const taskNo of this.store.tasks.byAddress.keys(address)) {
      const task = this.store.tasks.get(taskNo)!;
      if (latest === undefined || task.startedAt >= latest.startedAt) latest = task;
    }
    return latest === undefined ? null : outboundCopy(latest);
  }

  async listByUser(userId: UserId, filter: CollectionTaskFilter, page: PageRequest): Promise<Page<CollectionTask>> {
    const byUser = this.store.tasks.byUser;
    if (filter.status === undefined && filter.address === undefined) return pageOfKeys(this.store.tasks, byUser.slice(userId, page.offset, page.limit));
    // A filtered list reads only this user's tasks, already newest first.
    const matching = byUser.keys(userId).map((no) => this.store.tasks.get(no)!).filter((t) =>
      (filter.status === undefined || t.status === filter.status) && (filter.address === undefined || t.address === filter.address));
    return pageOf(matching, page);
  }

  async listFinishedSince(status: CollectionStatus, since: number, limit: number): Promise<CollectionTask[]> {
    const found = [...this.store.tasks.values()].filter((t) => t.status === status && t.finishedAt !== null && t.finishedAt >= since);
    found.sort((a, b) => a.finishedAt! - b.finishedAt! || (a.taskNo < b.taskNo ? -1 : a.taskNo > b.taskNo ? 1 : 0));
    return found.slice(0, limit).map(outboundCopy);
  }

  async update(task: CollectionTask): Promise<void> {
    const stored = this.store.tasks.get(task.taskNo);
    if (stored === undefined || stored.version !== task.version - 1) {
      throw new ConcurrencyConflict('collection task', task.taskNo);
    }
    this.store.tasks.set(task.taskNo, storedCopy(task));
  }

  async claimDue(now: number, owner: string, leaseMs: number): Promise<CollectionTask | null> {
    const [first] = this.store.tasks.due.queue.first(now);
    if (first === undefined) return null;
    const due = this.store.tasks.get(first.key)!;
    const claimed: CollectionTask = { ...due, lease: { owner, expiresAt: now + leaseMs }, version: due.version + 1 };
    this.store.tasks.set(claimed.taskNo, storedCopy(claimed));
    return outboundCopy(claimed);
  }

  async claimSeveralDue(now: number, owner: string, leaseMs: number, limit: number): Promise<CollectionTask[]> {
    const claimed: CollectionTask[] = [];
    while (claimed.length < limit) {
      const task = await this.claimDue(now, owner, leaseMs);
      if (task === null) break;
      claimed.push(task);
    }
    return claimed;
  }

  async claimReclaimDue(now: number, owner: string, leaseMs: number): Promise<CollectionTask | null> {
    const [first] = this.store.tasks.reclaimDue.queue.first(now);
    if (first === undefined) return null;
    const due = this.store.tasks.get(first.key)!;
    const claimed: CollectionTask = { ...due, reclaim: { ...due.reclaim!, lease: { owner, expiresAt: now + leaseMs } }, version: due.version + 1 };
    this.store.tasks.set(claimed.taskNo, storedCopy(claimed));
    return outboundCopy(claimed);
  }

  async countByStatus(): Promise<ReadonlyMap<CollectionStatus, number>> {
    return new Map(this.store.tasks.byStatus.counts);
  }
}
