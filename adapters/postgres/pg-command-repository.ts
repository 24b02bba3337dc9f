import type pg from 'pg';
import { ConcurrencyConflict } from '../../core/domain/errors.js';
import { COMMAND_STATUS, COMMAND_TYPE, type Command, type CommandStatus, type CommandType, type UserId } from '../../core/domain/model/index.js';
import type { CommandRepository } from '../../core/ports/command-repository.port.js';
import type { Page, PageRequest } from '../../core/ports/page.js';
import { fromStoredCommand, holdsAddressLock, toStoredCommand, type StoredCommand } from '../records/command-record.js';
import {
  claimDue, guarded, insertRow, isUniqueViolation, jsonb, pageOf, replaceStatement, versionedReplace, type Queryable, type Row, type TogetherWrite,
} from './pg-support.js';
import { prepared } from './pg-prepared.js';

/** The unique constraint that makes "one active fund-moving command per address" a store rule. */
export const COMMAND_LOCK_CONSTRAINT = 'commands_one_lock_per_address';

/** Record -> row of `commands` (lease flattened into the two columns its claim filters on). */
function toRow(record: StoredCommand): Row & { version: number } {
  return {
    command_no: record.id, user_id: record.userId, type: record.type, status: record.status, address: record.address,
    asset_symbol: record.assetSymbol, locked_amount: record.lockedAmount, params: jsonb(record.params),
    transaction: jsonb(record.transaction), error_code: record.errorCode, last_error: record.lastError,
    created_at: record.createdAt, started_at: record.startedAt, finished_at: record.finishedAt,
    next_run_at: record.nextRunAt ?? record.createdAt, lease_owner: record.lease?.owner ?? null,
    lease_expires_at: record.lease?.expiresAt ?? null, approval: jsonb(record.approval ?? null),
    funding: jsonb(record.funding ?? null), version: record.version,
  };
}

/** Row of `commands` -> record. */
function fromRow(row: Row): StoredCommand {
  const owner = row['lease_owner'] as string | null;
  return {
    id: row['command_no'] as string, userId: row['user_id'] as number, type: row['type'] as CommandType,
    status: row['status'] as CommandStatus, address: row['address'] as string | null,
    assetSymbol: row['asset_symbol'] as string | null, lockedAmount: row['locked_amount'] as string,
    params: row['params'] as StoredCommand['params'], transaction: row['transaction'] as StoredCommand['transaction'],
    errorCode: row['error_code'] as string | null, lastError: row['last_error'] as string | null,
    createdAt: row['created_at'] as number, startedAt: row['started_at'] as number | null,
    finishedAt: row['finished_at'] as number | null, nextRunAt: row['next_run_at'] as number,
    lease: owner === null ? null : { owner, expiresAt: row['lease_expires_at'] as number }, version: row['version'] as number,
    ...(row['approval'] == null ? {} : { approval: row['approval'] as StoredCommand['approval'] }),
    ...(row['funding'] == null ? {} : { funding: row['funding'] as StoredCommand['funding'] }),
  };
}

/**
 * The columns fromRow reads, named (issue #37: never `SELECT *`; the claim-only `locked_address` and `inserted_seq`
 * are not parsed). A column missing here fails the contract suite's round trips.
 */
export const COMMAND_COLUMNS = 'command_no, user_id, type, status, address, asset_symbol, locked_amount, params, transaction, '
  + 'error_code, last_error, created_at, started_at, finished_at, next_run_at, lease_owner, lease_expires_at, approval, funding, version';

/** Row -> domain value, through the shared record codec. */
export function commandFromRow(row: Row): Command {
  return fromStoredCommand(fromRow(row));
}

/** Inserts a command; `markLock` sets `locked_address` when it holds its address's lock (a second holder violates the constraint). */
export async function insertCommand(q: Queryable, command: Command, markLock: boolean): Promise<void> {
  const row = toRow(toStoredCommand(command));
  await insertRow(q, 'commands', { ...row, locked_address: markLock && holdsAddressLock(command) ? command.address : null });
}

/**
 * The optimistic replace of a stored command; the lock marker is dropped once the command no longer holds the lock
 * (a command never regains it: terminal is final) and kept otherwise.
 */
export async function replaceCommand(q: Queryable, command: Command): Promise<void> {
  if (!(await versionedReplace(prepared(q), 'commands', { column: 'command_no', value: command.commandNo }, replacedRow(command)))) {
    throw new ConcurrencyConflict('command', command.commandNo);
  }
}

/** replaceCommand as one write of a combined statement (writeTogether). */
export function commandReplaceWrite(command: Command): TogetherWrite {
  return {
    statement: (from) => replaceStatement('commands', { column: 'command_no', value: command.commandNo }, replacedRow(command), from),
    replaces: { entity: 'command', id: command.commandNo },
  };
}

/** The row a replace writes: a command that no longer holds its address's lock gives the lock marker up. */
function replacedRow(command: Command): Row & { version: number } {
  const row = toRow(toStoredCommand(command));
  return holdsAddressLock(command) ? row : { ...row, locked_address: null };
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
        await insertCommand(this.pool, command, true);
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
    return guarded('command read', async () => {
      const { rows } = await prepared(this.pool).query(`SELECT ${COMMAND_COLUMNS} FROM commands WHERE command_no = $1`, [commandNo]);
      return rows.length === 0 ? null : commandFromRow(rows[0] as Row);
    });
  }

  findActiveByAddress(address: string): Promise<Command | null> {
    return guarded('command read', async () => {
      const { rows } = await prepared(this.pool).query(
        `SELECT ${COMMAND_COLUMNS} FROM commands WHERE address = $1 AND type <> ${COMMAND_TYPE.QUERY} AND ${ACTIVE} ORDER BY created_at, inserted_seq LIMIT 1`,
        [address],
      );
      return rows.length === 0 ? null : commandFromRow(rows[0] as Row);
    });
  }

  listByUser(userId: UserId, filter: { readonly type?: CommandType; readonly status?: CommandStatus }, page: PageRequest): Promise<Page<Command>> {
    return guarded('command list', () => {
      const params: unknown[] = [userId];
      let where = 'user_id = $1';
      if (filter.type !== undefined) where += ` AND type = $${params.push(filter.type)}`;
      if (filter.status !== undefined) where += ` AND status = $${params.push(filter.status)}`;
      return pageOf(this.pool, { table: 'commands', where, order: 'created_at DESC, inserted_seq DESC', params }, commandFromRow, page);
    });
  }

  update(command: Command): Promise<void> {
    return guarded('command update', () => replaceCommand(this.pool, command));
  }

  /** Walks commands_finished (migration 0028), a partial index of the finished commands by type, status and finish. */
  listFinishedSince(type: CommandType, status: CommandStatus, since: number, limit: number): Promise<Command[]> {
    return guarded('command finished list', async () => {
      const { rows } = await this.pool.query(
        `SELECT ${COMMAND_COLUMNS} FROM commands WHERE type = $1 AND status = $2 AND finished_at >= $3 AND finished_at IS NOT NULL ORDER BY finished_at, command_no COLLATE "C" LIMIT $4`,
        [type, status, since, limit],
      );
      return rows.map((row) => commandFromRow(row as Row));
    });
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
