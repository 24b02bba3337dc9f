import type { WebhookEvent } from '../domain/model/webhook.js';

/** Events waiting to become deliveries. Appended only through UnitOfWork.commit, with the transition causing them. */
export interface EventOutbox {
  /** Undispatched events, oldest first. */
  listUndispatched(limit: number): Promise<WebhookEvent[]>;
  /** Marks the event dispatched; true only for the first caller (so one event yields one delivery). */
  markDispatched(eventId: string): Promise<boolean>;
  get(eventId: string): Promise<WebhookEvent | null>;
  /** The events among `eventIds` that exist, in no particular order (one read for a page of the delivery log). */
  getMany(eventIds: readonly string[]): Promise<WebhookEvent[]>;
}
