-- Issue #36: the ledger's catch-up pass lists the collection tasks finished since a time, of every user, oldest finish
-- first (CollectionTaskRepository.listFinishedSince); only finished tasks are indexed.
CREATE INDEX collection_tasks_finished ON collection_tasks (status, finished_at, task_no COLLATE "C")
  WHERE finished_at IS NOT NULL;
