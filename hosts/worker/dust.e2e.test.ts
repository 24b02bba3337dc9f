/**
 * The planner's side of the sweepable rule (issue #24 item 5, core/domain/sweepable-amount.ts) on the devnet: the
 * worker sweeps TRX only when that nets at least 0.1 TRX after its fees, the amount the API refuses below. The tasks
 * here are queued past the API's check (a cache that said more than the chain holds), as a stale snapshot would.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { CollectionExecutor } from '../../core/application/worker/collection-executor.js';
import { COLLECTION_STATUS } from '../../core/domain/model/collection-task.js';
import { MIN_TRX_SWEEP_SUN } from '../../core/domain/sweepable-amount.js';
import { buildWorkerWorld, type WorkerWorld } from './worker-test-fixture.js';
import { driveUntil } from './worker-drive.js';

let world: WorkerWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

/** The executor with its default options: its minRecoverSun is the one the API refuses below. */
const executorOf = (w: WorkerWorld): CollectionExecutor => new CollectionExecutor({
  ...w.stores, chain: w.gateway, cipher: w.cipher, assets: w.assets, energy: {},
}, { pollMs: 3_000 });

async function finished(w: WorkerWorld, taskNo: string): Promise<boolean> {
  const task = await w.stores.tasks.get(taskNo);
  return task !== null && (task.status === COLLECTION_STATUS.DONE || task.status === COLLECTION_STATUS.FAILED);
}

describe('the worker never sweeps TRX dust', { timeout: 60_000 }, () => {
  it('just under 0.1 TRX fails at PENDING with nothing sent; exactly 0.1 TRX is swept whole (free bandwidth, existing main)', async () => {
    world = await buildWorkerWorld({ stakeTrx: 0n });
    const w = world;
    const [dusty, enough] = [await w.addSub(), await w.addSub()];
    w.devnet.fund(dusty, Number(MIN_TRX_SWEEP_SUN - 1n));
    w.devnet.fund(enough, Number(MIN_TRX_SWEEP_SUN));
    const refused = await w.collect(dusty, 'TRX');
    const swept = await w.collect(enough, 'TRX');
    await driveUntil(w, [executorOf(w)], async () => (await finished(w, refused.taskNo)) && finished(w, swept.taskNo));

    const failed = (await w.stores.tasks.get(refused.taskNo))!;
    expect({ status: failed.status, error: failed.errorCode, steps: failed.steps }).toEqual({
      status: COLLECTION_STATUS.FAILED, error: 'BIZ-NOTHING-TO-COLLECT', steps: [],
    });
    expect(await w.gateway.getTrxBalance(dusty)).toBe(MIN_TRX_SWEEP_SUN - 1n);

    const done = (await w.stores.tasks.get(swept.taskNo))!;
    expect({ status: done.status, amount: done.sweptAmount }).toEqual({ status: COLLECTION_STATUS.DONE, amount: MIN_TRX_SWEEP_SUN });
    expect(await w.gateway.getTrxBalance(enough)).toBe(0n);
  });
});
