import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ConcurrencyConflict, DomainError } from '../../core/domain/errors.js';
import { COMMAND_STATUS, COMMAND_TYPE, type Command, type CommandStatus } from '../../core/domain/model/command.js';
import type { CollectionStatus, CollectionTask } from '../../core/domain/model/collection-task.js';
import type { CollectionTaskRepository } from '../../core/ports/collection-task-repository.port.js';
import type { CommandRepository } from '../../core/ports/command-repository.port.js';
import type { EventOutbox } from '../../core/ports/event-outbox.port.js';
import type { ChangeSet, UnitOfWork } from '../../core/ports/unit-of-work.port.js';
import { aCommand, addressOf, anEvent, aTask } from '../../contracts-tests/support/fixtures.js';

/** What the differential check drives: a unit of work and the reads that show what it wrote. */
export interface UnitOfWorkSubject {
  readonly uow: UnitOfWork;
  readonly commands: CommandRepository;
  readonly tasks: CollectionTaskRepository;
  readonly outbox: EventOutbox;
}

const COMMAND_NOS = ['C1', 'C2', 'C3'] as const;
const TASK_NOS = ['K1', 'K2'] as const;
const EVENT_IDS = [1, 2].map((n) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`);
const ADDRESSES = [addressOf(1), addressOf(2)];
const TERMINAL_COMMAND = new Set<CommandStatus>([COMMAND_STATUS.SUCCESS, COMMAND_STATUS.FAILED]);
const TERMINAL_TASK = new Set<CollectionStatus>([11, 12]);

/** A change set as drawn: which rows, and for replaces the wanted status and how far the version is off (0 = right). */
interface DrawnChange {
  readonly newCommands: { no: string; address: number | null; query: boolean }[];
  readonly newTasks: string[];
  readonly events: string[];
  readonly commands: { no: string; status: CommandStatus; versionOff: number }[];
  readonly tasks: { no: string; status: CollectionStatus; versionOff: number }[];
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
  wild: fc.constantFrom(false, false, false, true),
});

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
  return {
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
    holders: await Promise.all(ADDRESSES.map(async (a) => (await subject.commands.findActiveByAddress(a))?.commandNo ?? null)),
  };
}

/**
 * Differential check of a UnitOfWork against a reference one (the memory adapter, which defines the contract's
 * precedence): the same random change sets, one after another, must end in the same outcome (committed, conflict,
 * BIZ-COMMAND-LOCKED) and leave the same rows behind. There is no shared UnitOfWork suite yet; this covers it.
 */
export function describeUnitOfWorkDifferential(
  name: string,
  makeSubject: () => Promise<UnitOfWorkSubject>,
  makeReference: () => UnitOfWorkSubject,
  numRuns = 15,
): void {
  describe(`UnitOfWork against the memory reference: ${name}`, () => {
    it('same outcomes and same stored rows for random sequences of change sets', async () => {
      await fc.assert(fc.asyncProperty(fc.array(drawnChange, { minLength: 1, maxLength: 6 }), async (drawns) => {
        const subject = await makeSubject();
        const reference = makeReference();
        for (const drawn of drawns) {
          const changes = await materialise(drawn, reference);
          const expected = await outcomeOf(reference.uow.commit(changes));
          expect(await outcomeOf(subject.uow.commit(changes))).toBe(expected);
          expect(await snapshot(subject)).toEqual(await snapshot(reference));
        }
      }), { numRuns });
    });
  });
}
