import type { WebhookEvent } from '../../core/domain/model/index.js';
import type { EventOutbox } from '../../core/ports/event-outbox.port.js';
import { outboundCopies, outboundCopy, storedCopy } from './frozen-copy.js';
import type { MemoryStore } from './memory-store.js';

/** The outbox; events are appended by MemoryUnitOfWork together with the transition that caused them. */
export class MemoryEventOutbox implements EventOutbox {
  constructor(private readonly store: MemoryStore) {}

  async listUndispatched(limit: number): Promise<WebhookEvent[]> {
    // By occurredAt; equal times keep the order of appending (the index's tie-break is the insertion order).
    const waiting = this.store.events.undispatched.queue.first(Number.POSITIVE_INFINITY, Math.max(0, limit));
    return outboundCopies(waiting.map((e) => this.store.events.get(e.key)!));
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
