import { describe, expect, it } from 'vitest';
import { ConcurrencyConflict, DomainError } from '../core/domain/errors.js';
import type { CollectionTaskRepository } from '../core/ports/collection-task-repository.port.js';
import type { CommandRepository } from '../core/ports/command-repository.port.js';
import type { EventOutbox } from '../core/ports/event-outbox.port.js';
import type { UnitOfWork } from '../core/ports/unit-of-work.port.js';
import { type Closable, type ContractOptions, type MakeSubject, useFreshSubject } from './support/contract-options.js';
import { aCommand, addressOf, anEvent, aTask, T0 } from './support/fixtures.js';

/**
 * What the outbox contract needs: the outbox, the unit of work through which events are appended, and the command
 * and task repositories whose transitions the events must land with (atomically, or not at all).
 */
export interface EventOutboxSubject extends Closable {
  readonly outbox: EventOutbox;
  readonly uow: UnitOfWork;
  readonly commands: CommandRepository;
  readonly tasks: CollectionTaskRepository;
}

function eventId(n: number): string {
  return `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
}

/** The EventOutbox contract (core/ports/event-outbox.port.ts). */
export function describeEventOutboxContract(
  name: string,
  makeSubject: MakeSubject<EventOutboxSubject>,
  options: ContractOptions<EventOutboxSubject> = {},
): void {
  const concurrency = options.concurrency ?? 50;
  describe(`EventOutbox contract: ${name}`, () => {
    const subject = useFreshSubject(makeSubject);

    it('gets an appended event with its payload intact', async () => {
      const { outbox, uow } = subject();
      const event = anEvent({ payload: { event_id: eventId(1), nested: { list: [1, 'two', null, true] }, text: 'ünï' } });
      await uow.commit({ events: [event] });
      expect(await outbox.get(event.eventId)).toEqual(event);
      expect(await outbox.get(eventId(99))).toBeNull();
    });

    it('getMany returns the existing events among the ids, each once', async () => {
      const { outbox, uow } = subject();
      await uow.commit({ events: [anEvent({ eventId: eventId(1) }), anEvent({ eventId: eventId(2), payload: { event_id: eventId(2), note: 'ünï' } })] });
      const found = await outbox.getMany([eventId(2), eventId(99), eventId(1), eventId(2)]);
      expect(found.sort((a, b) => a.eventId.localeCompare(b.eventId))).toEqual([await outbox.get(eventId(1)), await outbox.get(eventId(2))]);
      expect(await outbox.getMany([])).toEqual([]);
    });

    it('lists undispatched events oldest first, at most `limit`', async () => {
      const { outbox, uow } = subject();
      await uow.commit({ events: [anEvent({ eventId: eventId(3), occurredAt: T0 + 3 }), anEvent({ eventId: eventId(1), occurredAt: T0 + 1 })] });
      await uow.commit({ events: [anEvent({ eventId: eventId(2), occurredAt: T0 + 2 })] });
      expect((await outbox.listUndispatched(10)).map((e) => e.eventId)).toEqual([eventId(1), eventId(2), eventId(3)]);
      expect((await outbox.listUndispatched(2)).map((e) => e.eventId)).toEqual([eventId(1), eventId(2)]);
      await outbox.markDispatched(eventId(1));
      expect((await outbox.listUndispatched(10)).map((e) => e.eventId)).toEqual([eventId(2), eventId(3)]);
      expect((await outbox.get(eventId(1)))!.dispatched).toBe(true);
    });

    it('markDispatched is true only for the first caller; unknown events are false', async () => {
      const { outbox, uow } = subject();
      await uow.commit({ events: [anEvent()] });
      expect(await outbox.markDispatched(anEvent().eventId)).toBe(true);
      expect(await outbox.markDispatched(anEvent().eventId)).toBe(false);
      expect(await outbox.markDispatched(eventId(42))).toBe(false);
    });

    it(`of ${concurrency} concurrent markDispatched calls exactly one is true`, async () => {
      const { outbox, uow } = subject();
      await uow.commit({ events: [anEvent()] });
      const results = await Promise.all(Array.from({ length: concurrency }, () => outbox.markDispatched(anEvent().eventId)));
      expect(results.filter(Boolean)).toHaveLength(1);
    });

    it('an event lands with the new command and task of the same commit', async () => {
      const { outbox, uow, commands, tasks } = subject();
      await uow.commit({ newCommands: [aCommand()], newTasks: [aTask()], events: [anEvent()] });
      expect(await commands.get('C0001')).toEqual(aCommand());
      expect(await tasks.get('K0001')).toEqual(aTask());
      expect(await outbox.get(anEvent().eventId)).toEqual(anEvent());
    });

    it('a stale replace writes nothing: no event, no command change (ConcurrencyConflict)', async () => {
      const { outbox, uow, commands, tasks } = subject();
      await uow.commit({ newCommands: [aCommand()], newTasks: [aTask()] });
      const finished = aCommand({ status: 3, finishedAt: T0 + 1, version: 2 });
      const stale = aTask({ status: 11, finishedAt: T0 + 1, version: 3 });
      await expect(uow.commit({ commands: [finished], tasks: [stale], events: [anEvent()] })).rejects.toBeInstanceOf(ConcurrencyConflict);
      expect(await outbox.get(anEvent().eventId)).toBeNull();
      expect(await outbox.listUndispatched(10)).toEqual([]);
      expect((await commands.get('C0001'))!.status).toBe(1);
      expect((await tasks.get('K0001'))!.status).toBe(1);
    });

    it('a new fund-moving command on a locked address writes nothing: no task, no event (BIZ-COMMAND-LOCKED)', async () => {
      const { outbox, uow, tasks } = subject();
      await uow.commit({ newCommands: [aCommand()] });
      const second = uow.commit({ newCommands: [aCommand({ commandNo: 'C0002' })], newTasks: [aTask({ taskNo: 'K0002', commandNo: 'C0002' })], events: [anEvent()] });
      await expect(second).rejects.toSatisfy((e: unknown) => e instanceof DomainError && e.code === 'BIZ-COMMAND-LOCKED');
      expect(await tasks.get('K0002')).toBeNull();
      expect(await outbox.get(anEvent().eventId)).toBeNull();
    });

    it(`of ${concurrency} concurrent terminal commits of one task exactly one lands, with exactly its event`, async () => {
      const { outbox, uow, tasks } = subject();
      await uow.commit({ newCommands: [aCommand({ address: addressOf(7) })], newTasks: [aTask({ address: addressOf(7) })] });
      const results = await Promise.allSettled(Array.from({ length: concurrency }, (_, i) => uow.commit({
        commands: [aCommand({ address: addressOf(7), status: 3, finishedAt: T0 + i, version: 2 })],
        tasks: [aTask({ address: addressOf(7), status: 11, finishedAt: T0 + i, version: 2 })],
        events: [anEvent({ eventId: eventId(100 + i) })],
      })));
      const landed = results.flatMap((r, i) => (r.status === 'fulfilled' ? [i] : []));
      expect(landed).toHaveLength(1);
      for (const r of results) if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(ConcurrencyConflict);
      expect((await outbox.listUndispatched(concurrency + 1)).map((e) => e.eventId)).toEqual([eventId(100 + landed[0]!)]);
      expect((await tasks.get('K0001'))!.finishedAt).toBe(T0 + landed[0]!);
    });

    options.extraTestsFn?.(makeSubject);
  });
}
