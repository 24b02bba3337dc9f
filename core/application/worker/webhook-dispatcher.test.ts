import { runs } from '../../../contracts-tests/support/depth.js';
import { Buffer } from 'node:buffer';
import { createHmac, timingSafeEqual } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpWebhookTransport, startLocalReceiver, type LocalWebhookReceiver, type ReceivedWebhook } from '../../../adapters/http/index.js';
import { createMemoryAdapters, ManualClock } from '../../../adapters/memory/index.js';
import { AesGcmKeyCipher } from '../../../adapters/node/aes-gcm-key-cipher.js';
import { NodeDnsResolver } from '../../../adapters/node/node-dns-resolver.js';
import { DELIVERY_STATUS, type JsonValue, type WebhookEvent } from '../../domain/model/webhook.js';
import { formatIsoTime } from '../../domain/time.js';
import type { WebhookTransport } from '../../ports/webhook-transport.port.js';
import { secretAad } from '../developer-config.js';
import { WebhooksUseCases, type WebhooksDeps } from '../webhooks.service.js';
import { WebhookDispatcher, type WebhookDispatcherOptions } from './webhook-dispatcher.js';

const SECRET = 'whsec-tëst-☃';
const MINUTE = 60_000;

/**
 * The spec §6 rule, written here independently of core/domain/signature.ts: top-level keys sorted shorter
 * (UTF-8 bytes) first then byte order, compact JSON with non-ASCII unescaped, HMAC-SHA256 hex with `sha256=`.
 */
function receiverAccepts(request: ReceivedWebhook, secret: string): boolean {
  const payload = JSON.parse(request.body) as Record<string, unknown>;
  const keys = Object.keys(payload).sort((a, b) => Buffer.byteLength(a) - Buffer.byteLength(b) || Buffer.compare(Buffer.from(a), Buffer.from(b)));
  const canonical = `{${keys.map((k) => `${JSON.stringify(k)}:${JSON.stringify(payload[k])}`).join(',')}}`;
  const expected = Buffer.from(`sha256=${createHmac('sha256', secret).update(canonical, 'utf8').digest('hex')}`);
  const header = Buffer.from(String(request.headers['x-webhook-signature']));
  return header.length === expected.length && timingSafeEqual(header, expected);
}

/**
 * The Standard Webhooks rule, also written here independently: base64 HMAC-SHA256 of `id.timestamp.body` keyed by the
 * secret's UTF-8 bytes; the `v1,` entries of `webhook-signature`, in order.
 */
function standardEntries(request: ReceivedWebhook, secrets: readonly string[]): { expected: string[]; received: string[] } {
  const content = `${String(request.headers['webhook-id'])}.${String(request.headers['webhook-timestamp'])}.${request.body}`;
  return {
    expected: secrets.map((secret) => `v1,${createHmac('sha256', Buffer.from(secret, 'utf8')).update(content, 'utf8').digest('base64')}`),
    received: String(request.headers['webhook-signature']).split(' '),
  };
}

/** Replies per path from a script: path -> statuses (or status and body) in order (the last one repeats); 'hang' holds the request. */
type Step = number | 'hang' | { readonly status: number; readonly body: string };
const script = new Map<string, Step[]>();
let receiver: LocalWebhookReceiver;
beforeAll(async () => {
  receiver = await startLocalReceiver((r) => {
    const steps = script.get(r.path) ?? [200];
    const step = steps.length > 1 ? steps.shift()! : steps[0]!;
    return step === 'hang' ? 'hang' : typeof step === 'number' ? { status: step } : step;
  });
});
afterAll(async () => {
  receiver.release();
  await receiver.close();
});

let pathSeq = 0;
/** A fresh receiver path with its scripted replies. */
function endpoint(...steps: Step[]): { url: string; path: string; hits: () => ReceivedWebhook[] } {
  const path = `/hook-${++pathSeq}`;
  script.set(path, steps.length === 0 ? [200] : steps);
  return { url: `${receiver.origin}${path}`, path, hits: () => receiver.received.filter((r) => r.path === path) };
}

async function setup(options: { transport?: WebhookTransport; timeoutMs?: number; dispatcher?: WebhookDispatcherOptions } = {}) {
  const clock = new ManualClock();
  const mem = createMemoryAdapters({ clock });
  const cipher = new AesGcmKeyCipher({ currentKeyId: 'k1', keys: { k1: new Uint8Array(32).fill(7) } });
  const transport = options.transport
    ?? new HttpWebhookTransport({ resolver: new NodeDnsResolver(), allowLocal: true, timeoutMs: options.timeoutMs ?? 15_000 });
  const dispatcher = new WebhookDispatcher(
    { clock, ids: mem.ids, outbox: mem.outbox, deliveries: mem.deliveries, developerConfigs: mem.developerConfigs, cipher, transport },
    options.dispatcher,
  );
  // The delivery log use case reads only the delivery repository and the outbox (payloads).
  const webhooks = new WebhooksUseCases({ deliveries: mem.deliveries, outbox: mem.outbox } as unknown as WebhooksDeps);

  async function configure(
    userId: number, url: string | null, pendingUrl: string | null = null,
    previous: { secret: string; validUntil: number; cipher?: AesGcmKeyCipher } | null = null,
  ): Promise<void> {
    const secret = await cipher.encrypt(new TextEncoder().encode(SECRET), secretAad(userId));
    const previousSecret = previous === null ? null : {
      secret: await (previous.cipher ?? cipher).encrypt(new TextEncoder().encode(previous.secret), secretAad(userId)),
      validUntil: previous.validUntil,
    };
    await mem.developerConfigs.save({
      userId, url, pendingUrl, pendingSince: pendingUrl === null ? null : clock.now(), verifiedAt: url === null ? null : clock.now(),
      reviewNote: null, secret, previousSecret, minCollectAmounts: {}, version: 1,
    });
  }

  let eventSeq = 0;
  async function emit(userId: number, extra: Record<string, JsonValue> = {}): Promise<WebhookEvent> {
    const eventId = `00000000-0000-4000-8000-${String(++eventSeq).padStart(12, '0')}`;
    const payload: Record<string, JsonValue> = {
      event_id: eventId, event_type: 'withdrawal.failed', occurred_at: formatIsoTime(clock.now()),
      command_no: `C${eventSeq}`, status: 4, txid: null, error: 'signature refusée ✗', finished_at: formatIsoTime(clock.now()), ...extra,
    };
    const event: WebhookEvent = { eventId, userId, eventType: 'withdrawal.failed', occurredAt: clock.now(), payload, dispatched: false };
    await mem.uow.commit({ events: [event] });
    return event;
  }

  return { clock, mem, dispatcher, webhooks, configure, emit };
}

describe('WebhookDispatcher on a ManualClock with a real local receiver', () => {
  it('delivers on the first try: signed per spec §6, headers set, all fields top level, SUCCEEDED with one attempt', async () => {
    const t = await setup();
    const hook = endpoint(200);
    await t.configure(1, hook.url);
    const event = await t.emit(1);
    const { recorded, attempted } = await t.dispatcher.tick();
    expect(recorded).toEqual([{ eventId: event.eventId, status: DELIVERY_STATUS.PENDING }]);
    expect(attempted.map((a) => a.status)).toEqual([DELIVERY_STATUS.SUCCEEDED]);
    const [hit] = hook.hits();
    expect(hit).toBeDefined();
    expect(receiverAccepts(hit!, SECRET)).toBe(true);
    expect(receiverAccepts(hit!, 'another secret')).toBe(false);
    expect(hit!.headers['content-type']).toBe('application/json');
    expect(hit!.headers['x-event-id']).toBe(event.eventId);
    expect(hit!.headers['x-event-type']).toBe('withdrawal.failed');
    expect(JSON.parse(hit!.body)).toEqual(event.payload);
    const page = await t.webhooks.deliveries(1, {});
    expect(page.items).toHaveLength(1);
    expect(page.items[0]).toMatchObject({ event_id: event.eventId, status: DELIVERY_STATUS.SUCCEEDED, url: hook.url, next_attempt_at: null });
    expect(page.items[0]!.attempts).toEqual([expect.objectContaining({ at: formatIsoTime(t.clock.now()), http_status: 200, error: null })]);
    expect(await t.mem.outbox.listUndispatched(10)).toEqual([]);
  });

  it('Standard Webhooks headers beside the spec\'s: id = event_id, the send time in seconds, v1 over the exact body', async () => {
    const t = await setup();
    const hook = endpoint(500, { status: 200, body: `${'y'.repeat(1023)}ü and more` });
    await t.configure(1, hook.url);
    const event = await t.emit(1);
    t.clock.advance(1_500);
    await t.dispatcher.tick();
    t.clock.advance(MINUTE);
    await t.dispatcher.deliverDue();
    const hits = hook.hits();
    expect(hits).toHaveLength(2);
    const start = t.clock.now() - MINUTE;
    hits.forEach((hit, i) => {
      expect(hit.headers['webhook-id']).toBe(event.eventId);
      expect(hit.headers['webhook-timestamp']).toBe(String(Math.floor((start + i * MINUTE) / 1000)));
      const { expected, received } = standardEntries(hit, [SECRET]);
      expect(received).toEqual(expected);
      expect(receiverAccepts(hit, SECRET)).toBe(true);
    });
    // The delivery log keeps the start of each response: 1 KiB at most, a character cut in two replaced.
    const [delivery] = (await t.webhooks.deliveries(1, {})).items;
    expect(delivery!.attempts.map((a) => a.response)).toEqual(['', `${'y'.repeat(1023)}\uFFFD`]);
    expect(delivery!.attempts.map((a) => [a.url, a.redelivery])).toEqual([[hook.url, false], [hook.url, false]]);
    expect(delivery!.payload).toEqual(event.payload);
  });

  it('during a rotation both secrets sign webhook-signature (new first) and the spec header uses the new one; after 24 h only the new', async () => {
    const t = await setup();
    const hook = endpoint(200);
    await t.configure(1, hook.url, null, { secret: 'the old secret', validUntil: t.clock.now() + 24 * 60 * MINUTE });
    await t.emit(1);
    await t.dispatcher.tick();
    t.clock.advance(24 * 60 * MINUTE);
    await t.emit(1);
    await t.dispatcher.tick();
    const [during, after] = hook.hits();
    expect(standardEntries(during!, [SECRET, 'the old secret']).expected).toEqual(standardEntries(during!, []).received);
    expect(receiverAccepts(during!, SECRET)).toBe(true);
    expect(receiverAccepts(during!, 'the old secret')).toBe(false);
    expect(standardEntries(after!, [SECRET]).expected).toEqual(standardEntries(after!, []).received);
  });

  it('a previous secret that no longer opens (its key retired) is left out; the delivery still goes out signed', async () => {
    const t = await setup();
    const hook = endpoint(200);
    const retired = new AesGcmKeyCipher({ currentKeyId: 'k0', keys: { k0: new Uint8Array(32).fill(9) } });
    await t.configure(1, hook.url, null, { secret: 'the old secret', validUntil: t.clock.now() + MINUTE, cipher: retired });
    await t.emit(1);
    expect((await t.dispatcher.tick()).attempted.map((a) => a.status)).toEqual([DELIVERY_STATUS.SUCCEEDED]);
    const [hit] = hook.hits();
    expect(standardEntries(hit!, [SECRET]).expected).toEqual(standardEntries(hit!, []).received);
  });

  it('fail, fail, succeed: retries at +1 min and +5 min (not earlier), same event_id every time, every attempt recorded', async () => {
    const t = await setup();
    const hook = endpoint(500, 503, 204);
    await t.configure(1, hook.url);
    const event = await t.emit(1);
    const start = t.clock.now();
    expect((await t.dispatcher.tick()).attempted.map((a) => a.status)).toEqual([DELIVERY_STATUS.RETRYING]);
    t.clock.advance(MINUTE - 1);
    expect((await t.dispatcher.deliverDue())).toEqual([]);
    t.clock.advance(1);
    expect((await t.dispatcher.deliverDue()).map((a) => a.status)).toEqual([DELIVERY_STATUS.RETRYING]);
    t.clock.advance(5 * MINUTE - 1);
    expect((await t.dispatcher.deliverDue())).toEqual([]);
    t.clock.advance(1);
    expect((await t.dispatcher.deliverDue()).map((a) => a.status)).toEqual([DELIVERY_STATUS.SUCCEEDED]);
    const hits = hook.hits();
    expect(hits.map((h) => h.headers['x-event-id'])).toEqual([event.eventId, event.eventId, event.eventId]);
    expect(hits.every((h) => receiverAccepts(h, SECRET))).toBe(true);
    const [view] = (await t.webhooks.deliveries(1, {})).items;
    expect(view!.status).toBe(DELIVERY_STATUS.SUCCEEDED);
    expect(view!.attempts.map((a) => [a.at, a.http_status, a.error])).toEqual([
      [formatIsoTime(start), 500, 'HTTP 500'],
      [formatIsoTime(start + MINUTE), 503, 'HTTP 503'],
      [formatIsoTime(start + 6 * MINUTE), 204, null],
    ]);
  });

  it('three failures mark the delivery DEAD; nothing is attempted afterwards; DEAD stays listed', async () => {
    const t = await setup();
    const hook = endpoint(500);
    await t.configure(1, hook.url);
    await t.emit(1);
    await t.dispatcher.tick();
    t.clock.advance(MINUTE);
    await t.dispatcher.deliverDue();
    t.clock.advance(5 * MINUTE);
    expect((await t.dispatcher.deliverDue()).map((a) => a.status)).toEqual([DELIVERY_STATUS.DEAD]);
    t.clock.advance(24 * 60 * MINUTE);
    expect(await t.dispatcher.tick()).toEqual({ recorded: [], attempted: [] });
    expect(hook.hits()).toHaveLength(3);
    const [view] = (await t.webhooks.deliveries(1, {})).items;
    expect(view).toMatchObject({ status: DELIVERY_STATUS.DEAD, next_attempt_at: null });
    expect(view!.attempts).toHaveLength(3);
  });

  it('a receiver that does not answer within the request budget is a failed attempt (timeout error recorded)', async () => {
    const t = await setup({ timeoutMs: 150 });
    const hook = endpoint('hang');
    await t.configure(1, hook.url);
    await t.emit(1);
    const [outcome] = (await t.dispatcher.tick()).attempted;
    expect(outcome).toMatchObject({ status: DELIVERY_STATUS.RETRYING, recorded: true });
    expect(outcome!.attempt.httpStatus).toBeNull();
    expect(outcome!.attempt.error).toMatch(/^timeout/);
    expect(outcome!.attempt.durationMs).toBeGreaterThanOrEqual(140);
    receiver.release();
  });

  it('a 2xx that arrived after 15 s is still a failure', async () => {
    const late: WebhookTransport = { post: async () => ({ ok: true, status: 200, durationMs: 15_001 }) };
    const onTime: WebhookTransport = { post: async () => ({ ok: true, status: 200, durationMs: 15_000 }) };
    for (const [transport, expected] of [[late, DELIVERY_STATUS.RETRYING], [onTime, DELIVERY_STATUS.SUCCEEDED]] as const) {
      const t = await setup({ transport });
      await t.configure(1, 'https://hooks.example.com/x');
      await t.emit(1);
      const [outcome] = (await t.dispatcher.tick()).attempted;
      expect(outcome!.status).toBe(expected);
    }
  });

  it('records SKIPPED (6) when no URL is approved, and never replays it, even after approval', async () => {
    const t = await setup();
    const pending = endpoint(200);
    await t.emit(1); // no configuration at all
    await t.configure(2, null, pending.url); // only a pending URL
    await t.emit(2);
    const { recorded, attempted } = await t.dispatcher.tick();
    expect(recorded.map((r) => r.status)).toEqual([DELIVERY_STATUS.SKIPPED, DELIVERY_STATUS.SKIPPED]);
    expect(attempted).toEqual([]);
    await t.mem.developerConfigs.save({ ...(await t.mem.developerConfigs.get(2))!, url: pending.url, pendingUrl: null, version: 2 });
    t.clock.advance(60 * MINUTE);
    expect(await t.dispatcher.tick()).toEqual({ recorded: [], attempted: [] });
    expect(pending.hits()).toEqual([]);
    for (const user of [1, 2]) {
      const [view] = (await t.webhooks.deliveries(user, {})).items;
      expect(view).toMatchObject({ status: DELIVERY_STATUS.SKIPPED, url: null, attempts: [], next_attempt_at: null });
    }
  });

  it('deposit.* and payment.* events (opt-in, issues #24/#25) travel exactly like the spec\'s: both signatures, the same retries, DEAD after three failures, SKIPPED without an approved URL', async () => {
    for (const eventType of ['deposit.confirmed', 'deposit.pending', 'deposit.reverted', 'payment.paid', 'payment.expired', 'payment.paid_late'] as const) {
      const t = await setup();
      const failing = endpoint(500, 503, 204);
      const dead = endpoint(500);
      await t.configure(1, failing.url);
      await t.configure(2, dead.url);
      let seq = 0;
      const emitTyped = async (userId: number): Promise<WebhookEvent> => {
        const eventId = `00000000-0000-4000-9000-${String(++seq).padStart(12, '0')}`;
        const payload: Record<string, JsonValue> = {
          event_id: eventId, event_type: eventType, occurred_at: formatIsoTime(t.clock.now()), deposit_id: `d-${seq}`, network_code: 'TRON',
          asset_symbol: 'USDT', address: 'TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf', amount: '25000000', txid: 'ab'.repeat(32), block_number: 7,
        };
        const event: WebhookEvent = { eventId, userId, eventType, occurredAt: t.clock.now(), payload, dispatched: false };
        await t.mem.uow.commit({ events: [event] });
        return event;
      };
      const event = await emitTyped(1);
      await emitTyped(2);
      await emitTyped(3); // a user with no webhook at all
      const first = await t.dispatcher.tick();
      expect(first.recorded.map((r) => r.status).sort(), eventType).toEqual([DELIVERY_STATUS.PENDING, DELIVERY_STATUS.PENDING, DELIVERY_STATUS.SKIPPED].sort());
      t.clock.advance(MINUTE);
      await t.dispatcher.deliverDue();
      t.clock.advance(5 * MINUTE);
      expect((await t.dispatcher.deliverDue()).map((a) => a.status).sort(), eventType).toEqual([DELIVERY_STATUS.SUCCEEDED, DELIVERY_STATUS.DEAD].sort());
      expect(failing.hits().map((h) => h.headers['x-event-id']), eventType).toEqual([event.eventId, event.eventId, event.eventId]);
      expect(failing.hits().every((h) => receiverAccepts(h, SECRET)), eventType).toBe(true);
      expect(JSON.parse(failing.hits()[0]!.body), eventType).toMatchObject({ event_type: eventType, amount: '25000000' });
      expect(dead.hits(), eventType).toHaveLength(3);
      expect((await t.webhooks.deliveries(3, {})).items[0], eventType).toMatchObject({ status: DELIVERY_STATUS.SKIPPED, attempts: [] });
    }
  });

  it('during a pending change the previously approved URL keeps receiving; the pending one gets nothing', async () => {
    const t = await setup();
    const live = endpoint(200);
    const next = endpoint(200);
    await t.configure(1, live.url, next.url);
    await t.emit(1);
    await t.emit(1);
    const { attempted } = await t.dispatcher.tick();
    expect(attempted.map((a) => a.status)).toEqual([DELIVERY_STATUS.SUCCEEDED, DELIVERY_STATUS.SUCCEEDED]);
    expect(live.hits()).toHaveLength(2);
    expect(next.hits()).toEqual([]);
  });

  it('one event yields one delivery even when two dispatchers record it', async () => {
    const t = await setup();
    const hook = endpoint(200);
    await t.configure(1, hook.url);
    await t.emit(1);
    const other = new WebhookDispatcher({
      clock: t.clock, ids: t.mem.ids, outbox: t.mem.outbox, deliveries: t.mem.deliveries, developerConfigs: t.mem.developerConfigs,
      cipher: new AesGcmKeyCipher({ currentKeyId: 'k1', keys: { k1: new Uint8Array(32).fill(7) } }),
      transport: new HttpWebhookTransport({ resolver: new NodeDnsResolver(), allowLocal: true }),
    });
    const results = await Promise.all([t.dispatcher.tick(), other.tick()]);
    expect(results.flatMap((r) => r.attempted)).toHaveLength(1);
    expect((await t.webhooks.deliveries(1, {})).items).toHaveLength(1);
    expect(hook.hits()).toHaveLength(1);
  });

  it('a crash between recording the delivery and marking the event dispatched repeats nothing', async () => {
    const t = await setup();
    const hook = endpoint(200);
    await t.configure(1, hook.url);
    const event = await t.emit(1);
    // The first worker inserted the delivery and died before markDispatched.
    await t.mem.deliveries.insert({
      deliveryId: 'd-first', eventId: event.eventId, userId: 1, eventType: event.eventType, url: hook.url, status: DELIVERY_STATUS.PENDING,
      attempts: [], nextAttemptAt: t.clock.now(), lease: null, createdAt: t.clock.now(), version: 1,
    });
    const { recorded, attempted } = await t.dispatcher.tick();
    expect(recorded).toEqual([{ eventId: event.eventId, status: 'exists' }]);
    expect(attempted.map((a) => [a.deliveryId, a.status])).toEqual([['d-first', DELIVERY_STATUS.SUCCEEDED]]);
    expect(await t.mem.outbox.listUndispatched(10)).toEqual([]);
    expect(hook.hits()).toHaveLength(1);
  });

  it('an attempt whose lease expired and was taken over meanwhile is not recorded over the new owner', async () => {
    const t = await setup({ dispatcher: { leaseMs: 1_000 } });
    const hook = endpoint('hang', 200);
    await t.configure(1, hook.url);
    await t.emit(1);
    await t.dispatcher.recordEvents();
    const before = receiver.received.length;
    const running = t.dispatcher.deliverDue();
    await receiver.waitFor(before + 1);
    expect(await t.dispatcher.deliverDue()).toEqual([]); // leased: not claimable twice
    t.clock.advance(1_000);
    const [taken] = await t.mem.deliveries.claimDue(t.clock.now(), 'other-worker', 60_000, 1);
    expect(taken).toBeDefined();
    receiver.release(200);
    const [outcome] = await running;
    expect(outcome).toMatchObject({ recorded: false, status: DELIVERY_STATUS.PENDING });
    const stored = await t.mem.deliveries.get(taken!.deliveryId);
    expect(stored).toMatchObject({ attempts: [], lease: { owner: 'other-worker' }, status: DELIVERY_STATUS.PENDING });
  });

  it('a slow receiver holds one slot only: the others are delivered while it hangs; concurrency stays bounded', async () => {
    const t = await setup({ dispatcher: { concurrency: 3 } });
    const slow = endpoint('hang', 200);
    const fast = endpoint(200);
    await t.configure(1, slow.url);
    await t.configure(2, fast.url);
    await t.emit(1);
    for (let i = 0; i < 6; i += 1) await t.emit(2);
    await t.dispatcher.recordEvents();
    const firstWave = t.dispatcher.deliverDue();
    const more: Promise<unknown>[] = [];
    // Keep polling as a host would; each call only claims free slots.
    while (fast.hits().length < 6) {
      more.push(t.dispatcher.deliverDue());
      await new Promise((resolve) => setTimeout(resolve, 5));
      expect(t.dispatcher.active).toBeLessThanOrEqual(3);
    }
    await Promise.all(more);
    expect(slow.hits()).toHaveLength(1);
    const fastViews = (await t.webhooks.deliveries(2, {})).items;
    expect(fastViews.map((v) => v.status)).toEqual(Array(6).fill(DELIVERY_STATUS.SUCCEEDED));
    receiver.release();
    expect((await firstWave).find((o) => o.eventId === slow.hits()[0]!.headers['x-event-id'])?.status).toBe(DELIVERY_STATUS.SUCCEEDED);
  });

  it('property: SUCCEEDED iff a 2xx comes within the first three replies, with exactly that many attempts; else DEAD after 3', async () => {
    const reply = fc.constantFrom(200, 201, 204, 301, 400, 404, 500, 503);
    await fc.assert(fc.asyncProperty(fc.array(reply, { minLength: 3, maxLength: 5 }), async (replies) => {
      const t = await setup();
      const hook = endpoint(...replies);
      await t.configure(1, hook.url);
      await t.emit(1);
      await t.dispatcher.tick();
      for (const step of [MINUTE, 5 * MINUTE, 60 * MINUTE]) {
        t.clock.advance(step);
        await t.dispatcher.deliverDue();
      }
      const firstOk = replies.findIndex((s) => s >= 200 && s < 300);
      const [view] = (await t.webhooks.deliveries(1, {})).items;
      if (firstOk >= 0 && firstOk < 3) {
        expect(view!.status).toBe(DELIVERY_STATUS.SUCCEEDED);
        expect(view!.attempts).toHaveLength(firstOk + 1);
      } else {
        expect(view!.status).toBe(DELIVERY_STATUS.DEAD);
        expect(view!.attempts).toHaveLength(3);
      }
      expect(hook.hits()).toHaveLength(view!.attempts.length);
    }), { numRuns: runs(25) });
  });
});
