/**
 * The collection executor end to end on the devnet through real tronweb: USDT via self-delegation, via the rental
 * desk, TRX — each reaching DONE with the balances moved exactly and one terminal event in the outbox.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { CollectionExecutor } from '../../core/application/worker/collection-executor.js';
import { COLLECTION_STATUS } from '../../core/domain/model/collection-task.js';
import { COMMAND_STATUS } from '../../core/domain/model/command.js';
import type { EnergyProvider } from '../../core/ports/energy-provider.port.js';
import type { WorkflowOptions } from '../../core/application/worker/workflow-executor.js';
import { SelfDelegationEnergyProvider } from '../../adapters/tron/index.js';
import { devnetRentalMarket, devnetRentalProvider } from '../../contracts-tests/harness/tron-devnet.js';
import { buildWorkerWorld, TRX, type WorkerWorld } from './worker-test-fixture.js';
import { driveUntil } from './worker-drive.js';

let world: WorkerWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

function executorOf(
  w: WorkerWorld, energy: 'self' | 'rental' | 'none', options: WorkflowOptions = {}, rental?: EnergyProvider,
): CollectionExecutor {
  return new CollectionExecutor({
    ...w.stores, chain: w.gateway, cipher: w.cipher, assets: w.assets,
    energy: {
      self: energy === 'self' ? new SelfDelegationEnergyProvider(w.gateway) : undefined,
      rental: rental ?? (energy === 'rental' ? devnetRentalMarket(w.devnet) : undefined),
    },
  }, { pollMs: 3_000, ...options });
}

/** The task's end: status, code, the command's status, the lock, and the outbox events of the task. */
async function outcomeOf(w: WorkerWorld, taskNo: string, sub: string) {
  const task = (await w.stores.tasks.get(taskNo))!;
  return {
    status: task.status, errorCode: task.errorCode,
    command: (await w.stores.commands.get(task.commandNo))!.status,
    locked: (await w.stores.commands.findActiveByAddress(sub)) !== null,
    events: (await eventsOf(w, taskNo)).map((e) => [e.eventType, e.payload['swept_amount'], e.payload['error'] === null]),
  };
}

async function finished(w: WorkerWorld, taskNo: string): Promise<boolean> {
  const task = await w.stores.tasks.get(taskNo);
  return task !== null && (task.status === COLLECTION_STATUS.DONE || task.status === COLLECTION_STATUS.FAILED);
}

async function eventsOf(w: WorkerWorld, taskNo: string) {
  return (await w.stores.outbox.listUndispatched(1_000)).filter((e) => e.payload['task_no'] === taskNo);
}

describe('collection on the devnet', { timeout: 60_000 }, () => {
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
      COLLECTION_STATUS.COLLECTING, COLLECTION_STATUS.UNDELEGATING_ENERGY,
    ]);
    // Plan before spending: the new sub-address got 1 SUN (its activation; main paid the creation fee), its free
    // bandwidth paid the sweep, so RECOVER_TRX had nothing worth returning and passed through without a record.
    expect(done.steps[0]!.amount).toBe(1n);
    expect(done.plan).toMatchObject({ path: 'self', activate: true, fundSun: 1n });
    expect(done.sweptAmount).toBe(12_345_678n);
    expect(await w.gateway.getTokenBalance(w.main.address, w.devnet.usdtAddress)).toBe(12_345_678n);
    expect(await w.gateway.getTokenBalance(sub, w.devnet.usdtAddress)).toBe(0n);
    // The stake came back; nothing but the activation's 1 SUN was ever sent to the sub.
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

  it.each(['tronsave', 'itrx'] as const)('USDT via the rental desk (%s): no undelegation step, DONE, main receives the tokens', async (kind) => {
    world = await buildWorkerWorld({ stakeTrx: 0n });
    const w = world;
    const sub = await w.addSub();
    w.devnet.fundToken(sub, 4_000_000n);
    const task = await w.collect(sub, 'USDT');
    await driveUntil(w, [executorOf(w, 'rental', { confirmations: 1 }, devnetRentalProvider(w.devnet, kind))], () => finished(w, task.taskNo));
    const done = (await w.stores.tasks.get(task.taskNo))!;
    expect({ path: done.energyPath, steps: done.steps.map((s) => s.status) }).toEqual({
      path: 'rental',
      steps: [COLLECTION_STATUS.FUNDING_TRX, COLLECTION_STATUS.ACQUIRING_ENERGY, COLLECTION_STATUS.WAIT_ENERGY_READY,
        COLLECTION_STATUS.COLLECTING],
    });
    expect(done.steps[1]!.orderRef).not.toBeNull();
    expect(await outcomeOf(w, task.taskNo, sub)).toEqual({
      status: COLLECTION_STATUS.DONE, errorCode: null, command: COMMAND_STATUS.SUCCESS, locked: false,
      events: [['collection.completed', 4_000_000, true]],
    });
    expect(await w.gateway.getTokenBalance(w.main.address, w.devnet.usdtAddress)).toBe(4_000_000n);
  });

  it('TRX: PENDING → COLLECTING → DONE, the sweepable balance moves to main in one transfer', async () => {
    world = await buildWorkerWorld({ stakeTrx: 0n });
    const w = world;
    const sub = await w.addSub();
    w.devnet.fund(sub, 25n * TRX);
    const mainBefore = await w.gateway.getTrxBalance(w.main.address);
    const task = await w.collect(sub, 'TRX');
    await driveUntil(w, [executorOf(w, 'none')], () => finished(w, task.taskNo));
    const done = (await w.stores.tasks.get(task.taskNo))!;
    expect(done.steps.map((s) => s.status)).toEqual([COLLECTION_STATUS.COLLECTING]);
    // A fresh account has its free bandwidth, so the whole balance is sweepable.
    expect(done.sweptAmount).toBe(25n * TRX);
    expect(await w.gateway.getTrxBalance(w.main.address)).toBe(mainBefore + 25n * TRX);
    expect(await outcomeOf(w, task.taskNo, sub)).toEqual({
      status: COLLECTION_STATUS.DONE, errorCode: null, command: COMMAND_STATUS.SUCCESS, locked: false,
      events: [['collection.completed', 25_000_000, true]],
    });
  });

  it('TRX to a main address that does not exist on chain yet: the creation fee (1 TRX + 0.1 TRX) stays back, DONE', async () => {
    world = await buildWorkerWorld({ stakeTrx: 0n, fundMain: false });
    const w = world;
    expect(await w.gateway.accountExists(w.main.address)).toBe(false);
    const sub = await w.addSub();
    w.devnet.fund(sub, 25n * TRX);
    const task = await w.collect(sub, 'TRX');
    await driveUntil(w, [executorOf(w, 'none')], () => finished(w, task.taskNo));
    const done = (await w.stores.tasks.get(task.taskNo))!;
    expect([done.status, done.errorCode]).toEqual([COLLECTION_STATUS.DONE, null]);
    expect(done.sweptAmount).toBe(25n * TRX - 1_100_000n);
    expect(await w.gateway.getTrxBalance(w.main.address)).toBe(25n * TRX - 1_100_000n);
    expect(await w.gateway.getTrxBalance(sub)).toBe(0n);
  });

  it('USDT by burning TRX when no provider can: FUNDING_TRX sends exactly the burn, no energy step sends, nothing to recover', async () => {
    world = await buildWorkerWorld({ stakeTrx: 0n });
    const w = world;
    const sub = await w.addSub();
    w.devnet.fundToken(sub, 1_500_000n);
    const task = await w.collect(sub, 'USDT');
    await driveUntil(w, [executorOf(w, 'none', { burnEnabled: true, confirmations: 1 })], () => finished(w, task.taskNo));
    const done = (await w.stores.tasks.get(task.taskNo))!;
    expect({ path: done.energyPath, sent: done.steps.filter((s) => s.transaction !== null).map((s) => s.status) }).toEqual({
      path: 'burn', sent: [COLLECTION_STATUS.FUNDING_TRX, COLLECTION_STATUS.COLLECTING],
    });
    expect(await outcomeOf(w, task.taskNo, sub)).toMatchObject({ status: COLLECTION_STATUS.DONE, command: COMMAND_STATUS.SUCCESS, locked: false });
    expect(await w.gateway.getTokenBalance(w.main.address, w.devnet.usdtAddress)).toBe(1_500_000n);
  });

  it('no energy source (no stake, no rental, no burning): FAILED BIZ-ENERGY-UNAVAILABLE, the float still on the sub', async () => {
    world = await buildWorkerWorld({ stakeTrx: 0n });
    const w = world;
    const sub = await w.addSub();
    w.devnet.fundToken(sub, 1_000_000n);
    const task = await w.collect(sub, 'USDT');
    await driveUntil(w, [executorOf(w, 'self', { confirmations: 1 })], () => finished(w, task.taskNo));
    expect(await outcomeOf(w, task.taskNo, sub)).toEqual({
      status: COLLECTION_STATUS.FAILED, errorCode: 'BIZ-ENERGY-UNAVAILABLE', command: COMMAND_STATUS.FAILED, locked: false,
      events: [['collection.failed', null, false]],
    });
    expect(await w.gateway.getTokenBalance(sub, w.devnet.usdtAddress)).toBe(1_000_000n);
  });

  it('energy that never arrives: WAIT_ENERGY_READY gives up after 60 s of Clock time with BIZ-ENERGY-TIMEOUT', async () => {
    world = await buildWorkerWorld({ stakeTrx: 0n });
    const w = world;
    const sub = await w.addSub();
    w.devnet.fundToken(sub, 1_000_000n);
    // A provider that reports the order delivered while nothing reaches the chain (a lying third party).
    const liar: EnergyProvider = {
      name: 'rental', canProvide: async () => true,
      acquire: async () => ({ kind: 'order', orderId: 'order-1' }), orderStatus: async () => 'delivered',
    };
    const task = await w.collect(sub, 'USDT');
    const executor = executorOf(w, 'none', { confirmations: 1 }, liar);
    await driveUntil(w, [executor], async () => (await w.stores.tasks.get(task.taskNo))!.status === COLLECTION_STATUS.WAIT_ENERGY_READY);
    const waitingSince = w.clock.now();
    await driveUntil(w, [executor], () => finished(w, task.taskNo));
    expect(w.clock.now() - waitingSince).toBeGreaterThanOrEqual(60_000);
    expect(w.clock.now() - waitingSince).toBeLessThanOrEqual(66_000);
    expect(await outcomeOf(w, task.taskNo, sub)).toMatchObject({ status: COLLECTION_STATUS.FAILED, errorCode: 'BIZ-ENERGY-TIMEOUT', locked: false });
  });

  it('nothing to collect: FAILED BIZ-NOTHING-TO-COLLECT at the start, nothing sent', async () => {
    world = await buildWorkerWorld({ stakeTrx: 0n });
    const w = world;
    const sub = await w.addSub();
    const task = await w.collect(sub, 'USDT');
    await driveUntil(w, [executorOf(w, 'self')], () => finished(w, task.taskNo));
    expect(await outcomeOf(w, task.taskNo, sub)).toEqual({
      status: COLLECTION_STATUS.FAILED, errorCode: 'BIZ-NOTHING-TO-COLLECT', command: COMMAND_STATUS.FAILED, locked: false,
      events: [['collection.failed', null, false]],
    });
    expect((await w.stores.tasks.get(task.taskNo))!.steps).toEqual([]);
  });
});
