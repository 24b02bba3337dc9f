import { runs } from './support/depth.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Closable, type ContractOptions, type MakeSubject, useFreshSubject, withSubject } from './support/contract-options.js';
import { ConcurrencyConflict, DomainError } from '../core/domain/errors.js';
import { COMMAND_STATUS, COMMAND_TYPE, type Command, type CommandStatus } from '../core/domain/model/command.js';
import type { CollectionStatus, CollectionTask } from '../core/domain/model/collection-task.js';
import type { Deposit, DepositStatus } from '../core/domain/model/deposit.js';
import type { CollectionTaskRepository } from '../core/ports/collection-task-repository.port.js';
import type { CommandRepository } from '../core/ports/command-repository.port.js';
import type { DepositRepository } from '../core/ports/deposit-repository.port.js';
import type { EventOutbox } from '../core/ports/event-outbox.port.js';
import type { ChangeSet, UnitOfWork } from '../core/ports/unit-of-work.port.js';
import { aDeposit } from './deposit-repository.contract.js';
import { aCommand, addressOf, anEvent, aTask, T0 } from './support/fixtures.js';

/** What the UnitOfWork contract drives: a unit of work on an empty store and the reads that show what it wrote. */
export interface UnitOfWorkSubject extends Closable {
  readonly uow: UnitOfWork;
  readonly commands: CommandRepository;
  readonly tasks: CollectionTaskRepository;
  readonly outbox: EventOutbox;
  readonly deposits: DepositRepository;
}

const COMMAND_NOS = ['C1', 'C2', 'C3'] as const;
const TASK_NOS = ['K1', 'K2'] as const;
const EVENT_IDS = [1, 2].map((n) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`);
const ADDRESSES = [addressOf(1), addressOf(2)];
const TERMINAL_COMMAND = new Set<CommandStatus>([COMMAND_STATUS.SUCCESS, COMMAND_STATUS.FAILED]);
const TERMINAL_TASK = new Set<CollectionStatus>([11, 12]);
const TRANSFERS = ['T1', 'T2'] as const;
const DEPOSIT_IDS = ['D1', 'D2', 'D3'] as const;

/** A change set as drawn: which rows, and for replaces the wanted status and how far the version is off (0 = right). */
interface DrawnChange {
  readonly newCommands: { no: string; address: number | null; query: boolean }[];
  readonly newTasks: string[];
  readonly events: string[];
  readonly commands: { no: string; status: CommandStatus; versionOff: number }[];
  readonly tasks: { no: string; status: CollectionStatus; versionOff: number }[];
  readonly newDeposits: { transfer: string; id: string }[];
  readonly deposits: { transfer: string; status: DepositStatus; versionOff: number }[];
  /** When false, replaces of missing rows and inserts of existing ones are dropped, so that most change sets commit. */
  readonly wild: boolean;
}

const versionOff = fc.constantFrom(0, 0, 0, -1, 1);
const drawnChange: fc.Arbitrary<DrawnChange> = fc.record({
  newCommands: fc.uniqueArray(fc.record({
    no: fc.constantFrom(...COMMAND_NOS), address: fc.constantFrom(0, 1, null), query: fc.constantFrom(false, false, false, true),
  }), { selector: (c) => c.no, maxLength: 2 }),
  newTasks: fc.uniqueArray(fc.constantFrom(...TASK_NOS), { maxLength: 2 }),
  events: fc.uniqueArray(fc.constantFrom(...EVENT_IDS), { maxLength: 2 }),
  commands: fc.uniqueArray(fc.record({
    no: fc.constantFrom(...COMMAND_NOS), status: fc.constantFrom<CommandStatus>(COMMAND_STATUS.RUNNING, COMMAND_STATUS.SUCCESS, COMMAND_STATUS.FAILED), versionOff,
  }), { selector: (c) => c.no, maxLength: 2 }),
  tasks: fc.uniqueArray(fc.record({ no: fc.constantFrom(...TASK_NOS), status: fc.constantFrom<CollectionStatus>(2, 6, 11, 12), versionOff }), {
    selector: (t) => t.no, maxLength: 2,
  }),
  newDeposits: fc.uniqueArray(fc.record({ transfer: fc.constantFrom(...TRANSFERS), id: fc.constantFrom(...DEPOSIT_IDS) }), {
    selector: (d) => d.transfer, maxLength: 2,
  }),
  deposits: fc.uniqueArray(fc.record({
    transfer: fc.constantFrom(...TRANSFERS), status: fc.constantFrom<DepositStatus>('pending', 'confirmed', 'reverted'), versionOff,
  }), { selector: (d) => d.transfer, maxLength: 2 }),
  wild: fc.constantFrom(false, false, false, true),
});

const depositOf = (transfer: string, id: string): Deposit => aDeposit({ depositId: id, transferId: transfer, txid: transfer });

/**
 * Turns a drawn change into a ChangeSet against the reference's current state: replaces name the stored version
 * (give or take the drawn offset) and never revive a terminal row — the state machines forbid that, and a store need
 * not agree with another on what an illegal transition does to the address lock.
 */
async function materialise(drawn: DrawnChange, reference: UnitOfWorkSubject): Promise<ChangeSet> {
  const commands: Command[] = [];
  for (const change of drawn.commands) {
    const stored = await reference.commands.get(change.no);
    if ((stored === null && !drawn.wild) || (stored !== null && TERMINAL_COMMAND.has(stored.status))) continue;
    const base = stored ?? aCommand({ commandNo: change.no });
    commands.push({ ...base, status: change.status, version: base.version + 1 + change.versionOff });
  }
  const tasks: CollectionTask[] = [];
  for (const change of drawn.tasks) {
    const stored = await reference.tasks.get(change.no);
    if ((stored === null && !drawn.wild) || (stored !== null && TERMINAL_TASK.has(stored.status))) continue;
    const base = stored ?? aTask({ taskNo: change.no });
    tasks.push({ ...base, status: change.status, version: base.version + 1 + change.versionOff });
  }
  const fresh = async <T>(rows: readonly T[], exists: (row: T) => Promise<boolean>): Promise<T[]> => {
    if (drawn.wild) return [...rows];
    const kept: T[] = [];
    for (const row of rows) if (!(await exists(row))) kept.push(row);
    return kept;
  };
  const newCommands = await fresh(drawn.newCommands, async (c) => (await reference.commands.get(c.no)) !== null);
  const newTasks = await fresh(drawn.newTasks, async (no) => (await reference.tasks.get(no)) !== null);
  const events = await fresh(drawn.events, async (id) => (await reference.outbox.get(id)) !== null);
  const newDeposits = await fresh(drawn.newDeposits, async (d) => (await reference.deposits.findByTransfer('TRON', d.transfer)) !== null
    || (await reference.deposits.findById(d.id)) !== null);
  const deposits: Deposit[] = [];
  for (const change of drawn.deposits) {
    const stored = await reference.deposits.findByTransfer('TRON', change.transfer);
    if (stored === null && !drawn.wild) continue;
    const base = stored ?? depositOf(change.transfer, 'D9');
    deposits.push({ ...base, status: change.status, version: base.version + 1 + change.versionOff });
  }
  return {
    newDeposits: newDeposits.map((d) => depositOf(d.transfer, d.id)),
    deposits,
    newCommands: newCommands.map((c) => aCommand({
      commandNo: c.no, address: c.address === null ? null : ADDRESSES[c.address]!, type: c.query ? COMMAND_TYPE.QUERY : COMMAND_TYPE.COLLECTION,
    })),
    newTasks: newTasks.map((no) => aTask({ taskNo: no })),
    events: events.map((eventId) => anEvent({ eventId })),
    commands,
    tasks,
  };
}

async function outcomeOf(commit: Promise<void>): Promise<string> {
  try {
    await commit;
    return 'committed';
  } catch (error) {
    if (error instanceof ConcurrencyConflict) return 'conflict';
    if (error instanceof DomainError) return error.code;
    throw error;
  }
}

async function snapshot(subject: UnitOfWorkSubject): Promise<unknown> {
  return {
    commands: await Promise.all(COMMAND_NOS.map((no) => subject.commands.get(no))),
    tasks: await Promise.all(TASK_NOS.map((no) => subject.tasks.get(no))),
    events: await Promise.all(EVENT_IDS.map((id) => subject.outbox.get(id))),
    deposits: await Promise.all(TRANSFERS.map((t) => subject.deposits.findByTransfer('TRON', t))),
    depositIds: await Promise.all([...DEPOSIT_IDS, 'D9'].map((id) => subject.deposits.findById(id))),
    holders: await Promise.all(ADDRESSES.map(async (a) => (await subject.commands.findActiveByAddress(a))?.commandNo ?? null)),
  };
}

/** Options of the UnitOfWork contract: the common ones, and the reference the property compares against. */
export interface UnitOfWorkContractOptions extends ContractOptions<UnitOfWorkSubject> {
  /**
   * A fresh reference store whose unit of work defines the precedence of the rules (the memory adapters:
   * `createMemoryAdapters({ clock })` from `custody-hub/adapters/memory`).
   */
  readonly reference: () => UnitOfWorkSubject;
}

/**
 * The UnitOfWork contract (core/ports/unit-of-work.port.ts): a change set lands whole or not at all, a stale replace
 * or a taken key is a ConcurrencyConflict, a taken address lock is BIZ-COMMAND-LOCKED, a command turning terminal
 * frees its address for a new command of the same change set, and racing commits never both take one address. A
 * property then runs random sequences of change sets against the reference: same outcomes, same rows.
 */
export function describeUnitOfWorkContract(name: string, makeSubject: MakeSubject<UnitOfWorkSubject>, options: UnitOfWorkContractOptions): void {
  const numRuns = options.numRuns ?? runs(50);
  const concurrency = options.concurrency ?? 50;
  describe(`UnitOfWork contract: ${name}`, () => {
    const subject = useFreshSubject(makeSubject);

    it('a locked address aborts the whole change set: the task and the event are not stored', async () => {
      const { uow, commands, tasks, outbox } = subject();
      expect(await commands.insert(aCommand({ commandNo: 'HOLDER' }), { locking: true })).toBe('created');
      const commit = uow.commit({ newCommands: [aCommand({ commandNo: 'C2' })], newTasks: [aTask({ commandNo: 'C2' })], events: [anEvent()] });
      await expect(commit).rejects.toSatisfy((e) => e instanceof DomainError && e.code === 'BIZ-COMMAND-LOCKED');
      expect(await commands.get('C2')).toBeNull();
      expect(await tasks.get(aTask().taskNo)).toBeNull();
      expect(await outbox.get(anEvent().eventId)).toBeNull();
    });

    it('a stale replace aborts the whole change set with ConcurrencyConflict', async () => {
      const { uow, commands, outbox } = subject();
      await commands.insert(aCommand(), { locking: true });
      await expect(uow.commit({ commands: [aCommand({ status: 3, version: 3 })], events: [anEvent()] })).rejects.toBeInstanceOf(ConcurrencyConflict);
      expect((await commands.get('C0001'))!.version).toBe(1);
      expect(await outbox.listUndispatched(10)).toEqual([]);
    });

    it('a taken event id beside replaces of a command and its task is a ConcurrencyConflict: neither replace lands', async () => {
      const { uow, commands, tasks, outbox } = subject();
      await uow.commit({ newCommands: [aCommand()], newTasks: [aTask()], events: [anEvent()] });
      const command = (await commands.get('C0001'))!;
      const task = (await tasks.get(aTask().taskNo))!;
      await expect(uow.commit({
        commands: [{ ...command, status: 2, version: command.version + 1 }], tasks: [{ ...task, status: 2, version: task.version + 1 }], events: [anEvent()],
      })).rejects.toBeInstanceOf(ConcurrencyConflict);
      expect(await commands.get('C0001')).toEqual(command);
      expect(await tasks.get(aTask().taskNo)).toEqual(task);
      expect(await outbox.listUndispatched(10)).toHaveLength(1);
    });

    it('a command turning terminal frees its address for a new command in the same change set', async () => {
      const { uow, commands, tasks } = subject();
      await uow.commit({ newCommands: [aCommand()], newTasks: [aTask()] });
      const done = aCommand({ status: 3, finishedAt: T0 + 5, version: 2 });
      const finished = aTask({ status: 11, finishedAt: T0 + 5, version: 2 });
      await uow.commit({ commands: [done], tasks: [finished], newCommands: [aCommand({ commandNo: 'C2' })], events: [anEvent()] });
      expect(await commands.get('C0001')).toEqual(done);
      expect(await tasks.get(aTask().taskNo)).toEqual(finished);
      expect((await commands.findActiveByAddress(addressOf(1)))!.commandNo).toBe('C2');
      expect(await commands.insert(aCommand({ commandNo: 'C3' }), { locking: true })).toBe('locked');
    });

    it('a taken task number, event id or command number is a ConcurrencyConflict and writes nothing', async () => {
      const { uow, commands } = subject();
      await uow.commit({ newTasks: [aTask()], events: [anEvent()], newCommands: [aCommand({ commandNo: 'TAKEN', address: null })] });
      await expect(uow.commit({ newCommands: [aCommand({ commandNo: 'N1' })], newTasks: [aTask()] })).rejects.toBeInstanceOf(ConcurrencyConflict);
      await expect(uow.commit({ newCommands: [aCommand({ commandNo: 'N2' })], events: [anEvent()] })).rejects.toBeInstanceOf(ConcurrencyConflict);
      await expect(uow.commit({ newCommands: [aCommand({ commandNo: 'TAKEN' })] })).rejects.toBeInstanceOf(ConcurrencyConflict);
      expect(await commands.get('N1')).toBeNull();
      expect(await commands.get('N2')).toBeNull();
      expect(await commands.findActiveByAddress(addressOf(1))).toBeNull();
    });

    it('a key repeated inside one change set is a ConcurrencyConflict and writes nothing', async () => {
      const { uow, commands } = subject();
      await expect(uow.commit({ newCommands: [aCommand({ commandNo: 'D1', address: null }), aCommand({ commandNo: 'D1', address: null })] }))
        .rejects.toBeInstanceOf(ConcurrencyConflict);
      await expect(uow.commit({ newTasks: [aTask()], events: [anEvent(), anEvent()] })).rejects.toBeInstanceOf(ConcurrencyConflict);
      expect(await commands.get('D1')).toBeNull();
    });

    it('of racing commits that each take one address, exactly one lands; the others write nothing', async () => {
      const { uow, commands, tasks } = subject();
      const outcomes = await Promise.allSettled(Array.from({ length: concurrency }, (_, i) => uow.commit({
        newCommands: [aCommand({ commandNo: `R${i}` })], newTasks: [aTask({ taskNo: `RK${i}`, commandNo: `R${i}` })],
      })));
      const landed = outcomes.flatMap((o, i) => (o.status === 'fulfilled' ? [i] : []));
      expect(landed).toHaveLength(1);
      for (const o of outcomes) if (o.status === 'rejected') expect((o.reason as DomainError).code).toBe('BIZ-COMMAND-LOCKED');
      for (let i = 0; i < concurrency; i++) expect((await tasks.get(`RK${i}`)) !== null).toBe(i === landed[0]);
      expect((await commands.findActiveByAddress(addressOf(1)))!.commandNo).toBe(`R${landed[0]}`);
    });

    it('of racing replaces of one command at one version, exactly one lands', async () => {
      const { uow, commands } = subject();
      await uow.commit({ newCommands: [aCommand()] });
      const outcomes = await Promise.allSettled(Array.from({ length: concurrency }, (_, i) =>
        uow.commit({ commands: [aCommand({ status: 2, lastError: `writer ${i}`, version: 2 })] })));
      expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
      for (const o of outcomes) if (o.status === 'rejected') expect(o.reason).toBeInstanceOf(ConcurrencyConflict);
      expect((await commands.get('C0001'))!.version).toBe(2);
    });

    it('a new deposit lands with its event; another record of the transfer is a ConcurrencyConflict and writes nothing', async () => {
      const { uow, deposits, outbox } = subject();
      const [first, second] = EVENT_IDS.map((eventId) => anEvent({ eventId }));
      await uow.commit({ newDeposits: [aDeposit()], events: [first!] });
      expect(await deposits.findByTransfer('TRON', aDeposit().transferId)).toEqual(aDeposit());
      expect(await outbox.get(first!.eventId)).toEqual(first);
      // A redo after a crash, or a second scanner: a fresh deposit id for the same transfer.
      await expect(uow.commit({ newDeposits: [aDeposit({ depositId: 'D2' })], events: [second!] })).rejects.toBeInstanceOf(ConcurrencyConflict);
      expect(await outbox.get(second!.eventId)).toBeNull();
      expect(await deposits.findById('D2')).toBeNull();
      // A taken deposit id for another transfer is a conflict too.
      await expect(uow.commit({ newDeposits: [aDeposit({ transferId: 'other' })], events: [second!] })).rejects.toBeInstanceOf(ConcurrencyConflict);
      expect(await deposits.findByTransfer('TRON', 'other')).toBeNull();
      expect(await outbox.get(second!.eventId)).toBeNull();
    });

    it('a deposit replace lands with its event; a stale version or another identity writes neither, nor the rest', async () => {
      const { uow, deposits, outbox, tasks } = subject();
      await uow.commit({ newDeposits: [aDeposit()] });
      const confirmed = aDeposit({ status: 'confirmed', confirmedAt: T0 + 5, version: 2 });
      const [event, stale] = EVENT_IDS.map((eventId) => anEvent({ eventId }));
      await expect(uow.commit({ deposits: [{ ...confirmed, version: 3 }], events: [event!], newTasks: [aTask()] }))
        .rejects.toBeInstanceOf(ConcurrencyConflict);
      await expect(uow.commit({ deposits: [{ ...confirmed, transferId: 'moved' }], events: [event!] })).rejects.toBeInstanceOf(ConcurrencyConflict);
      await expect(uow.commit({ deposits: [{ ...confirmed, depositId: 'unknown' }], events: [event!] })).rejects.toBeInstanceOf(ConcurrencyConflict);
      expect(await deposits.findById('D1')).toEqual(aDeposit());
      expect(await tasks.get(aTask().taskNo)).toBeNull();
      expect(await outbox.listUndispatched(10)).toEqual([]);
      await uow.commit({ deposits: [confirmed], events: [event!] });
      expect(await deposits.findById('D1')).toEqual(confirmed);
      expect(await outbox.get(event!.eventId)).toEqual(event);
      // The same change redone (a crash after the commit): the version moved on, so its event is not written twice.
      await expect(uow.commit({ deposits: [confirmed], events: [stale!] })).rejects.toBeInstanceOf(ConcurrencyConflict);
      expect(await outbox.get(stale!.eventId)).toBeNull();
    });

    it('of racing commits that record one transfer or replace one deposit version, exactly one lands with its event', async () => {
      const { uow, deposits, outbox } = subject();
      const eventNo = (i: number, base: number) => anEvent({ eventId: `00000000-0000-4000-8000-${String(base + i).padStart(12, '0')}` });
      const inserts = await Promise.allSettled(Array.from({ length: concurrency }, (_, i) =>
        uow.commit({ newDeposits: [aDeposit({ depositId: `R${i}` })], events: [eventNo(i, 1000)] })));
      // Every racer replaces the version read once before the race: a racer reading after another's commit would
      // rightly replace the next version, and two would land.
      const stored = await deposits.findByTransfer('TRON', aDeposit().transferId);
      if (stored === null) throw new Error('no record');
      const replaces = await Promise.allSettled(Array.from({ length: concurrency }, async (_, i) => {
        await uow.commit({ deposits: [{ ...stored, status: 'confirmed', confirmedAt: T0 + i, version: stored.version + 1 }], events: [eventNo(i, 5000)] });
      }));
      for (const outcomes of [inserts, replaces]) {
        expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
        for (const o of outcomes) if (o.status === 'rejected') expect(o.reason).toBeInstanceOf(ConcurrencyConflict);
      }
      const events = await outbox.listUndispatched(4 * concurrency);
      expect(events).toHaveLength(2);
      expect((await deposits.findByTransfer('TRON', aDeposit().transferId))!.version).toBe(2);
    });

    it('same outcomes and same stored rows as the reference for random sequences of change sets', async () => {
      await fc.assert(fc.asyncProperty(fc.array(drawnChange, { minLength: 1, maxLength: 6 }), async (drawns) => {
        await withSubject(makeSubject, async (tested) => {
          const reference = options.reference();
          for (const drawn of drawns) {
            const changes = await materialise(drawn, reference);
            const expected = await outcomeOf(reference.uow.commit(changes));
            expect(await outcomeOf(tested.uow.commit(changes))).toBe(expected);
            expect(await snapshot(tested)).toEqual(await snapshot(reference));
          }
        });
      }), { numRuns });
    });

    options.extraTestsFn?.(makeSubject);
  });
}
