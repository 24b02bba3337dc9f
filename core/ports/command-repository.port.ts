import type { Command, CommandStatus, CommandType } from '../domain/model/command.js';
import type { UserId } from '../domain/model/common.js';
import type { Page, PageRequest } from './page.js';

export interface CommandRepository {
  /**
   * Inserts a command. For a fund-moving command (`locking` true) the insert is refused with 'locked' when the
   * address already has a PENDING or RUNNING fund-moving command — atomically, so two racing inserts cannot both pass.
   */
  insert(command: Command, options: { readonly locking: boolean }): Promise<'created' | 'locked'>;
  get(commandNo: string): Promise<Command | null>;
  /** The PENDING or RUNNING fund-moving command on the address, if any. */
  findActiveByAddress(address: string): Promise<Command | null>;
  /** The user's commands, newest first. */
  listByUser(userId: UserId, filter: { readonly type?: CommandType; readonly status?: CommandStatus }, page: PageRequest): Promise<Page<Command>>;
  /** Optimistic replace: stored version must be `command.version - 1`, else ConcurrencyConflict. */
  update(command: Command): Promise<void>;
  /**
   * Claims one PENDING or RUNNING command of the given types whose `nextRunAt` (absent: due at once) is <= now and
   * whose lease is absent or expired, setting the lease to (owner, now + leaseMs) and bumping the version —
   * atomically, so two workers never claim the same command. The earliest due first (then the oldest).
   */
  claimDue(types: readonly CommandType[], now: number, owner: string, leaseMs: number): Promise<Command | null>;
  /**
   * Up to `limit` commands of every user of the type in `status` (SUCCESS or FAILED) that finished at or after `since`,
   * oldest finish first (then by command number, in code-unit order): what the ledger's catch-up pass over the
   * withdrawals books (issue #36), as CollectionTaskRepository.listFinishedSince does for the sweeps.
   */
  listFinishedSince(type: CommandType, status: CommandStatus, since: number, limit: number): Promise<Command[]>;
}
