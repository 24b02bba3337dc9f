/**
 * The collection executor end to end on the devnet through real tronweb: USDT via self-delegation, via the rental
 * desk, TRX — each reaching DONE with the balances moved exactly and one terminal event in the outbox.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { CollectionExecutor } from '../../core/application/worker/collection-executor.js';
import { COLLECTION_STATUS } from '../../core/domain/model/collection-task.js';
import { COMMAND_STATUS } from '../../core/domain/model/command.js';
import { RentalEnergyProvider, SelfDelegationEnergyProvider } from '../../adapters/tron/index.js';
import { buildWorkerWorld, TRX, type WorkerWorld } from './worker-test-fixture.js';
import { driveUntil } from './worker-drive.js';

let world: WorkerWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

function executorOf(w: WorkerWorld, energy: 'self' | 'rental' | 'none'): CollectionExecutor {
  return new CollectionExecutor({
    ...w.stores, chain: w.gateway, cipher: w.cipher, assets: w.assets,
    energy: {
      self: energy === 'self' ? new SelfDelegationEnergyProvider(w.gateway) : undefined,
      rental: energy === 'rental' ? new RentalEnergyProvider({ baseUrl: w.devnet.url, timeoutMs: 5_000 }) : undefined,
    },
  }, { pollMs: 3_000 });
}

async function finished(w: WorkerWorld, taskNo: string): Promise<boolean> {
  const task = await w.stores.tasks.get(taskNo);
  return task !== null && (task.status === COLLECTION_STATUS.DONE || task.status === COLLECTION_STATUS.FAILED);
}

async function eventsOf(w: WorkerWorld, taskNo: string) {
  return (await w.stores.outbox.listUndispatched(1_000)).filter((e) => e.payload['task_no'] === taskNo);
}

describe('collection on the devnet', () => {
  it('USDT via self-delegation: FUNDING_TRX → … → UNDELEGATING_ENERGY → RECOVER_TRX → DONE', async () => {
    world = await buildWorkerWorld({ solidifyLag: 3 });
    const w = world;
    const sub = await w.addSub();
    w.devnet.fundToken(sub, 12_345_678n);
    const task = await w.collect(sub, 'USDT');
    const stakeBefore = (await w.gateway.getResources(w.main.address)).energy.delegatedOutSun;
    const mainTrxBefore = await w.gateway.getTrxBalance(w.main.address);
    await driveUntil(w, [executorOf(w, 'self')], () => finished(w, task.taskNo));

    const done = (await w.stores.tasks.get(task.taskNo))!;
    expect({ status: done.status, error: done.lastError, path: done.energyPath }).toEqual({ status: COLLECTION_STATUS.DONE, error: null, path: 'self' });
    expect(done.steps.map((s) => s.status)).toEqual([
      COLLECTION_STATUS.FUNDING_TRX, COLLECTION_STATUS.ACQUIRING_ENERGY, COLLECTION_STATUS.WAIT_ENERGY_READY,
      COLLECTION_STATUS.COLLECTING, COLLECTION_STATUS.UNDELEGATING_ENERGY, COLLECTION_STATUS.RECOVER_TRX,
    ]);
    expect(done.sweptAmount).toBe(12_345_678n);
    expect(await w.gateway.getTokenBalance(w.main.address, w.devnet.usdtAddress)).toBe(12_345_678n);
    expect(await w.gateway.getTokenBalance(sub, w.devnet.usdtAddress)).toBe(0n);
    // The stake came back and the gas float went home, less what the chain burnt.
    expect((await w.gateway.getResources(w.main.address)).energy.delegatedOutSun).toBe(stakeBefore);
    expect((await w.gateway.getResources(sub)).energy.receivedSun).toBe(0n);
    expect(await w.gateway.getTrxBalance(sub)).toBeLessThan(TRX / 2n);
    expect(mainTrxBefore - (await w.gateway.getTrxBalance(w.main.address))).toBeLessThan(3n * TRX);
    const command = (await w.stores.commands.get(task.commandNo))!;
    expect(command.status).toBe(COMMAND_STATUS.SUCCESS);
    expect(await w.stores.commands.findActiveByAddress(sub)).toBeNull();
    const events = await eventsOf(w, task.taskNo);
    expect(events.map((e) => [e.eventType, e.payload['swept_amount'], e.payload['sweep_tx_hash']]))
      .toEqual([['collection.completed', 12_345_678, done.sweepTxHash]]);
  });
});
