import { afterEach, describe, expect, it } from 'vitest';
import { startLocalReceiver, type LocalWebhookReceiver } from '../../adapters/http/index.js';
import { RecordingMailer } from '../../adapters/memory/index.js';
import { NodeSecretHasher, TEST_SCRYPT_COST } from '../../adapters/node/index.js';
import { userWithWallets } from '../../core/application/testing/index.js';
import { COLLECTION_STATUS } from '../../core/domain/model/collection-task.js';
import { loadConfig } from '../composition/config.js';
import { composeContainer, type Composition } from '../composition/container.js';
import { startMetricsServer, type MetricsServer } from '../composition/metrics-server.js';
import { TOKENS } from '../composition/tokens.js';
import { CustodyMetrics } from '../composition/metrics.js';
import { startComposedWorker, workerMetrics } from './compose-worker.js';
import type { RunningWorker } from './index.js';
import { driveUntil } from './worker-drive.js';
import { buildWorkerWorld, TRX, type WorkerWorld } from './worker-test-fixture.js';

let world: WorkerWorld | undefined;
let composition: Composition | undefined;
let worker: RunningWorker | undefined;
let receiver: LocalWebhookReceiver | undefined;
let server: MetricsServer | undefined;
afterEach(async () => {
  await server?.close();
  await worker?.stop();
  await composition?.close();
  await receiver?.close();
  await world?.close();
  server = worker = composition = receiver = world = undefined;
});

/** The value of one sample line (`name{labels} value`), or undefined when absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`))) return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return undefined;
}

describe('worker and API metrics (Prometheus, prom-client)', { timeout: 90_000 }, () => {
  it('after a USDT collection and its webhook, /metrics shows the request, the finished task, its steps and cost, the delivery, chain calls and the scanner', async () => {
    world = await buildWorkerWorld({ stakeTrx: 0n, seed: 'metrics' });
    const w = world;
    receiver = await startLocalReceiver();
    const config = loadConfig({
      CHAIN: 'devnet', TRON_FULL_HOST: w.devnet.url, USDT_CONTRACT: w.devnet.usdtAddress, ENERGY_PROVIDER: 'self',
      ENERGY_BURN: 'true', CHAIN_CONFIRMATIONS: '1', WEBHOOK_ALLOW_LOCAL: 'true', METRICS_PORT: '0',
    }, { mode: 'dev', role: 'worker' });
    const mailer = new RecordingMailer();
    composition = composeContainer(config, { clock: w.clock, mailer, hasher: new NodeSecretHasher({ cost: TEST_SCRYPT_COST }) });
    const app = composition.container.get(TOKENS.Application);
    const user = await userWithWallets(app, (email) => mailer.lastCodeFor(email), 'metrics@example.com', 1);
    await app.subscriptions.putConfig(user.userId, {
      service_code: 'developer', config: { webhook_url: `${receiver.origin}/hooks`, webhook_secret: 'whsec-metrics-0123456789' },
    });
    await app.admin.approveWebhook(String(user.userId), { url: `${receiver.origin}/hooks` });
    w.devnet.fund(user.main, 100n * TRX);
    w.devnet.fundToken(user.subs[0]!, 5_000_000n);
    w.devnet.mine(1);
    // The deposit in the cached balance (the scanner's work a block later): a collection needs it there.
    await app.wallets.refresh(user.userId, user.subs[0]!, { force: true });
    const task = await app.collections.create(user.userId, { address: user.subs[0]!, asset_symbol: 'USDT' });
    worker = startComposedWorker(composition, {}, { manual: true });
    const running = worker;
    const done = async (): Promise<boolean> => (await app.collections.get(user.userId, task.task_no)).status === COLLECTION_STATUS.DONE;
    await driveUntil(w, [{ runDue: () => running.tick() }], done);
    await driveUntil(w, [{ runDue: () => running.tick() }], () => Promise.resolve(receiver!.received.length > 0));
    // One API request through the composed host (the API's own metrics hook).
    const h3 = composition.container.get(TOKENS.ApiHost).h3;
    expect((await h3.fetch(new Request('http://api.test/api/healthz'))).status).toBe(200);

    server = await startMetricsServer(composition.container.get(TOKENS.Metrics), { port: config.metricsPort!, host: '127.0.0.1' });
    const response = await fetch(`${server.url}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/plain');
    const text = await response.text();
    expect(text).toContain('service="custody-worker"');
    expect(sample(text, 'custody_http_request_duration_seconds_count', { route: '/api/healthz', status: '200' })).toBe(1);
    expect(sample(text, 'custody_tasks_finished_total', { workflow: 'collection', status: 'DONE' })).toBe(1);
    expect(sample(text, 'custody_task_step_duration_seconds_count', { workflow: 'collection', step: 'COLLECTING' })).toBe(1);
    expect(sample(text, 'custody_sweep_cost_sun_total')).toBeGreaterThan(0);
    expect(sample(text, 'custody_sweep_cost_trx_count')).toBe(1);
    expect(sample(text, 'custody_webhook_attempts_total', { status: 'SUCCEEDED' })).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'custody_webhook_attempt_duration_seconds_count', { status: 'SUCCEEDED' })).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'custody_workflow_stages_total', { workflow: 'collection', outcome: 'finished' })).toBe(1);
    expect(sample(text, 'custody_chain_calls_total', { method: 'broadcast' })).toBeGreaterThan(0);
    expect(sample(text, 'custody_scanner_lag_blocks')).toBeGreaterThanOrEqual(0);
    expect(sample(text, 'custody_tasks', { workflow: 'collection', status: 'DONE' })).toBe(1);
    expect(sample(text, 'custody_tasks', { workflow: 'collection', status: 'PENDING' })).toBe(0);
    expect(text).toContain('custody_webhook_dead_total');
    expect(text).toContain('custody_lock_conflicts_total');
    // Process metrics are on where a metrics server runs (METRICS_PORT set).
    expect(text).toContain('process_resident_memory_bytes');
    expect(await (await fetch(`${server.url}/healthz`)).json()).toEqual({ status: 'ok', ok: true });
    expect((await fetch(`${server.url}/other`)).status).toBe(404);
  });
});

describe('automatic collection metrics (issue #24 item 4)', () => {
  it('each judged trigger in a tick report counts in custody_auto_collect_total by outcome (waiting: above max_fee_sun)', async () => {
    const metrics = new CustodyMetrics('custody-worker');
    const observer = workerMetrics(metrics, { get: async () => null } as never);
    await observer.tick!({ collections: [], commands: [], reclaims: [], autoCollect: ['waiting', 'started', 'waiting', 'below-minimum'] });
    await observer.tick!({ collections: [], commands: [], reclaims: [] });
    const text = await metrics.metrics();
    expect(sample(text, 'custody_auto_collect_total', { outcome: 'waiting' })).toBe(2);
    expect(sample(text, 'custody_auto_collect_total', { outcome: 'started' })).toBe(1);
    expect(sample(text, 'custody_auto_collect_total', { outcome: 'below-minimum' })).toBe(1);
  });
});

describe('payment request metrics (issue #25)', () => {
  it('each watched request judged counts in custody_payment_requests_total by outcome; unchanged ones are not counted', async () => {
    const metrics = new CustodyMetrics('custody-worker');
    const observer = workerMetrics(metrics, { get: async () => null } as never);
    await observer.tick!({ collections: [], commands: [], reclaims: [], payments: ['unchanged', 'judged', 'started', 'unchanged', 'judged'] });
    const text = await metrics.metrics();
    expect(sample(text, 'custody_payment_requests_total', { outcome: 'judged' })).toBe(2);
    expect(sample(text, 'custody_payment_requests_total', { outcome: 'started' })).toBe(1);
    expect(sample(text, 'custody_payment_requests_total', { outcome: 'unchanged' })).toBeUndefined();
  });
});
