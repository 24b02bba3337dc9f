import { describe, expect, it } from 'vitest';
import type { EventOutbox } from '../core/ports/event-outbox.port.js';
import type { UnitOfWork } from '../core/ports/unit-of-work.port.js';
import { type Closable, type ContractOptions, type MakeSubject, useFreshSubject } from './support/contract-options.js';
import { anEvent, T0 } from './support/fixtures.js';

/** What the outbox contract needs: the outbox and the unit of work through which events are appended. */
export interface EventOutboxSubject extends Closable {
  readonly outbox: EventOutbox;
  readonly uow: UnitOfWork;
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

    options.extraTestsFn?.(makeSubject);
  });
}
