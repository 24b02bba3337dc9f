import { afterEach, describe, expect, it } from 'vitest';
import { COLLECTION_STATUS, type CollectionTask } from '../../core/domain/model/collection-task.js';
import { NO_COST } from '../../core/domain/sweep-cost.js';
import { loadConfig } from '../composition/config.js';
import { composeContainer, type Composition } from '../composition/container.js';
import { TOKENS } from '../composition/tokens.js';
import { startComposedWorker } from './compose-worker.js';
import type { RunningWorker } from './index.js';
import { runDailySummary } from './maintenance.js';
import { operatorStatusOf } from './operator-status.js';
import { buildWorkerWorld, type WorkerWorld } from './worker-test-fixture.js';

let world: WorkerWorld | undefined;
let composition: Composition | undefined;
let worker: RunningWorker | undefined;
afterEach(async () => {
  await worker?.stop();
  await composition?.close();
  await world?.close();
  worker = composition = world = undefined;
});

const lines: { fields: object; message: string }[] = [];
const log = { info: (fields: object, message: string) => lines.push({ fields, message }), warn: () => undefined, error: () => undefined };

describe('the worker\'s status for the operator console (issue #38 item 2)', { timeout: 60_000 }, () => {
  it('writes the health snapshot (scanner lag, node calls, a node paused by a 429) and the daily summary to the store', async () => {
    world = await buildWorkerWorld({ seed: 'operator-status' });
    const w = world;
    const config = loadConfig({
      CHAIN: 'devnet', TRON_FULL_HOST: w.devnet.url, USDT_CONTRACT: w.devnet.usdtAddress, ENERGY_PROVIDER: 'self', CHAIN_CONFIRMATIONS: '1',
      TRON_NODE_DAILY_CALLS: '100000',
    }, { mode: 'dev', role: 'worker' });
    composition = composeContainer(config, { clock: w.clock });
    const store = composition.container.get(TOKENS.Stores).operatorStatus;
    worker = startComposedWorker(composition, {}, { manual: true });
    w.devnet.mine(3);
    await worker.tick();
    const status = operatorStatusOf(composition);
    await status.writeHealth();
    const first = await store.get('health');
    expect(first?.at).toBe(w.clock.now());
    const body = first!.body as { scanner: { lagBlocks: number | null; lagSeconds: number | null }; nodeCalls: Record<string, number>; nodes: Record<string, unknown>[] };
    expect(body.scanner.lagBlocks).toBeGreaterThanOrEqual(0);
    expect(body.nodeCalls['scan']).toBeGreaterThan(0);
    expect(body.nodes).toHaveLength(1);
    expect(body.nodes[0]).toMatchObject({ node: new URL(w.devnet.url).origin, paused: false, failures: 0, budget: 100_000 });
    expect(body.nodes[0]!['calls']).toBeGreaterThan(0);
    expect(body.nodes[0]!['budgetLeft']).toBe(100_000 - (body.nodes[0]!['calls'] as number));

    // The node refuses with 429 and Retry-After: the scanner's pool pauses it, and the next snapshot says so.
    w.devnet.setFaults({ script: [{ path: '*', kind: 'http_429', retry_after_s: 60, times: 20 }] });
    w.devnet.mine(1);
    w.clock.advance(60_000);
    await expect(worker.tick()).rejects.toThrow(/429/);
    w.devnet.setFaults({ script: [] });
    await status.writeHealth();
    const second = await store.get('health');
    expect(second!.at).toBe(w.clock.now());
    const paused = (second!.body as typeof body).nodes[0]!;
    expect(paused).toMatchObject({ paused: true, failures: 1 });
    expect(paused['pausedUntil']).toBeGreaterThan(0);
    expect(String(paused['lastError'])).toContain('429');

    // The daily summary: the same figures as its log line, written each time it is produced.
    const metrics = composition.container.get(TOKENS.Metrics);
    metrics.collectionFinished({ status: COLLECTION_STATUS.DONE, steps: [], cost: { ...NO_COST, bandwidthSun: 345_000n } } as unknown as CollectionTask);
    await runDailySummary(metrics, log, status);
    const summary = await store.get('daily-summary');
    const line = lines.find((l) => l.message === 'daily summary')!;
    expect(summary).toEqual({ kind: 'daily-summary', at: w.clock.now(), body: { ...line.fields, standingDiscrepancies: [] } });
    expect(summary!.body).toMatchObject({ collections: 1, costSun: '345000' });
  });
});
