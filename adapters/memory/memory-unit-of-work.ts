import { ConcurrencyConflict, DomainError } from '../../core/domain/errors.js';
import type { Command, Deposit, PaymentRequestChange } from '../../core/domain/model/index.js';
import type { ChangeSet, UnitOfWork } from '../../core/ports/unit-of-work.port.js';
import { velocityRefusal, velocityTotals, type VelocityCharge } from '../../core/domain/withdrawal-policy-rules.js';
import { findLockHolder, holdsAddressLock } from './command-lock.js';
import { transferKey } from './memory-deposit-repository.js';
import { storedCopy } from './frozen-copy.js';
import type { MemoryStore } from './memory-store.js';

/** Throws ConcurrencyConflict when a key repeats inside one change set (two writes of one row cannot both win). */
function assertDistinct(entity: string, keys: readonly string[]): void {
  const seen = new Set<string>();
  for (const key of keys) {
    if (seen.has(key)) throw new ConcurrencyConflict(entity, key);
    seen.add(key);
  }
}

/**
 * Commits a change set across the memory tables: every version and lock is checked first, then everything is
 * applied, with no `await` in between — so either all writes land or none does, and nothing interleaves.
 */
export class MemoryUnitOfWork implements UnitOfWork {
  constructor(private readonly store: MemoryStore) {}

  /**
   * All of the scope's writes or none (issue #39 item 7): a throw takes back every write made inside, a nested scope is
   * a savepoint, and the scopes of the store run one at a time, each alone (memory-scope.ts).
   */
  atomically<T>(work: () => Promise<T>): Promise<T> {
    return this.store.gate.atomically(work);
  }

  async commit(changes: ChangeSet): Promise<void> {
    const { newCommands = [], newTasks = [], commands = [], tasks = [], events = [], newDeposits = [], deposits = [], payments = [] } = changes;
    this.checkVersions(changes);
    this.checkInserts(changes);
    this.checkDeposits(newDeposits, deposits);
    this.checkPayments(payments);
    this.checkLocks(newCommands, commands);
    this.checkVelocity(changes.velocity);

    for (const command of [...commands, ...newCommands]) this.store.commands.set(command.commandNo, storedCopy(command));
    for (const task of [...tasks, ...newTasks]) this.store.tasks.set(task.taskNo, storedCopy(task));
    for (const event of events) this.store.events.set(event.eventId, storedCopy(event));
    for (const deposit of [...deposits, ...newDeposits]) this.store.deposits.set(deposit.depositId, storedCopy(deposit));
    for (const d of newDeposits) this.store.deposits.idsByTransfer.set(transferKey(d.networkCode, d.transferId), d.depositId);
    for (const change of payments) {
      const stored = this.store.cashierTokens.get(change.tokenNo)!;
      this.store.cashierTokens.set(change.tokenNo, storedCopy({ ...stored, payment: change.payment, version: change.version }));
    }
  }

  /** ChangeSet.payments: each token exists at `version - 1`, once per change set. */
  private checkPayments(payments: readonly PaymentRequestChange[]): void {
    assertDistinct('cashier token', payments.map((p) => p.tokenNo));
    for (const change of payments) {
      if (this.store.cashierTokens.get(change.tokenNo)?.version !== change.version - 1) {
        throw new ConcurrencyConflict('cashier token', change.tokenNo);
      }
    }
  }

  /** ChangeSet.velocity: the user's committed withdrawals (no await: nothing commits in between) against the limits. */
  private checkVelocity(charge: VelocityCharge | undefined): void {
    if (charge === undefined) return;
    const mine = this.store.commands.byUser.keys(charge.userId).map((no) => this.store.commands.get(no)!);
    const refusal = velocityRefusal(velocityTotals(mine, charge), charge);
    if (refusal !== null) throw new DomainError(refusal);
  }

  /** The rules of MemoryDepositRepository.update and insert, where a transfer already recorded is a conflict too. */
  private checkDeposits(newDeposits: readonly Deposit[], deposits: readonly Deposit[]): void {
    const table = this.store.deposits;
    assertDistinct('deposit', [...deposits, ...newDeposits].map((d) => d.depositId));
    assertDistinct('deposit', newDeposits.map((d) => transferKey(d.networkCode, d.transferId)));
    for (const deposit of deposits) {
      const stored = table.get(deposit.depositId);
      if (stored === undefined || stored.version !== deposit.version - 1
        || stored.transferId !== deposit.transferId || stored.networkCode !== deposit.networkCode) {
        throw new ConcurrencyConflict('deposit', deposit.depositId);
      }
    }
    for (const d of newDeposits) {
      if (table.has(d.depositId) || table.idsByTransfer.has(transferKey(d.networkCode, d.transferId))) {
        throw new ConcurrencyConflict('deposit', d.depositId);
      }
    }
  }

  private checkVersions(changes: ChangeSet): void {
    const commands = changes.commands ?? [];
    const tasks = changes.tasks ?? [];
    assertDistinct('command', commands.map((c) => c.commandNo));
    assertDistinct('collection task', tasks.map((t) => t.taskNo));
    for (const command of commands) {
      if (this.store.commands.get(command.commandNo)?.version !== command.version - 1) {
        throw new ConcurrencyConflict('command', command.commandNo);
      }
    }
    for (const task of tasks) {
      if (this.store.tasks.get(task.taskNo)?.version !== task.version - 1) {
        throw new ConcurrencyConflict('collection task', task.taskNo);
      }
    }
  }

  private checkInserts(changes: ChangeSet): void {
    const newCommands = (changes.newCommands ?? []).map((c) => c.commandNo);
    const newTasks = (changes.newTasks ?? []).map((t) => t.taskNo);
    const events = (changes.events ?? []).map((e) => e.eventId);
    assertDistinct('command', [...newCommands, ...(changes.commands ?? []).map((c) => c.commandNo)]);
    assertDistinct('collection task', [...newTasks, ...(changes.tasks ?? []).map((t) => t.taskNo)]);
    assertDistinct('webhook event', events);
    for (const no of newCommands) if (this.store.commands.has(no)) throw new ConcurrencyConflict('command', no);
    for (const no of newTasks) if (this.store.tasks.has(no)) throw new ConcurrencyConflict('collection task', no);
    for (const id of events) if (this.store.events.has(id)) throw new ConcurrencyConflict('webhook event', id);
  }

  /**
   * The lock rule of CommandRepository.insert({ locking: true }), judged on the state after this change set:
   * a replaced command that turns terminal here releases its address, and two new commands cannot share one.
   * Only new commands that would hold the lock (fund-moving, PENDING or RUNNING) are checked.
   */
  private checkLocks(newCommands: readonly Command[], replaced: readonly Command[]): void {
    const replacements = new Map(replaced.map((c) => [c.commandNo, c]));
    const accepted: Command[] = [];
    const store = this.store;
    // The holders after this change set, among the only candidates there are: the address's indexed holders (as
    // replaced here), the replaced commands, and the new ones accepted so far.
    function* holdersAfter(address: string): Generator<Command> {
      for (const no of store.commands.lockHolders.keys(address)) yield replacements.get(no) ?? store.commands.get(no)!;
      yield* replaced;
      yield* accepted;
    }
    for (const command of newCommands) {
      if (holdsAddressLock(command) && findLockHolder(holdersAfter(command.address!), command.address!) !== undefined) {
        throw new DomainError('BIZ-COMMAND-LOCKED');
      }
      accepted.push(command);
    }
  }
}
