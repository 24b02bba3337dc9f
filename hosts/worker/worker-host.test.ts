/**
 * The worker host: manual ticks drive a collection and a withdrawal to their ends on the devnet; the timer loop
 * runs on its own and stops cleanly; the composed worker wires every job from a configuration.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { COLLECTION_STATUS } from '../../core/domain/model/collection-task.js';
import { COMMAND_STATUS } from '../../core/domain/model/command.js';
import { SelfDelegationEnergyProvider } from '../../adapters/tron/index.js';
import { loadConfig } from '../composition/config.js';
import { composeContainer } from '../composition/container.js';
import { startComposedWorker } from './compose-worker.js';
import { startWorker, type RunningWorker, type WorkerDeps } from './index.js';
import { buildWorkerWorld, TRX, type WorkerWorld } from './worker-test-fixture.js';
import { BLOCK_MS } from './worker-drive.js';

let world: WorkerWorld | undefined;
let worker: RunningWorker | undefined;
afterEach(async () => {
  await worker?.stop();
  await world?.close();
  worker = undefined;
  world = undefined;
});

function depsOf(w: WorkerWorld): WorkerDeps {
  return { ...w.stores, chain: w.gateway, cipher: w.cipher, assets: w.assets, energy: { self: new SelfDelegationEnergyProvider(w.gateway) } };
}

describe('startWorker', { timeout: 60_000 }, () => {
  it('manual mode: nothing runs until tick(); ticks drive a USDT collection and a withdrawal to their ends', async () => {
    world = await buildWorkerWorld({ solidifyLag: 2 });
    const w = world;
    const sub = await w.addSub();
    const payer = await w.addSub();
    w.devnet.fundToken(sub, 3_000_000n);
    w.devnet.fund(payer, 10n * TRX);
    const task = await w.collect(sub, 'USDT');
    const withdrawal = await w.withdraw(payer, w.main.address, 'TRX', 2n * TRX);
    worker = startWorker(depsOf(w), { manual: true, collection: { confirmations: 'solidified' } });
    expect((await w.stores.tasks.get(task.taskNo))!.status).toBe(COLLECTION_STATUS.PENDING);
    const first = await worker.tick();
    expect(first.commands.map((o) => [o.outcome, o.status])).toEqual([['finished', COMMAND_STATUS.SUCCESS]]);
    expect(first.collections[0]).toMatchObject({ workflow: 'collection', key: task.taskNo, outcome: 'advanced', status: COLLECTION_STATUS.FUNDING_TRX });
    for (let round = 0; round < 200 && (await w.stores.tasks.get(task.taskNo))!.status !== COLLECTION_STATUS.DONE; round++) {
      w.devnet.mine(1);
      w.clock.advance(BLOCK_MS);
      await worker.tick();
    }
    expect((await w.stores.tasks.get(task.taskNo))!.status).toBe(COLLECTION_STATUS.DONE);
    expect((await w.stores.commands.get(withdrawal.commandNo))!.status).toBe(COMMAND_STATUS.SUCCESS);
    expect(await w.gateway.getTokenBalance(w.main.address, w.devnet.usdtAddress)).toBe(3_000_000n);
  });

  it('stop() gives back the collections it keeps between stages: the store shows them unleased, due as they were', async () => {
    world = await buildWorkerWorld({ solidifyLag: 1 });
    const w = world;
    const sub = await w.addSub();
    w.devnet.fundToken(sub, 3_000_000n);
    const task = await w.collect(sub, 'USDT');
    worker = startWorker(depsOf(w), { manual: true, collection: { confirmations: 1 } });
    await worker.tick();
    const kept = (await w.stores.tasks.get(task.taskNo))!;
    expect({ finished: kept.finishedAt, owned: kept.lease !== null }).toEqual({ finished: null, owned: true });
    await worker.stop();
    worker = undefined;
    const released = (await w.stores.tasks.get(task.taskNo))!;
    expect(released.lease).toBeNull();
    expect(released.nextRunAt).toBeLessThan(kept.lease!.expiresAt);
  });

  it('concurrent tick() calls share one pass (never overlap)', async () => {
    world = await buildWorkerWorld({ stakeTrx: 0n });
    const w = world;
    const payer = await w.addSub();
    w.devnet.fund(payer, 10n * TRX);
    await w.withdraw(payer, w.main.address, 'TRX', TRX);
    worker = startWorker(depsOf(w), { manual: true });
    const [a, b] = [worker.tick(), worker.tick()];
    expect(a).toBe(b);
    expect((await a).commands.map((o) => [o.outcome, o.status])).toEqual([['finished', COMMAND_STATUS.SUCCESS]]);
  });

  it('timer mode runs by itself and stop() waits for the pass in flight', async () => {
    world = await buildWorkerWorld({ stakeTrx: 0n });
    const w = world;
    const payer = await w.addSub();
    w.devnet.fund(payer, 10n * TRX);
    const command = await w.withdraw(payer, w.main.address, 'TRX', TRX);
    worker = startWorker(depsOf(w), { intervalMs: 20 });
    await vi.waitFor(async () => expect((await w.stores.commands.get(command.commandNo))!.status).toBe(COMMAND_STATUS.SUCCESS), { timeout: 5_000 });
    await worker.stop();
    worker = undefined;
  });
});

describe('startComposedWorker', { timeout: 60_000 }, () => {
  it('wires executors, webhook dispatcher and balance scanner from a memory + devnet configuration', async () => {
    world = await buildWorkerWorld({ stakeTrx: 0n });
    const w = world;
    const config = loadConfig({ CHAIN: 'devnet', TRON_FULL_HOST: w.devnet.url, USDT_CONTRACT: w.devnet.usdtAddress }, { mode: 'dev' });
    const composition = composeContainer(config, { clock: w.clock });
    try {
      worker = startComposedWorker(composition, { BALANCE_SCAN_LEVEL: 'head' }, { manual: true });
      const report = await worker.tick();
      expect(report).toEqual({ collections: [], commands: [], reclaims: [], autoCollect: [], payments: [] });
    } finally {
      await worker?.stop();
      worker = undefined;
      await composition.close();
    }
  });
});
