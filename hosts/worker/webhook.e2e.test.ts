/**
 * Webhooks end to end on the devnet: USDT collection via self-delegation and via rental, TRX collection and a
 * withdrawal, each driven to its terminal state by the worker host (manual ticks on a ManualClock), then delivered
 * by the webhook dispatcher to a loopback receiver at the developer's APPROVED URL. The receiver's view is checked
 * independently of core: the spec §6 signature, headers, and every field against the task/command and the chain.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReceivedWebhook } from '../../adapters/http/index.js';
import { COLLECTION_STATUS } from '../../core/domain/model/collection-task.js';
import { COMMAND_STATUS } from '../../core/domain/model/command.js';
import { DELIVERY_STATUS } from '../../core/domain/model/webhook.js';
import { buildWebhookWorld, onChainTransfer, signatureValid, standardSignatureValid, WEBHOOK_SECRET, type WebhookWorld } from './webhook-e2e-fixture.js';
import type { RunningWorker } from './index.js';
import { TRX } from './worker-test-fixture.js';
import { driveUntil } from './worker-drive.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ISO_8601 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
const SECOND = 1_000;

let ww: WebhookWorld;
beforeAll(async () => { ww = await buildWebhookWorld(); }, 60_000);
afterAll(async () => { await ww?.close(); });

/** Epoch ms of an ISO 8601 timestamp from the wire (fails the test on anything else). */
function instant(value: unknown): number {
  expect(value).toMatch(ISO_8601);
  return Date.parse(value as string);
}

const floorToSecond = (ms: number): number => ms - (ms % SECOND);

/** POSTs the receiver got whose body names this task or command. */
function hitsFor(field: 'task_no' | 'command_no', no: string): ReceivedWebhook[] {
  return ww.receiver.received.filter((h) => (JSON.parse(h.body) as Record<string, unknown>)[field] === no);
}

/**
 * Ticks the worker (executors, then the dispatcher) until the receiver has the flow's POST; then lets the retry
 * window (+1 min, +5 min) pass with more ticks and returns the one POST, proving no second delivery follows.
 */
async function deliver(worker: RunningWorker, field: 'task_no' | 'command_no', no: string): Promise<ReceivedWebhook> {
  const before = ww.receiver.received.length;
  await driveUntil(ww.w, [{ runDue: () => worker.tick() }], async () => hitsFor(field, no).length > 0);
  for (const minutes of [1, 5, 1]) {
    ww.w.clock.advance(minutes * 60 * SECOND);
    await worker.tick();
  }
  expect(ww.receiver.received.length - before).toBe(1);
  const hits = hitsFor(field, no);
  expect(hits).toHaveLength(1);
  return hits[0]!;
}

/** The receiver's checks common to every event, and the delivery as GET /webhooks/deliveries shows it. */
async function expectSignedAndDelivered(hit: ReceivedWebhook, eventType: string): Promise<Record<string, unknown>> {
  const body = JSON.parse(hit.body) as Record<string, unknown>;
  expect(hit.path).toBe('/hooks');
  expect(hit.headers['content-type']).toBe('application/json');
  expect(hit.headers['x-event-type']).toBe(eventType);
  expect(body['event_type']).toBe(eventType);
  expect(body['event_id']).toMatch(UUID);
  expect(hit.headers['x-event-id']).toBe(body['event_id']);
  expect(signatureValid(hit, WEBHOOK_SECRET)).toBe(true);
  expect(signatureValid(hit, `${WEBHOOK_SECRET}x`)).toBe(false);
  expect(signatureValid({ ...hit, body: hit.body.replace(/"status":\s*\d+/, '"status":4') }, WEBHOOK_SECRET)).toBe(false);
  // Standard Webhooks beside the spec's headers: the event_id, the send time from the worker's clock, one v1 entry.
  expect(hit.headers['webhook-id']).toBe(body['event_id']);
  expect(Number(hit.headers['webhook-timestamp'])).toBeLessThanOrEqual(Math.floor(ww.w.clock.now() / 1000));
  expect(String(hit.headers['webhook-signature']).split(' ')).toHaveLength(1);
  expect(standardSignatureValid(hit, WEBHOOK_SECRET, ww.w.clock.now(), 3_600)).toBe(true);
  expect(standardSignatureValid(hit, `${WEBHOOK_SECRET}x`, ww.w.clock.now(), 3_600)).toBe(false);
  expect(standardSignatureValid({ ...hit, body: `${hit.body} ` }, WEBHOOK_SECRET, ww.w.clock.now(), 3_600)).toBe(false);

  const page = await ww.app.webhooks.deliveries(ww.w.userId, { per_page: 100 });
  const mine = page.items.filter((d) => d.event_id === body['event_id']);
  expect(mine).toHaveLength(1);
  expect(mine[0]).toMatchObject({ event_type: eventType, status: DELIVERY_STATUS.SUCCEEDED, url: ww.url, next_attempt_at: null });
  expect(mine[0]!.attempts.map((a) => [a.http_status, a.error])).toEqual([[200, null]]);
  return body;
}

/** A collection: queued through the use case, run by `worker`, delivered; checks the body against task and chain. */
async function collectAndVerify(worker: RunningWorker, symbol: 'USDT' | 'TRX', fund: bigint, energyPath: string | null): Promise<void> {
  const { w } = ww;
  const sub = await w.addSub();
  if (symbol === 'USDT') w.devnet.fundToken(sub, fund);
  else w.devnet.fund(sub, fund);
  const balanceOfMain = () => (symbol === 'USDT' ? w.gateway.getTokenBalance(w.main.address, w.devnet.usdtAddress) : w.gateway.getTrxBalance(w.main.address));
  const mainBefore = await balanceOfMain();
  const started = w.clock.now();
  const task = await w.collect(sub, symbol);

  const hit = await deliver(worker, 'task_no', task.taskNo);
  const body = await expectSignedAndDelivered(hit, 'collection.completed');
  const done = (await w.stores.tasks.get(task.taskNo))!;
  expect({ status: done.status, path: done.energyPath }).toEqual({ status: COLLECTION_STATUS.DONE, path: energyPath });
  expect(body).toEqual({
    event_id: body['event_id'], event_type: 'collection.completed', occurred_at: body['occurred_at'],
    task_no: task.taskNo, status: 11, network_code: 'TRON', asset_symbol: symbol, address: sub,
    swept_amount: Number(fund), sweep_tx_hash: expect.stringMatching(/^[0-9a-f]{64}$/), credited_at: body['credited_at'], error: null,
  });
  expect(Number.isSafeInteger(body['swept_amount'])).toBe(true);
  expect(body['sweep_tx_hash']).toBe(done.sweepTxHash);
  expect(instant(body['credited_at'])).toBe(floorToSecond(done.finishedAt!));
  expect(instant(body['occurred_at'])).toBeGreaterThanOrEqual(floorToSecond(started));
  expect(instant(body['occurred_at'])).toBeLessThanOrEqual(w.clock.now());

  // The txid in the event is the sweep the chain holds: sub → main, exactly the swept amount.
  const sweep = await onChainTransfer(w.devnet.url, body['sweep_tx_hash'] as string);
  expect(sweep).toEqual(symbol === 'USDT'
    ? { type: 'TriggerSmartContract', result: 'SUCCESS', owner: sub, to: w.main.address, contract: w.devnet.usdtAddress, amount: fund }
    : { type: 'TransferContract', result: 'SUCCESS', owner: sub, to: w.main.address, contract: null, amount: fund });
  expect((await w.gateway.getTransaction(done.sweepTxHash!)).state).toBe('confirmed');
  const mainAfter = await balanceOfMain();
  // The float main sent (USDT) came back in RECOVER_TRX and a TRX sweep needs none, so the asset delta is exact.
  expect(mainAfter - mainBefore).toBe(fund);
}

describe('webhooks end to end on the devnet', { timeout: 60_000 }, () => {
  it('the developer URL went through set + admin approval and is live (not pending)', async () => {
    const config = await ww.app.subscriptions.getDeveloperConfig(ww.w.userId);
    expect(config).toMatchObject({ config: { webhook_url: ww.url, webhook_secret_set: true } });
    expect(JSON.stringify(config)).not.toContain(WEBHOOK_SECRET);
    expect(await ww.app.admin.listPendingWebhooks()).toEqual([]);
  });

  it('USDT collection via self-delegation: one signed collection.completed with the sweep txid', async () => {
    await collectAndVerify(ww.selfWorker, 'USDT', 12_345_678n, 'self');
  });

  it('USDT collection via the rental desk: one signed collection.completed with the sweep txid', async () => {
    await collectAndVerify(ww.rentalWorker, 'USDT', 4_000_000n, 'rental');
  });

  it('USDT collection renting from TronSave\'s simulation: one signed collection.completed with the sweep txid', async () => {
    await collectAndVerify(ww.tronsaveWorker, 'USDT', 3_000_000n, 'rental');
  });

  it('USDT collection renting from itrx\'s simulation: one signed collection.completed with the sweep txid', async () => {
    await collectAndVerify(ww.itrxWorker, 'USDT', 2_500_000n, 'rental');
  });

  it('USDT collection burning TRX for its energy: one signed collection.completed with the sweep txid', async () => {
    await collectAndVerify(ww.burnWorker, 'USDT', 1_750_000n, 'burn');
  });

  it('TRX collection: one signed collection.completed, the whole balance swept', async () => {
    await collectAndVerify(ww.selfWorker, 'TRX', 25n * TRX, null);
  });

  it('withdrawal: one signed withdrawal.completed whose txid is the transfer on chain', async () => {
    const { w } = ww;
    const from = await w.addSub();
    const to = (await w.gateway.createAccount()).address;
    w.devnet.fund(from, 50n * TRX);
    const started = w.clock.now();
    const command = await w.withdraw(from, to, 'TRX', 3n * TRX);

    const hit = await deliver(ww.selfWorker, 'command_no', command.commandNo);
    const body = await expectSignedAndDelivered(hit, 'withdrawal.completed');
    const done = (await w.stores.commands.get(command.commandNo))!;
    expect(done.status).toBe(COMMAND_STATUS.SUCCESS);
    expect(body).toEqual({
      event_id: body['event_id'], event_type: 'withdrawal.completed', occurred_at: body['occurred_at'],
      command_no: command.commandNo, status: 3, txid: done.transaction!.txid, error: null, finished_at: body['finished_at'],
    });
    expect(instant(body['finished_at'])).toBe(floorToSecond(done.finishedAt!));
    expect(instant(body['occurred_at'])).toBeGreaterThanOrEqual(floorToSecond(started));
    w.devnet.mine(1);
    expect(await onChainTransfer(w.devnet.url, body['txid'] as string))
      .toEqual({ type: 'TransferContract', result: 'SUCCESS', owner: from, to, contract: null, amount: 3n * TRX });
    expect(await w.gateway.getTrxBalance(to)).toBe(3n * TRX);
  });
});
