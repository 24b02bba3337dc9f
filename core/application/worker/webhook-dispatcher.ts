import { ConcurrencyConflict } from '../../domain/errors.js';
import { afterAttempt, initialDelivery } from '../../domain/delivery-schedule.js';
import type { DeliveryAttempt, DeliveryStatus, WebhookDelivery, WebhookEvent } from '../../domain/model/webhook.js';
import type { Clock } from '../../ports/clock.port.js';
import type { DeveloperConfigRepository } from '../../ports/developer-config-repository.port.js';
import type { EventOutbox } from '../../ports/event-outbox.port.js';
import type { IdGenerator } from '../../ports/id-generator.port.js';
import type { KeyCipher } from '../../ports/key-cipher.port.js';
import type { WebhookDeliveryRepository } from '../../ports/webhook-delivery-repository.port.js';
import type { TransportResult, WebhookTransport } from '../../ports/webhook-transport.port.js';
import { attemptRecord, secretsInForce, WEBHOOK_TIMEOUT_MS, webhookRequest } from '../webhooks.service.js';

export { WEBHOOK_TIMEOUT_MS };

/** The ports the dispatcher reads and writes. */
export interface WebhookDispatcherDeps {
  readonly clock: Clock;
  readonly ids: IdGenerator;
  readonly outbox: EventOutbox;
  readonly deliveries: WebhookDeliveryRepository;
  readonly developerConfigs: DeveloperConfigRepository;
  readonly cipher: KeyCipher;
  readonly transport: WebhookTransport;
}

/** Tunables; every one has a default. */
export interface WebhookDispatcherOptions {
  /** Attempts in flight at once in this dispatcher (a slow receiver holds one slot, never the others). */
  readonly concurrency?: number;
  /** Outbox events turned into deliveries per `recordEvents` call. */
  readonly eventBatch?: number;
  /** Lease on a claimed delivery; longer than the 15 s request budget so a live attempt is never claimed twice. */
  readonly leaseMs?: number;
  /** Lease owner name (defaults to a fresh UUID per dispatcher). */
  readonly owner?: string;
}

/** What became of one outbox event. */
export interface RecordedEvent {
  readonly eventId: string;
  readonly status: DeliveryStatus | 'exists';
}

/** What one attempt did to its delivery. */
export interface AttemptOutcome {
  readonly deliveryId: string;
  readonly eventId: string;
  readonly status: DeliveryStatus;
  readonly attempt: DeliveryAttempt;
  /** False when the lease was lost meanwhile and another worker owns the delivery (the attempt is not recorded). */
  readonly recorded: boolean;
}

/**
 * The webhook half of the worker: outbox events become deliveries (to the APPROVED URL, or SKIPPED when none is
 * approved), and due deliveries are attempted on the spec §6 schedule (+0, +1 min, +5 min, then DEAD). Every attempt
 * is recorded on the delivery (time from the Clock, HTTP status or error, duration). Safe to run in several
 * processes: one delivery per event (insert is unique by event id) and claims are leased.
 */
export class WebhookDispatcher {
  private readonly concurrency: number;
  private readonly eventBatch: number;
  private readonly leaseMs: number;
  private readonly owner: string;
  private inFlight = 0;

  constructor(private readonly deps: WebhookDispatcherDeps, options: WebhookDispatcherOptions = {}) {
    this.concurrency = positive(options.concurrency ?? 32, 'concurrency');
    this.eventBatch = positive(options.eventBatch ?? 100, 'eventBatch');
    this.leaseMs = positive(options.leaseMs ?? 4 * WEBHOOK_TIMEOUT_MS, 'leaseMs');
    this.owner = options.owner ?? `dispatcher-${deps.ids.uuid()}`;
  }

  /** Attempts currently running in this dispatcher. */
  get active(): number {
    return this.inFlight;
  }

  /**
   * Turns up to one batch of undispatched outbox events into deliveries. The delivery is inserted before the event
   * is marked dispatched, so a crash in between only repeats an insert that the unique event id turns into a no-op.
   */
  async recordEvents(): Promise<RecordedEvent[]> {
    const events = await this.deps.outbox.listUndispatched(this.eventBatch);
    const recorded: RecordedEvent[] = [];
    for (const event of events) recorded.push(await this.record(event));
    return recorded;
  }

  /**
   * Claims due deliveries for the free slots (at most `concurrency` in flight in this dispatcher) and attempts
   * them in parallel; resolves when the attempts started by THIS call have finished. Calls may overlap: a host
   * calls it on a short interval without waiting, so a slow receiver never delays the others.
   */
  async deliverDue(): Promise<AttemptOutcome[]> {
    const free = this.concurrency - this.inFlight;
    if (free <= 0) return [];
    this.inFlight += free;
    let claimed: WebhookDelivery[];
    try {
      claimed = await this.deps.deliveries.claimDue(this.deps.clock.now(), this.owner, this.leaseMs, free);
    } finally {
      this.inFlight -= free;
    }
    this.inFlight += claimed.length;
    const outcomes = await Promise.all(claimed.map(async (delivery) => {
      try {
        return await this.attempt(delivery);
      } finally {
        this.inFlight -= 1;
      }
    }));
    return outcomes.filter((o): o is AttemptOutcome => o !== null);
  }

  /** One pass: record new events, then attempt what is due. */
  async tick(): Promise<{ readonly recorded: RecordedEvent[]; readonly attempted: AttemptOutcome[] }> {
    const recorded = await this.recordEvents();
    const attempted = await this.deliverDue();
    return { recorded, attempted };
  }

  private async record(event: WebhookEvent): Promise<RecordedEvent> {
    const config = await this.deps.developerConfigs.get(event.userId);
    // The live URL only: a pending (unreviewed) URL never receives events; the previously approved one still does.
    const url = config !== null && config.secret !== null ? config.url : null;
    const now = this.deps.clock.now();
    const schedule = initialDelivery(url, now);
    const delivery: WebhookDelivery = {
      deliveryId: this.deps.ids.uuid(),
      eventId: event.eventId,
      userId: event.userId,
      eventType: event.eventType,
      url,
      status: schedule.status,
      attempts: [],
      nextAttemptAt: schedule.nextAttemptAt,
      lease: null,
      createdAt: now,
      version: 1,
    };
    const inserted = await this.deps.deliveries.insert(delivery);
    await this.deps.outbox.markDispatched(event.eventId);
    return { eventId: event.eventId, status: inserted ? schedule.status : 'exists' };
  }

  private async attempt(delivery: WebhookDelivery): Promise<AttemptOutcome | null> {
    const at = this.deps.clock.now();
    const result = await this.send(delivery, at);
    // The transport owns the 15 s budget; a result reported later than that is still not a success (spec §6).
    const { ok, attempt } = attemptRecord(at, result, false, delivery.url);
    const attempts = [...delivery.attempts, attempt];
    const schedule = afterAttempt(attempts.length, ok, this.deps.clock.now());
    const next: WebhookDelivery = {
      ...delivery, attempts, status: schedule.status, nextAttemptAt: schedule.nextAttemptAt, lease: null, version: delivery.version + 1,
    };
    try {
      await this.deps.deliveries.update(next);
    } catch (error) {
      if (!(error instanceof ConcurrencyConflict)) throw error;
      return { deliveryId: delivery.deliveryId, eventId: delivery.eventId, status: delivery.status, attempt, recorded: false };
    }
    return { deliveryId: delivery.deliveryId, eventId: delivery.eventId, status: schedule.status, attempt, recorded: true };
  }

  /** Builds the signed request and posts it; anything that goes wrong before the wire is a failed attempt too. */
  private async send(delivery: WebhookDelivery, at: number): Promise<TransportResult> {
    try {
      const event = await this.deps.outbox.get(delivery.eventId);
      if (event === null) return failure('event missing from the outbox');
      const config = await this.deps.developerConfigs.get(delivery.userId);
      const secrets = config === null ? null : await secretsInForce(config, this.deps.cipher, at);
      if (delivery.url === null || secrets === null) return failure('no webhook secret configured');
      return await this.deps.transport.post(webhookRequest(delivery.url, event.payload, secrets, at));
    } catch {
      // A secret that no longer opens (rotated key, corrupt record) fails the attempt; internals stay out of the log.
      return failure('could not prepare the signed request');
    }
  }
}

function failure(error: string): TransportResult {
  return { ok: false, status: null, error, durationMs: 0 };
}

function positive(value: number, name: string): number {
  if (!Number.isSafeInteger(value) || value < 1) throw new RangeError(`${name} must be a positive integer, got ${value}`);
  return value;
}
