import type { CollectionTask } from '../../domain/model/collection-task.js';
import type { TransactionState } from '../../domain/model/chain.js';
import type { PreparedTransaction } from '../../domain/model/command.js';
import type { CollectionTaskRepository } from '../../ports/collection-task-repository.port.js';
import { withReceipt } from './collection-steps.js';

/**
 * What the two workflows stored on a collection task share (the collection itself and its post-failure reclaim):
 * the task number as key, reads and optimistic writes of the whole task, and its cost counted from each receipt.
 */
export abstract class TaskWorkflowBase {
  constructor(protected readonly taskStore: CollectionTaskRepository) {}

  key(task: CollectionTask): string {
    return task.taskNo;
  }

  get(taskNo: string): Promise<CollectionTask | null> {
    return this.taskStore.get(taskNo);
  }

  async save(next: CollectionTask, readVersion: number): Promise<CollectionTask> {
    const stored: CollectionTask = { ...next, version: readVersion + 1 };
    await this.taskStore.update(stored);
    return stored;
  }

  noteReceipt(task: CollectionTask, record: PreparedTransaction, state: TransactionState): CollectionTask {
    return withReceipt(task, record, state);
  }
}
