/**
 * Failure webhooks end to end on the devnet: a collection with nothing to collect, a collection that fails mid-way
 * for want of energy, and a withdrawal above the on-chain balance each end in exactly one signed *.failed POST to
 * the developer's APPROVED loopback receiver, with the spec §6 fields (txid / sweep fields null, `error` a string).
 * Then the spec §6 retry schedule seen from the receiver on the ManualClock: 500, 500, 200 → three attempts at
 * +0, +1 min, +1 min +5 min with one X-Event-Id, SUCCEEDED; a receiver that always fails → DEAD after the third.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReceivedWebhook } from '../../adapters/http/index.js';
import { COLLECTION_STATUS } from '../../core/domain/model/collection-task.js';
import { COMMAND_STATUS } from '../../core/domain/model/command.js';
import { DELIVERY_STATUS } from '../../core/domain/model/webhook.js';
import type { DeliveryView } from '../../core/application/views.js';
import { buildWebhookWorld, signatureValid, standardSignatureValid, WEBHOOK_SECRET, type WebhookWorld } from './webhook-e2e-fixture.js';
import type { RunningWorker } from './index.js';
import { TRX } from './worker-test-fixture.js';
import { driveUntil } from './worker-drive.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ISO_8601 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
const SECOND = 1_000;
const MINUTE = 60 * SECOND;

/** task_no / command_no → how many POSTs for it the receiver answers 500 before answering 200. */
const failuresBefore200 = new Map<string, number>();

let ww: WebhookWorld;
beforeAll(async () => {
  ww = await buildWebhookWorld({
    reply: (request) => {
      const body = JSON.parse(request.body) as Record<string, unknown>;
      const no = String(body['task_no'] ?? body['command_no']);
      // `received` already holds this request, so the count includes it.
      const seen = hitsFor(no).length;
      return { status: seen <= (failuresBefore200.get(no) ?? 0) ? 500 : 200 };
    },
  });
}, 60_000);
afterAll(async () => { await ww?.close(); });

/** POSTs the receiver got whose body names this task or command. */
function hitsFor(no: string): ReceivedWebhook[] {
  return ww.receiver.received.filter((h) => {
    const body = JSON.parse(h.body) as Record<string, unknown>;
    return body['task_no'] === no || body['command_no'] === no;
  });
}

function instant(value: unknown): number {
  expect(value).toMatch(ISO_8601);
  return Date.parse(value as string);
}

const floorToSecond = (ms: number): number => ms - (ms % SECOND);

/**
 * Drives `worker` until the receiver has the first POST for `no`, then lets the whole retry window pass with more
 * ticks and returns the one POST, proving no second delivery follows a 200.
 */
async function deliverOnce(worker: RunningWorker, no: string): Promise<ReceivedWebhook> {
  const before = ww.receiver.received.length;
  await driveUntil(ww.w, [{ runDue: () => worker.tick() }], async () => hitsFor(no).length > 0);
  for (const minutes of [1, 5, 10]) {
    ww.w.clock.advance(minutes * MINUTE);
    await worker.tick();
  }
  expect(ww.receiver.received.length - before).toBe(1);
  const hits = hitsFor(no);
  expect(hits).toHaveLength(1);
  return hits[0]!;
}

/** The delivery of one event as GET /webhooks/deliveries shows it. */
async function deliveryOf(eventId: unknown): Promise<DeliveryView> {
  const page = await ww.app.webhooks.deliveries(ww.w.userId, { per_page: 100 });
  const mine = page.items.filter((d) => d.event_id === eventId);
  expect(mine).toHaveLength(1);
  return mine[0]!;
}

/** Receiver-side checks every failure event must pass; returns the parsed body. */
function expectSignedEvent(hit: ReceivedWebhook, eventType: string): Record<string, unknown> {
  const body = JSON.parse(hit.body) as Record<string, unknown>;
  expect(hit.path).toBe('/hooks');
  expect(hit.headers['content-type']).toBe('application/json');
  expect(hit.headers['x-event-type']).toBe(eventType);
  expect(body['event_type']).toBe(eventType);
  expect(body['event_id']).toMatch(UUID);
  expect(hit.headers['x-event-id']).toBe(body['event_id']);
  expect(signatureValid(hit, WEBHOOK_SECRET)).toBe(true);
  expect(signatureValid(hit, `${WEBHOOK_SECRET}x`)).toBe(false);
  expect(signatureValid({ ...hit, body: hit.body.replace(/"error":\s*"/, '"error":"x') }, WEBHOOK_SECRET)).toBe(false);
  return body;
}

/** A collection that must fail with `code`: one collection.failed POST, command FAILED, the lock released. */
async function collectionFails(worker: RunningWorker, sub: string, code: string): Promise<Record<string, unknown>> {
  const { w } = ww;
  const started = w.clock.now();
  const task = await w.collect(sub, 'USDT');
  const hit = await deliverOnce(worker, task.taskNo);
  const body = expectSignedEvent(hit, 'collection.failed');
  const failed = (await w.stores.tasks.get(task.taskNo))!;
  expect({ status: failed.status, code: failed.errorCode }).toEqual({ status: COLLECTION_STATUS.FAILED, code });
  expect((await w.stores.commands.get(task.commandNo))!.status).toBe(COMMAND_STATUS.FAILED);
  expect(await w.stores.commands.findActiveByAddress(sub)).toBeNull();
  // Exactly the spec §6 common + collection.* fields, nothing else; the failure nulls the sweep fields.
  expect(body).toEqual({
    event_id: body['event_id'], event_type: 'collection.failed', occurred_at: body['occurred_at'],
    task_no: task.taskNo, status: 12, network_code: 'TRON', asset_symbol: 'USDT', address: sub,
    swept_amount: null, sweep_tx_hash: null, credited_at: null, error: expect.any(String),
  });
  expect(body['error']).not.toBe('');
  expect(body['error']).toBe(failed.lastError);
  expect(instant(body['occurred_at'])).toBeGreaterThanOrEqual(floorToSecond(started));
  expect(instant(body['occurred_at'])).toBeLessThanOrEqual(w.clock.now());
  expect(await deliveryOf(body['event_id'])).toMatchObject({
    event_type: 'collection.failed', status: DELIVERY_STATUS.SUCCEEDED, url: ww.url, next_attempt_at: null,
    attempts: [expect.objectContaining({ http_status: 200, error: null })],
  });
  return body;
}

/**
 * Steps the ManualClock in 5 s steps (a tick each) for `totalMs` and returns, for every new POST naming `no`,
 * the Clock time it arrived at. 60 s and 300 s are multiples of the step, so an attempt due at t arrives at t.
 */
async function arrivalsWhileStepping(worker: RunningWorker, no: string, totalMs: number): Promise<number[]> {
  const arrivals: number[] = [];
  for (let elapsed = 0; elapsed < totalMs; elapsed += 5 * SECOND) {
    ww.w.clock.advance(5 * SECOND);
    const before = hitsFor(no).length;
    await worker.tick();
    for (let i = before; i < hitsFor(no).length; i++) arrivals.push(ww.w.clock.now());
  }
  return arrivals;
}

/** A nothing-to-collect failure whose POSTs get `failures` 500s first; returns the first POST's Clock time. */
async function failingDelivery(failures: number): Promise<{ taskNo: string; firstAt: number }> {
  const { w } = ww;
  const sub = await w.addSub();
  const task = await w.collect(sub, 'USDT');
  failuresBefore200.set(task.taskNo, failures);
  await driveUntil(w, [{ runDue: () => ww.selfWorker.tick() }], async () => hitsFor(task.taskNo).length > 0);
  return { taskNo: task.taskNo, firstAt: w.clock.now() };
}

describe('failure webhooks end to end on the devnet', { timeout: 60_000 }, () => {
  it('nothing to collect: one signed collection.failed, command FAILED, lock released', async () => {
    const sub = await ww.w.addSub();
    const body = await collectionFails(ww.selfWorker, sub, 'BIZ-NOTHING-TO-COLLECT');
    expect((await ww.w.stores.tasks.get(body['task_no'] as string))!.steps).toEqual([]);
  });

  it('no energy source: planned at PENDING, one signed collection.failed and nothing sent', async () => {
    const { w } = ww;
    const sub = await w.addSub();
    w.devnet.fundToken(sub, 1_000_000n);
    const body = await collectionFails(ww.energylessWorker, sub, 'BIZ-ENERGY-UNAVAILABLE');
    const task = (await w.stores.tasks.get(body['task_no'] as string))!;
    // Plan before spending: no source fits, so no step sent anything.
    expect(task.steps).toEqual([]);
    expect(body['error']).toMatch(/no energy source/);
    expect(await w.gateway.getTokenBalance(sub, w.devnet.usdtAddress)).toBe(1_000_000n);
  });

  it('withdrawal above the on-chain balance: one signed withdrawal.failed, nothing sent', async () => {
    const { w } = ww;
    const from = await w.addSub();
    const to = (await w.gateway.createAccount()).address;
    w.devnet.fund(from, 2n * TRX);
    const started = w.clock.now();
    const command = await w.withdraw(from, to, 'TRX', 5n * TRX);

    const hit = await deliverOnce(ww.selfWorker, command.commandNo);
    const body = expectSignedEvent(hit, 'withdrawal.failed');
    const failed = (await w.stores.commands.get(command.commandNo))!;
    expect({ status: failed.status, code: failed.errorCode, tx: failed.transaction })
      .toEqual({ status: COMMAND_STATUS.FAILED, code: 'BIZ-INSUFFICIENT-BALANCE', tx: null });
    expect(await w.stores.commands.findActiveByAddress(from)).toBeNull();
    expect(body).toEqual({
      event_id: body['event_id'], event_type: 'withdrawal.failed', occurred_at: body['occurred_at'],
      command_no: command.commandNo, status: 4, txid: null, error: expect.any(String), finished_at: body['finished_at'],
    });
    expect(body['error']).not.toBe('');
    expect(body['error']).toBe(failed.lastError);
    expect(instant(body['finished_at'])).toBe(floorToSecond(failed.finishedAt!));
    expect(instant(body['occurred_at'])).toBeGreaterThanOrEqual(floorToSecond(started));
    expect(await deliveryOf(body['event_id'])).toMatchObject({ event_type: 'withdrawal.failed', status: DELIVERY_STATUS.SUCCEEDED });
    expect(await w.gateway.getTrxBalance(to)).toBe(0n);
    expect(await w.gateway.getTrxBalance(from)).toBe(2n * TRX);
  });

  it('500, 500, then 200: attempts at +0, +1 min, +1 min +5 min, one X-Event-Id, SUCCEEDED with 3 attempts', async () => {
    const { taskNo, firstAt } = await failingDelivery(2);
    expect(hitsFor(taskNo)).toHaveLength(1);
    const later = await arrivalsWhileStepping(ww.selfWorker, taskNo, 20 * MINUTE);
    expect(later.map((t) => t - firstAt)).toEqual([1 * MINUTE, 6 * MINUTE]);

    const hits = hitsFor(taskNo);
    expect(hits).toHaveLength(3);
    const eventId = (JSON.parse(hits[0]!.body) as Record<string, unknown>)['event_id'];
    expect(eventId).toMatch(UUID);
    for (const hit of hits) {
      expect(hit.headers['x-event-id']).toBe(eventId);
      expect(JSON.parse(hit.body)).toEqual(JSON.parse(hits[0]!.body));
      expect(signatureValid(hit, WEBHOOK_SECRET)).toBe(true);
      expect(hit.headers['webhook-id']).toBe(eventId);
      expect(standardSignatureValid(hit, WEBHOOK_SECRET, firstAt + 7 * MINUTE, 3_600)).toBe(true);
    }
    // Each attempt is signed at its own send time: the retries carry later timestamps, +1 min and +6 min.
    const stamps = hits.map((hit) => Number(hit.headers['webhook-timestamp']));
    expect([stamps[1]! - stamps[0]!, stamps[2]! - stamps[0]!]).toEqual([60, 360]);
    const delivery = await deliveryOf(eventId);
    expect({ status: delivery.status, next: delivery.next_attempt_at }).toEqual({ status: DELIVERY_STATUS.SUCCEEDED, next: null });
    expect(delivery.attempts.map((a) => [instant(a.at) - floorToSecond(firstAt), a.http_status, a.error === null]))
      .toEqual([[0, 500, false], [1 * MINUTE, 500, false], [6 * MINUTE, 200, true]]);
  });

  it('a receiver that always fails: DEAD after the third attempt, never tried again', async () => {
    const { taskNo, firstAt } = await failingDelivery(Number.POSITIVE_INFINITY);
    const later = await arrivalsWhileStepping(ww.selfWorker, taskNo, 10 * MINUTE);
    expect(later.map((t) => t - firstAt)).toEqual([1 * MINUTE, 6 * MINUTE]);
    const eventId = (JSON.parse(hitsFor(taskNo)[0]!.body) as Record<string, unknown>)['event_id'];
    const dead = await deliveryOf(eventId);
    expect({ status: dead.status, next: dead.next_attempt_at }).toEqual({ status: DELIVERY_STATUS.DEAD, next: null });
    expect(dead.attempts.map((a) => a.http_status)).toEqual([500, 500, 500]);

    for (const hours of [1, 24, 24 * 7]) {
      ww.w.clock.advance(hours * 60 * MINUTE);
      await ww.selfWorker.tick();
    }
    expect(hitsFor(taskNo)).toHaveLength(3);
    expect(hitsFor(taskNo).every((h) => h.headers['x-event-id'] === eventId)).toBe(true);
    expect((await deliveryOf(eventId)).status).toBe(DELIVERY_STATUS.DEAD);
  });

  it('redelivery of a DEAD event during a secret rotation: same event_id, both secrets verify, a 4th recorded attempt', async () => {
    const { taskNo } = await failingDelivery(Number.POSITIVE_INFINITY);
    await arrivalsWhileStepping(ww.selfWorker, taskNo, 10 * MINUTE);
    const eventId = (JSON.parse(hitsFor(taskNo)[0]!.body) as Record<string, unknown>)['event_id'];
    expect((await deliveryOf(eventId)).status).toBe(DELIVERY_STATUS.DEAD);
    const rotated = `${WEBHOOK_SECRET}-rotated`;
    const put = (secret: string) => ww.app.subscriptions.putConfig(ww.w.userId, { service_code: 'developer', config: { webhook_secret: secret } });
    await put(rotated);
    try {
      failuresBefore200.set(taskNo, 0);
      const result = await ww.app.webhooks.redeliver(ww.w.userId, (await deliveryOf(eventId)).delivery_id);
      expect(result).toMatchObject({ delivered: true, attempt: { http_status: 200, redelivery: true } });
      const hits = hitsFor(taskNo);
      expect(hits).toHaveLength(4);
      const hit = hits[3]!;
      expect(hit.headers['x-event-id']).toBe(eventId);
      expect(hit.headers['webhook-id']).toBe(eventId);
      expect(hit.body).toBe(hits[0]!.body);
      // Spec header: the new secret only. Standard header: one entry per secret in force, either verifies.
      expect(signatureValid(hit, rotated)).toBe(true);
      expect(signatureValid(hit, WEBHOOK_SECRET)).toBe(false);
      expect(String(hit.headers['webhook-signature']).split(' ')).toHaveLength(2);
      expect(standardSignatureValid(hit, rotated, ww.w.clock.now())).toBe(true);
      expect(standardSignatureValid(hit, WEBHOOK_SECRET, ww.w.clock.now())).toBe(true);
      expect(standardSignatureValid(hit, WEBHOOK_SECRET, ww.w.clock.now() + 301_000)).toBe(false);
      const after = await deliveryOf(eventId);
      expect({ status: after.status, next: after.next_attempt_at }).toEqual({ status: DELIVERY_STATUS.SUCCEEDED, next: null });
      expect(after.attempts.map((a) => [a.http_status, a.redelivery])).toEqual([[500, false], [500, false], [500, false], [200, true]]);
      expect(after.payload).toEqual(JSON.parse(hits[0]!.body));
    } finally {
      await put(WEBHOOK_SECRET);
    }
  });
});
