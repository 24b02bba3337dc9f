import type { CollectionTask } from '../../domain/model/collection-task.js';
import type { PreparedTransaction } from '../../domain/model/command.js';
import { NO_COST, settleDead } from '../../domain/sweep-cost.js';
import type { CollectionTaskRepository } from '../../ports/collection-task-repository.port.js';
import { withReceipt } from './collection-steps.js';
import type { Seen, WorkflowStore } from './workflow.js';

/**
 * What the two workflows stored on a collection task share (the collection itself and its post-failure reclaim):
 * the task number as key, reads and optimistic writes of the whole task; each brings its own claim and lease.
 */
export function taskStore(
  tasks: CollectionTaskRepository, lease: Pick<WorkflowStore<CollectionTask>, 'claim' | 'holds' | 'leased' | 'keeps'>,
): WorkflowStore<CollectionTask> {
  return {
    key: (task) => task.taskNo,
    get: (taskNo) => tasks.get(taskNo),
    save: async (next, readVersion) => {
      const stored: CollectionTask = { ...next, version: readVersion + 1 };
      await tasks.update(stored);
      return stored;
    },
    ...lease,
  };
}

/** A task's cost counted from each receipt; a transaction proven dead settled at no cost. */
export function notedOnTask(task: CollectionTask, record: PreparedTransaction, seen: Extract<Seen, { kind: 'receipt' | 'dead' }>): CollectionTask {
  return seen.kind === 'dead' ? { ...task, cost: settleDead(task.cost ?? NO_COST, record.txid) } : withReceipt(task, record, seen.state);
}
