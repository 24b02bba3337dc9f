import type pg from 'pg';
import { ConcurrencyConflict } from '../../core/domain/errors.js';
import { COMMAND_STATUS, COMMAND_TYPE, type Command, type CommandStatus, type CommandType, type UserId } from '../../core/domain/model/index.js';
import type { CommandRepository } from '../../core/ports/command-repository.port.js';
import type { Page, PageRequest } from '../../core/ports/page.js';
import { COMMAND_RECORD, holdsAddressLock } from '../records/command-record.js';
import { claimDue, guarded, inAtomicScopeOf, inTransaction, isUniqueViolation, type Queryable, type Row, type TogetherWrite } from './pg-support.js';
import { prepared } from './pg-prepared.js';
import { PgTable } from './pg-table.js';

/** The unique constraint that makes "one active fund-moving command per address" a store rule. */
export const COMMAND_LOCK_CONSTRAINT = 'commands_one_lock_per_address';

/** The `commands` table, from the record's descriptor; `locked_address` and `inserted_seq` are this store's own. */
const COMMANDS = new PgTable(COMMAND_RECORD);

/**
 * The columns the mapping reads, named (issue #37: never `SELECT *`; the claim-only `locked_address` and `inserted_seq`
 * are not parsed). A column missing from the descriptor fails the contract suite's round trips.
 */
export const COMMAND_COLUMNS = COMMANDS.columns;

/** Row -> domain value, through the shared record codec. */
export function commandFromRow(row: Row): Command {
  return COMMANDS.fromRow(row);
}

/** Inserts a command; `markLock` sets `locked_address` when it holds its address's lock (a second holder violates the constraint). */
export async function insertCommand(q: Queryable, command: Command, markLock: boolean): Promise<void> {
  await COMMANDS.insert(q, command, { locked_address: markLock && holdsAddressLock(command) ? command.address : null });
}

/**
 * The optimistic replace of a stored command; the lock marker is dropped once the command no longer holds the lock
 * (a command never regains it: terminal is final) and kept otherwise.
 */
export async function replaceCommand(q: Queryable, command: Command): Promise<void> {
  if (!(await COMMANDS.replace(prepared(q), command, lockMarker(command)))) throw new ConcurrencyConflict('command', command.commandNo);
}

/** replaceCommand as one write of a combined statement (writeTogether). */
export function commandReplaceWrite(command: Command): TogetherWrite {
  return COMMANDS.replaceWrite(command, lockMarker(command));
}

/** What a replace writes of the lock marker: nothing while the command holds the lock, null once it gave it up. */
function lockMarker(command: Command): Row {
  return holdsAddressLock(command) ? {} : { locked_address: null };
}

const ACTIVE = `status IN (${COMMAND_STATUS.PENDING}, ${COMMAND_STATUS.RUNNING})`;

/** Commands; "one active fund-moving command per address" is the unique constraint on `locked_address`. */
export class PgCommandRepository implements CommandRepository {
  constructor(private readonly pool: pg.Pool) {}

  insert(command: Command, options: { readonly locking: boolean }): Promise<'created' | 'locked'> {
    return guarded('command insert', async () => {
      // An active fund-moving command always holds its address's lock when it can, locking or not (as in the other
      // stores): a later locking insert on the address must see it.
      try {
        // Inside an atomic scope, a savepoint: the refused insert must not abort the scope's transaction (an idempotent
        // request's scope goes on to record its 409 answer).
        if (inAtomicScopeOf(this.pool)) await inTransaction(this.pool, (client) => insertCommand(client, command, true));
        else await insertCommand(this.pool, command, true);
        return 'created';
      } catch (error) {
        if (isUniqueViolation(error, COMMAND_LOCK_CONSTRAINT)) {
          if (options.locking) return 'locked';
        } else if (isUniqueViolation(error)) {
          throw new ConcurrencyConflict('command', command.commandNo);
        } else {
          throw error;
        }
      }
      // A non-locking insert is not refused by the rule: stored without the marker (it never held the lock).
      try {
        await insertCommand(this.pool, command, false);
        return 'created';
      } catch (error) {
        if (isUniqueViolation(error)) throw new ConcurrencyConflict('command', command.commandNo);
        throw error;
      }
    });
  }

  get(commandNo: string): Promise<Command | null> {
    return guarded('command read', () => COMMANDS.get(this.pool, commandNo));
  }

  findActiveByAddress(address: string): Promise<Command | null> {
    return guarded('command read', () => COMMANDS.first(prepared(this.pool),
      `address = $1 AND type <> ${COMMAND_TYPE.QUERY} AND ${ACTIVE}`, [address], 'created_at, inserted_seq'));
  }

  listByUser(userId: UserId, filter: { readonly type?: CommandType; readonly status?: CommandStatus }, page: PageRequest): Promise<Page<Command>> {
    return guarded('command list', () => {
      const params: unknown[] = [userId];
      let where = 'user_id = $1';
      if (filter.type !== undefined) where += ` AND type = $${params.push(filter.type)}`;
      if (filter.status !== undefined) where += ` AND status = $${params.push(filter.status)}`;
      return COMMANDS.page(this.pool, { where, order: 'created_at DESC, inserted_seq DESC', params }, page);
    });
  }

  update(command: Command): Promise<void> {
    return guarded('command update', () => replaceCommand(this.pool, command));
  }

  /** Walks commands_finished (migration 0028), a partial index of the finished commands by type, status and finish. */
  listFinishedSince(type: CommandType, status: CommandStatus, since: number, limit: number): Promise<Command[]> {
    return guarded('command finished list', () => COMMANDS.select(this.pool, 'type = $1 AND status = $2 AND finished_at >= $3 AND finished_at IS NOT NULL',
      [type, status, since], 'finished_at, command_no COLLATE "C"', limit));
  }

  claimDue(types: readonly CommandType[], now: number, owner: string, leaseMs: number): Promise<Command | null> {
    return guarded('command claim', async () => {
      if (types.length === 0) return null;
      const rows = await claimDue(this.pool, 'commands', {
        key: 'command_no',
        where: `${ACTIVE} AND type = ANY($1::smallint[]) AND next_run_at <= $2 AND (lease_owner IS NULL OR lease_expires_at <= $2)`,
        order: 'next_run_at, created_at, inserted_seq',
        set: 'lease_owner = $3, lease_expires_at = $4, version = version + 1',
        params: [[...types], now, owner, now + leaseMs],
      });
      return rows.length === 0 ? null : commandFromRow(rows[0]!);
    });
  }
}
