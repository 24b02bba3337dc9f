/**
 * A chain that moves under a collection, on the devnet through real tronweb: the energy a USDT transfer needs rises
 * after the delegation landed (the dynamic energy factor, or the network's energy weight), and a token contract that
 * refuses the transfer. WAIT_ENERGY_READY burns a small shortfall from the float and tops a large one up with one
 * more delegation (given back with the first); a reverting token fails the task before anything is spent.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { CollectionExecutor } from '../../core/application/worker/collection-executor.js';
import { COLLECTION_STATUS } from '../../core/domain/model/collection-task.js';
import { SelfDelegationEnergyProvider } from '../../adapters/tron/index.js';
import { buildWorkerWorld, TRX, type WorkerWorld } from './worker-test-fixture.js';
import { driveUntil } from './worker-drive.js';

let world: WorkerWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

function executorOf(w: WorkerWorld, marginBps = 500): CollectionExecutor {
  return new CollectionExecutor({
    ...w.stores, chain: w.gateway, cipher: w.cipher, assets: w.assets,
    energy: { self: new SelfDelegationEnergyProvider(w.gateway, { marginBps }) },
  }, { confirmations: 1, pollMs: 3_000 });
}

const taskOf = (w: WorkerWorld, taskNo: string) => w.stores.tasks.get(taskNo).then((t) => t!);

/** Runs the task until its delegation is in a block, then lets `change` move the chain before the energy check. */
/** A short maintenance interval (a chain parameter; 6 h on mainnet): the factor moves at a maintenance, as on the chain. */
const MAINTENANCE_MS = 30_000;

/** The USDT energy factor becomes `factor` at the next maintenance, which comes now (at most 10 blocks on). */
function atMaintenance(w: WorkerWorld, factor: number): void {
  w.devnet.setParams({ usdtEnergyFactor: factor });
  w.devnet.toMaintenance();
}

async function delegatedThen(w: WorkerWorld, executor: CollectionExecutor, taskNo: string, change: () => void): Promise<void> {
  await driveUntil(w, [executor], async () => (await taskOf(w, taskNo)).steps.some((s) => s.status === COLLECTION_STATUS.ACQUIRING_ENERGY && s.transaction !== null));
  change();
}

describe('energy that moves under a collection', { timeout: 60_000 }, () => {
  it('a few energy short after the delegation (dynamic factor up a little): the float burns the rest, DONE, no timeout', async () => {
    world = await buildWorkerWorld({ solidifyLag: 1, maintenanceIntervalMs: MAINTENANCE_MS });
    const w = world;
    const sub = await w.addSub();
    w.devnet.fundToken(sub, 5_000_000n);
    // A sub-address that holds some TRX of its own (the plan sends it nothing): enough to burn a small shortfall.
    w.devnet.fund(sub, TRX);
    const task = await w.collect(sub, 'USDT');
    // No margin: the delegation covers today's need exactly, and the need then rises by a few hundred energy.
    const executor = executorOf(w, 0);
    await delegatedThen(w, executor, task.taskNo, () => atMaintenance(w, 34_200));
    await driveUntil(w, [executor], async () => (await taskOf(w, task.taskNo)).finishedAt !== null);
    const done = await taskOf(w, task.taskNo);
    expect({ status: done.status, error: done.lastError }).toEqual({ status: COLLECTION_STATUS.DONE, error: null });
    // One delegation only: the shortfall was burnt, not topped up.
    expect(done.steps.filter((s) => s.status === COLLECTION_STATUS.WAIT_ENERGY_READY && s.transaction !== null)).toEqual([]);
    const sweep = await w.gateway.getTransaction(done.sweepTxHash!);
    expect(sweep).toMatchObject({ state: 'confirmed' });
    expect(sweep.state === 'confirmed' && sweep.feeSun).toBeGreaterThan(0n);
    expect((await w.gateway.getResources(sub)).energy.receivedSun).toBe(0n);
  });

  it('far short after the delegation (the factor jumps): one top-up delegation, DONE, both delegations given back', async () => {
    world = await buildWorkerWorld({ solidifyLag: 1, maintenanceIntervalMs: MAINTENANCE_MS });
    const w = world;
    const sub = await w.addSub();
    w.devnet.fundToken(sub, 5_000_000n);
    const task = await w.collect(sub, 'USDT');
    const delegatedBefore = (await w.gateway.getResources(w.main.address)).energy.delegatedOutSun;
    const executor = executorOf(w);
    await delegatedThen(w, executor, task.taskNo, () => atMaintenance(w, 50_000));
    await driveUntil(w, [executor], async () => (await taskOf(w, task.taskNo)).finishedAt !== null);
    const done = await taskOf(w, task.taskNo);
    expect({ status: done.status, error: done.lastError }).toEqual({ status: COLLECTION_STATUS.DONE, error: null });
    const topUps = done.steps.filter((s) => s.status === COLLECTION_STATUS.WAIT_ENERGY_READY && s.transaction !== null);
    expect(topUps).toHaveLength(1);
    const undelegated = done.steps.find((s) => s.status === COLLECTION_STATUS.UNDELEGATING_ENERGY)!.amount!;
    const delegated = done.steps.find((s) => s.status === COLLECTION_STATUS.ACQUIRING_ENERGY)!.amount! + topUps[0]!.amount!;
    expect(undelegated).toBe(delegated);
    expect((await w.gateway.getResources(sub)).energy.receivedSun).toBe(0n);
    expect((await w.gateway.getResources(w.main.address)).energy.delegatedOutSun).toBe(delegatedBefore);
  });

  it('the network energy weight grows after the delegation: the margin (or the tolerance) still gets the sweep DONE', async () => {
    world = await buildWorkerWorld({ solidifyLag: 1 });
    const w = world;
    const sub = await w.addSub();
    w.devnet.fundToken(sub, 5_000_000n);
    const task = await w.collect(sub, 'USDT');
    const executor = executorOf(w);
    await delegatedThen(w, executor, task.taskNo, () => w.devnet.setFaults({ energy_weight_drift_bps: 30 }));
    await driveUntil(w, [executor], async () => (await taskOf(w, task.taskNo)).finishedAt !== null);
    expect(await taskOf(w, task.taskNo)).toMatchObject({ status: COLLECTION_STATUS.DONE, errorCode: null });
  });

  for (const [name, refuse] of [
    ['a blacklisted sub-address', (w: WorkerWorld, sub: string) => w.devnet.setUsdtBlacklisted(sub)],
    ['a paused token', (w: WorkerWorld) => w.devnet.setUsdtPaused(true)],
  ] as const) {
    it(`${name}: FAILED BIZ-TRANSFER-WOULD-REVERT before anything is spent (no gas, no delegation, no reclaim)`, async () => {
      world = await buildWorkerWorld({ solidifyLag: 1 });
      const w = world;
      const sub = await w.addSub();
      w.devnet.fundToken(sub, 5_000_000n);
      refuse(w, sub);
      w.devnet.mine(1);
      const mainTrx = await w.gateway.getTrxBalance(w.main.address);
      const task = await w.collect(sub, 'USDT');
      await driveUntil(w, [executorOf(w)], async () => (await taskOf(w, task.taskNo)).finishedAt !== null);
      const failed = await taskOf(w, task.taskNo);
      expect({ status: failed.status, code: failed.errorCode, steps: failed.steps, reclaim: failed.reclaim })
        .toEqual({ status: COLLECTION_STATUS.FAILED, code: 'BIZ-TRANSFER-WOULD-REVERT', steps: [], reclaim: undefined });
      expect(await w.gateway.getTrxBalance(w.main.address)).toBe(mainTrx);
      expect(await w.gateway.getTrxBalance(sub)).toBe(0n);
      expect(await w.stores.commands.findActiveByAddress(sub)).toBeNull();
    });
  }
});
