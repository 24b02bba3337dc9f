import { DELIVERY_STATUS } from '../../../core/domain/model/webhook.js';
import type { AttemptOutcome, WebhookDispatcher } from '../../../core/application/worker/webhook-dispatcher.js';
import type { DnsResolver } from '../../../core/ports/dns-resolver.port.js';
import { HttpWebhookTransport } from '../../../adapters/http/index.js';

/** Where the job reports; a pino logger fits (`warn`/`error` with an object first). */
export interface WebhookJobLog {
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

/** Options of the webhook job. */
export interface WebhookJobOptions {
  /** How often outbox events are recorded and free slots are refilled with due deliveries. */
  readonly intervalMs?: number;
  readonly log?: WebhookJobLog;
  /** Told the outcome of every attempt (metrics). */
  readonly onAttempts?: (outcomes: readonly AttemptOutcome[]) => void;
}

/** A running job; `stop` ends the timer and waits for the attempts already in flight. */
export interface RunningJob {
  stop(): Promise<void>;
}

/**
 * The production transport from configuration: `allowLocal` is WEBHOOK_ALLOW_LOCAL (loopback http for development
 * only); everything else is fixed by the spec (https, 15 s, no redirects, pinned addresses).
 */
export function createWebhookTransport(resolver: DnsResolver, allowLocal: boolean): HttpWebhookTransport {
  return new HttpWebhookTransport({ resolver, allowLocal });
}

/**
 * Runs the dispatcher on a short interval. Each tick records new outbox events (one tick at a time) and claims due
 * deliveries only for the dispatcher's free slots WITHOUT waiting for earlier attempts, so a receiver that takes
 * the full 15 s never delays the others. Failures of a tick are logged and the next tick tries again.
 */
export function startWebhookJob(dispatcher: WebhookDispatcher, options: WebhookJobOptions = {}): RunningJob {
  const intervalMs = options.intervalMs ?? 1_000;
  const inFlight = new Set<Promise<unknown>>();
  let recording = false;
  const track = (work: Promise<unknown>): void => {
    inFlight.add(work);
    void work.finally(() => inFlight.delete(work));
  };
  const tick = (): void => {
    if (!recording) {
      recording = true;
      track(dispatcher.recordEvents()
        .catch((error: unknown) => options.log?.error({ err: error }, 'webhook outbox pass failed'))
        .finally(() => { recording = false; }));
    }
    track(dispatcher.deliverDue()
      .then((outcomes) => {
        options.onAttempts?.(outcomes);
        reportDead(outcomes, options.log);
      })
      .catch((error: unknown) => options.log?.error({ err: error }, 'webhook delivery pass failed')));
  };
  const timer = setInterval(tick, intervalMs);
  tick();
  return {
    async stop() {
      clearInterval(timer);
      while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
    },
  };
}

function reportDead(outcomes: readonly AttemptOutcome[], log: WebhookJobLog | undefined): void {
  for (const o of outcomes) {
    if (o.status === DELIVERY_STATUS.DEAD) log?.warn({ deliveryId: o.deliveryId, eventId: o.eventId, error: o.attempt.error }, 'webhook delivery DEAD after 3 attempts');
  }
}
