-- Issue #36: the ledger's catch-up pass over the withdrawals lists the commands of a type finished since a time, of
-- every user, oldest finish first (CommandRepository.listFinishedSince); only finished commands are indexed.
CREATE INDEX commands_finished ON commands (type, status, finished_at, command_no COLLATE "C")
  WHERE finished_at IS NOT NULL;
