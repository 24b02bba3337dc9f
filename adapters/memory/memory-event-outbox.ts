import type { WebhookEvent } from '../../core/domain/model/index.js';
import type { EventOutbox } from '../../core/ports/event-outbox.port.js';
import { outboundCopies, outboundCopy, storedCopy } from './frozen-copy.js';
import type { MemoryStore } from './memory-store.js';

/** The outbox; events are appended by MemoryUnitOfWork together with the transition that caused them. */
export class MemoryEventOutbox implements EventOutbox {
  constructor(private readonly store: MemoryStore) {}

  async listUndispatched(limit: number): Promise<WebhookEvent[]> {
    // Stable sort over insertion order: equal occurredAt keeps the order of appending.
    const waiting = [...this.store.events.values()]
      .filter((e) => !e.dispatched)
      .sort((a, b) => a.occurredAt - b.occurredAt);
    return outboundCopies(waiting.slice(0, limit));
  }

  async markDispatched(eventId: string): Promise<boolean> {
    const event = this.store.events.get(eventId);
    if (event === undefined || event.dispatched) return false;
    this.store.events.set(eventId, storedCopy({ ...event, dispatched: true }));
    return true;
  }

  async getMany(eventIds: readonly string[]): Promise<WebhookEvent[]> {
    const found = [...new Set(eventIds)].map((id) => this.store.events.get(id)).filter((e): e is WebhookEvent => e !== undefined);
    return outboundCopies(found);
  }

  async get(eventId: string): Promise<WebhookEvent | null> {
    const event = this.store.events.get(eventId);
    return event === undefined ? null : outboundCopy(event);
  }
}
