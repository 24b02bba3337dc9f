import type { Collection, Db, MongoClient } from 'mongodb';
import { ConcurrencyConflict, DomainError } from '../../core/domain/errors.js';
import type { ChangeSet, UnitOfWork } from '../../core/ports/unit-of-work.port.js';
import { distinctChanges } from '../records/change-set.js';
import { COLLECTIONS } from './collections.js';
import { holdsAddressLock } from '../records/command-record.js';
import { commandInsertDocument, replaceCommand } from './mongo-command-repository.js';
import { replaceTask, taskInsertDocument } from './mongo-collection-task-repository.js';
import type { CashierTokenDocument, CollectionTaskDocument, CommandDocument, WebhookEventDocument } from './mongo-documents.js';
import { depositInsertDocument, replaceDeposit, type DepositDocument } from './mongo-deposit-repository.js';
import { replacePayment } from './mongo-cashier-token-repository.js';
import { eventInsertDocument } from './mongo-event-outbox.js';
import { guarded, isDuplicateKey } from './mongo-support.js';
import { inAtomicScope, inTransaction } from './mongo-transaction.js';
import { checkVelocity } from './mongo-withdrawal-policy-repository.js';

/**
 * Commits a change set in one multi-document transaction, so the task's transition, the command's status (and with
 * it the address lock) and the outbox event land together or not at all.
 *
 * Order inside the transaction mirrors the memory adapter's precedence: replaces first (a version miss is a
 * ConcurrencyConflict; a command turning terminal drops its lock marker, so a new command in the same change set may
 * take the address), then payment requests (a version miss is a ConcurrencyConflict), then deposits (a version miss, a taken transfer or deposit id is a ConcurrencyConflict), then
 * inserts of tasks and events (a taken key is a ConcurrencyConflict), then new commands (a
 * taken number is a ConcurrencyConflict, a taken address lock is BIZ-COMMAND-LOCKED). Any throw aborts everything.
 *
 * Atomic on a replica set or mongos. With `client` null (a standalone server that connectMongo accepted only because
 * of `allowStandalone`) the same writes run in the same order without a transaction: every conflict is still
 * detected, and a precheck refuses a failing change set before its first write; only a writer racing in between
 * can leave part of a change set behind. Development only; connectMongo refuses a standalone server by default.
 */
export class MongoUnitOfWork implements UnitOfWork {
  private readonly commands: Collection<CommandDocument>;
  private readonly tasks: Collection<CollectionTaskDocument>;
  private readonly events: Collection<WebhookEventDocument>;
  private readonly deposits: Collection<DepositDocument>;
  private readonly cashierTokens: Collection<CashierTokenDocument>;

  constructor(private readonly db: Db, private readonly client: MongoClient | null) {
    this.commands = db.collection<CommandDocument>(COLLECTIONS.commands);
    this.tasks = db.collection<CollectionTaskDocument>(COLLECTIONS.tasks);
    this.events = db.collection<WebhookEventDocument>(COLLECTIONS.events);
    this.deposits = db.collection<DepositDocument>(COLLECTIONS.deposits);
    this.cashierTokens = db.collection<CashierTokenDocument>(COLLECTIONS.cashierTokens);
  }

  /**
   * One multi-document transaction whose session every collection of this store's `db` (createMongoAdapters' scoped
   * db) takes while `work` runs. The driver retries `work` on a transient error, so it must only write what its
   * inputs decide. A standalone server has no transactions: `work` runs as it is, not atomic (development only).
   */
  atomically<T>(work: () => Promise<T>): Promise<T> {
    if (this.client === null) return work();
    const client = this.client;
    return guarded('atomic scope', () => inAtomicScope(client, this.db, work));
  }

  commit(changes: ChangeSet): Promise<void> {
    return guarded('unit of work commit', async () => {
      const { newCommands, newTasks, commands, tasks, events, newDeposits, deposits, payments, empty } = distinctChanges(changes);
      if (empty) return;

      if (this.client === null) await this.precheck({ newCommands, newTasks, commands, tasks, events, newDeposits, deposits, payments });
      await inTransaction(this.client, async (session) => {
        if (changes.velocity !== undefined) await checkVelocity(this.db, changes.velocity, session);
        for (const command of commands) await replaceCommand(this.commands, command, session);
        for (const task of tasks) await replaceTask(this.tasks, task, session);
        for (const change of payments) {
          if (!(await replacePayment(this.cashierTokens, change, session))) throw new ConcurrencyConflict('cashier token', change.tokenNo);
        }
        for (const deposit of deposits) {
          if (!(await replaceDeposit(this.deposits, deposit, session))) throw new ConcurrencyConflict('deposit', deposit.depositId);
        }
        // A taken transfer (the unique (networkCode, transferId) index) or deposit id: a duplicate key, the same conflict.
        for (const deposit of newDeposits) {
          await insertOrConflict(() => this.deposits.insertOne(depositInsertDocument(deposit), { session }), 'deposit', deposit.depositId);
        }
        for (const task of newTasks) {
          await insertOrConflict(() => this.tasks.insertOne(taskInsertDocument(task), { session }), 'collection task', task.taskNo);
        }
        for (const event of events) {
          await insertOrConflict(() => this.events.insertOne(eventInsertDocument(event), { session }), 'webhook event', event.eventId);
        }
        if (newCommands.length > 0) {
          const taken = await this.commands.findOne({ _id: { $in: newCommands.map((c) => c.commandNo) } }, { session, projection: { _id: 1 } });
          if (taken !== null) throw new ConcurrencyConflict('command', taken._id);
        }
        for (const command of newCommands) {
          try {
            await this.commands.insertOne(commandInsertDocument(command, true), { session });
          } catch (error) {
            if (!isDuplicateKey(error)) throw error;
            // The number was checked free above inside this transaction, so the collision is the address lock.
            throw isDuplicateKey(error, '_id') ? new ConcurrencyConflict('command', command.commandNo) : new DomainError('BIZ-COMMAND-LOCKED');
          }
        }
      });
    });
  }

  /**
   * Standalone only (no transaction to roll back): checks every condition the writes check, in the same order, before
   * the first write. A change set that fails then leaves nothing behind, unless another writer races in between.
   */
  private async precheck(changes: Required<Omit<ChangeSet, 'velocity'>>): Promise<void> {
    for (const command of changes.commands) {
      if ((await this.commands.countDocuments({ _id: command.commandNo, version: command.version - 1 })) === 0) {
        throw new ConcurrencyConflict('command', command.commandNo);
      }
    }
    for (const task of changes.tasks) {
      if ((await this.tasks.countDocuments({ _id: task.taskNo, version: task.version - 1 })) === 0) {
        throw new ConcurrencyConflict('collection task', task.taskNo);
      }
    }
    for (const change of changes.payments) {
      if ((await this.cashierTokens.countDocuments({ _id: change.tokenNo, version: change.version - 1 })) === 0) {
        throw new ConcurrencyConflict('cashier token', change.tokenNo);
      }
    }
    for (const deposit of changes.deposits) {
      const filter = { _id: deposit.depositId, transferId: deposit.transferId, networkCode: deposit.networkCode, version: deposit.version - 1 };
      if ((await this.deposits.countDocuments(filter)) === 0) throw new ConcurrencyConflict('deposit', deposit.depositId);
    }
    for (const deposit of changes.newDeposits) {
      const taken = await this.deposits.countDocuments({
        $or: [{ _id: deposit.depositId }, { networkCode: deposit.networkCode, transferId: deposit.transferId }],
      });
      if (taken > 0) throw new ConcurrencyConflict('deposit', deposit.depositId);
    }
    const takenTask = await this.tasks.findOne({ _id: { $in: changes.newTasks.map((t) => t.taskNo) } }, { projection: { _id: 1 } });
    if (takenTask !== null) throw new ConcurrencyConflict('collection task', takenTask._id);
    const takenEvent = await this.events.findOne({ _id: { $in: changes.events.map((e) => e.eventId) } }, { projection: { _id: 1 } });
    if (takenEvent !== null) throw new ConcurrencyConflict('webhook event', takenEvent._id);
    const takenCommand = await this.commands.findOne({ _id: { $in: changes.newCommands.map((c) => c.commandNo) } }, { projection: { _id: 1 } });
    if (takenCommand !== null) throw new ConcurrencyConflict('command', takenCommand._id);
    const releasing = new Set(changes.commands.filter((c) => !holdsAddressLock(c)).map((c) => c.commandNo));
    const claimed = new Set<string>();
    for (const command of changes.newCommands.filter(holdsAddressLock)) {
      const holder = await this.commands.findOne({ lockedAddress: command.address! }, { projection: { _id: 1 } });
      if ((holder !== null && !releasing.has(holder._id)) || claimed.has(command.address!)) throw new DomainError('BIZ-COMMAND-LOCKED');
      claimed.add(command.address!);
    }
  }
}

async function insertOrConflict(insert: () => Promise<unknown>, entity: string, id: string): Promise<void> {
  try {
    await insert();
  } catch (error) {
    if (!isDuplicateKey(error)) throw error;
    throw new ConcurrencyConflict(entity, id);
  }
}
