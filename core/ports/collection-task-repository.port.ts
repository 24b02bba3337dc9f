import type { CollectionStatus, CollectionTask } from '../domain/model/collection-task.js';
import type { UserId } from '../domain/model/common.js';
import type { Page, PageRequest } from './page.js';

/** Which of a user's tasks a list keeps: each given field must match (absent: any). */
export interface CollectionTaskFilter {
  readonly status?: CollectionStatus;
  /** The swept sub-address. */
  readonly address?: string;
}

export interface CollectionTaskRepository {
  get(taskNo: string): Promise<CollectionTask | null>;
  /** The most recently created task of the sub-address, or null. */
  findLatestByAddress(address: string): Promise<CollectionTask | null>;
  /**
   * The user's tasks that match `filter`, newest first (startedAt; among equal ones the later inserted first): one page
   * of them and how many matched in all (GET /collections, issue #34).
   */
  listByUser(userId: UserId, filter: CollectionTaskFilter, page: PageRequest): Promise<Page<CollectionTask>>;
  /** Optimistic replace: stored version must be `task.version - 1`, else ConcurrencyConflict. */
  update(task: CollectionTask): Promise<void>;
  /**
   * Claims one non-terminal task with nextRunAt <= now whose lease is absent or expired, setting the lease to
   * (owner, now + leaseMs) and bumping the version — atomically, so two workers never claim the same task.
   */
  claimDue(now: number, owner: string, leaseMs: number): Promise<CollectionTask | null>;
  /**
   * Claims up to `limit` due tasks at once, each exactly as claimDue would (the earliest due first; a runner starting
   * many sweeps claims them with one round trip instead of one each); none when none is due.
   */
  claimSeveralDue(now: number, owner: string, leaseMs: number, limit: number): Promise<CollectionTask[]>;
  /**
   * Claims one FAILED task whose reclaim is pending, with reclaim.nextRunAt <= now and a reclaim lease absent or
   * expired, setting reclaim.lease to (owner, now + leaseMs) and bumping the version — atomically, like claimDue.
   * Never touches the task's own status, lease or schedule.
   */
  claimReclaimDue(now: number, owner: string, leaseMs: number): Promise<CollectionTask | null>;
  /**
   * How many tasks are in each status now, DONE and FAILED included; a status without a task is absent. A snapshot
   * for monitoring (the worker's tasks-by-status gauge reads it at each scrape), not a consistent read across statuses.
   */
  countByStatus(): Promise<ReadonlyMap<CollectionStatus, number>>;
  /**
   * Up to `limit` tasks of every user in `status` (DONE or FAILED) that finished at or after `since`, oldest finish
   * first (then by task number): what the ledger's catch-up pass books (issue #36).
   */
  listFinishedSince(status: CollectionStatus, since: number, limit: number): Promise<CollectionTask[]>;
}
