import type pg from 'pg';
import { ConcurrencyConflict, DomainError } from '../../core/domain/errors.js';
import type { ChangeSet, UnitOfWork } from '../../core/ports/unit-of-work.port.js';
import { distinctChanges } from '../records/change-set.js';
import { COMMAND_LOCK_CONSTRAINT, commandReplaceWrite, insertCommand, replaceCommand } from './pg-command-repository.js';
import { insertTask, replaceTask, taskReplaceWrite } from './pg-collection-task-repository.js';
import { replacePayment } from './pg-cashier-token-repository.js';
import { insertDeposit, replaceDeposit } from './pg-deposit-repository.js';
import { eventInsertWrite, insertEvent } from './pg-event-outbox.js';
import { prepared } from './pg-prepared.js';
import { checkVelocity } from './pg-withdrawal-policy-repository.js';
import { guarded, inAtomicScope, inAtomicScopeOf, inTransaction, isUniqueViolation, routeThroughScopes, writeTogether } from './pg-support.js';

/** Runs an insert; a unique violation of the row's own key is a ConcurrencyConflict on it. */
async function insertOrConflict(insert: () => Promise<void>, entity: string, id: string): Promise<void> {
  try {
    await insert();
  } catch (error) {
    if (isUniqueViolation(error)) throw new ConcurrencyConflict(entity, id);
    throw error;
  }
}

/**
 * Commits a change set in one SQL transaction, so a task's transition, its command's status (and with it the
 * address lock) and the outbox event land together or not at all; any throw rolls all of it back.
 *
 * The order mirrors the memory adapter's precedence: replaces first (a version miss is a ConcurrencyConflict; a
 * command turning terminal clears its lock marker, so a new command of the same change set may take the address),
 * then payment requests (a version miss is a ConcurrencyConflict), then deposits (a version miss, a taken transfer or deposit id is a ConcurrencyConflict), then inserts of tasks and
 * events (a taken key is a ConcurrencyConflict), then new commands (a taken number is a ConcurrencyConflict, a taken
 * address lock is BIZ-COMMAND-LOCKED).
 *
 * READ COMMITTED is enough: every write is a single-row statement whose condition is checked by the server as it
 * writes (version = n - 1, a unique index), and no write depends on an earlier read of the transaction.
 */
export class PgUnitOfWork implements UnitOfWork {
  constructor(private readonly pool: pg.Pool) {
    routeThroughScopes(pool);
  }

  /**
   * One SQL transaction on one connection, which every repository on this pool uses while `work` runs (the pool's
   * queries follow the async context: pg-support's atomic scope); a nested `commit` or transaction is a savepoint.
   * A crash (a killed process, a lost connection) before COMMIT leaves nothing of it: PostgreSQL rolls it back.
   */
  atomically<T>(work: () => Promise<T>): Promise<T> {
    return guarded('atomic scope', () => inAtomicScope(this.pool, work));
  }

  commit(changes: ChangeSet): Promise<void> {
    return guarded('unit of work commit', async () => {
      const { newCommands, newTasks, commands, tasks, events, newDeposits, deposits, payments, empty } = distinctChanges(changes);
      if (empty) return;
      if (changes.velocity === undefined && newCommands.length + newTasks.length + newDeposits.length + deposits.length + payments.length === 0
        && !inAtomicScopeOf(this.pool)) {
        // A workflow's transition (a task, its command, its event): one statement, no BEGIN and COMMIT (decision 158).
        await writeTogether(prepared(this.pool), [
          ...commands.map(commandReplaceWrite), ...tasks.map(taskReplaceWrite), ...events.map(eventInsertWrite),
        ]).catch((error: unknown) => {
          if (isUniqueViolation(error) && (error as { table?: string }).table === 'webhook_events') {
            throw new ConcurrencyConflict('webhook event', events.length === 1 ? events[0]!.eventId : '(one of the change set)');
          }
          throw error;
        });
        return;
      }
      await inTransaction(this.pool, async (client) => {
        // The user's velocity lock first, so the totals below are judged on everything committed before this commit.
        if (changes.velocity !== undefined) await checkVelocity(client, changes.velocity);
        for (const command of commands) await replaceCommand(client, command);
        for (const task of tasks) await replaceTask(client, task);
        for (const deposit of deposits) {
          if (!(await replaceDeposit(client, deposit))) throw new ConcurrencyConflict('deposit', deposit.depositId);
        }
        for (const change of payments) {
          if (!(await replacePayment(client, change))) throw new ConcurrencyConflict('cashier token', change.tokenNo);
        }
        // ON CONFLICT DO NOTHING (either key): a taken transfer waits for a racing inserter's commit, then writes nothing.
        for (const deposit of newDeposits) {
          if (!(await insertDeposit(client, deposit))) throw new ConcurrencyConflict('deposit', deposit.depositId);
        }
        for (const task of newTasks) await insertOrConflict(() => insertTask(client, task), 'collection task', task.taskNo);
        for (const event of events) await insertOrConflict(() => insertEvent(client, event), 'webhook event', event.eventId);
        if (newCommands.length > 0) {
          const { rows } = await client.query<{ command_no: string }>(
            'SELECT command_no FROM commands WHERE command_no = ANY($1::text[]) LIMIT 1', [newCommands.map((c) => c.commandNo)],
          );
          if (rows.length > 0) throw new ConcurrencyConflict('command', rows[0]!.command_no);
        }
        for (const command of newCommands) {
          try {
            await insertCommand(client, command, true);
          } catch (error) {
            if (isUniqueViolation(error, COMMAND_LOCK_CONSTRAINT)) throw new DomainError('BIZ-COMMAND-LOCKED');
            if (isUniqueViolation(error)) throw new ConcurrencyConflict('command', command.commandNo);
            throw error;
          }
        }
      });
    });
  }
}
