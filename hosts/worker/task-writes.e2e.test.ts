/**
 * A step's completion rides on the stage's next write (decision 157), on the devnet through real tronweb: a sweep
 * writes its task only to store a transaction before it is sent, to release it, or to start or end it; a crash
 * between a completion and that write leaves the step open in the store, and the next stage completes it again from
 * the chain without sending anything twice.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { CollectionExecutor } from '../../core/application/worker/collection-executor.js';
import { COLLECTION_STATUS, type CollectionTask } from '../../core/domain/model/collection-task.js';
import type { ChainGateway } from '../../core/ports/chain-gateway.port.js';
import type { CollectionTaskRepository } from '../../core/ports/collection-task-repository.port.js';
import type { EnergyProvider } from '../../core/ports/energy-provider.port.js';
import { SelfDelegationEnergyProvider } from '../../adapters/tron/index.js';
import { buildWorkerWorld, type WorkerWorld, type WorkerWorldOptions } from './worker-test-fixture.js';
import { devnetRentalProvider } from '../../contracts-tests/harness/tron-devnet.js';
import { driveUntil } from './worker-drive.js';

let world: WorkerWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

function executorOf(w: WorkerWorld, chain: ChainGateway, tasks: CollectionTaskRepository, energy?: { rental: EnergyProvider }): CollectionExecutor {
  return new CollectionExecutor({
    ...w.stores, tasks, chain, cipher: w.cipher, assets: w.assets, energy: energy ?? { self: new SelfDelegationEnergyProvider(chain) },
  }, { confirmations: 1, pollMs: 3_000 });
}

/** The task repository with every optimistic update (not the claims, nor the start's and end's units of work) kept. */
function recordingTasks(tasks: CollectionTaskRepository, updates: CollectionTask[]): CollectionTaskRepository {
  return new Proxy(tasks, {
    get(target, name, receiver) {
      if (name === 'update') return async (task: CollectionTask) => {
        await target.update(task);
        updates.push(task);
      };
      const value = Reflect.get(target, name, receiver) as unknown;
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/** A fresh world with a sub-address holding 4 USDT and its collection requested. */
async function usdtSweep(options: WorkerWorldOptions = {}): Promise<{ w: WorkerWorld; sub: string; task: CollectionTask }> {
  world = await buildWorkerWorld({ solidifyLag: 1, ...options });
  const sub = await world.addSub();
  world.devnet.fundToken(sub, 4_000_000n);
  return { w: world, sub, task: await world.collect(sub, 'USDT') };
}

/**
 * Every update stores a new transaction (its write-ahead record) or ends the stage, releasing the task or keeping it
 * for the runner (decision 160: due in the store when the lease ends): none is a save a stage could have left to its
 * next write.
 */
function expectEachUpdateSendsOrReleases(start: CollectionTask, updates: readonly CollectionTask[]): void {
  let before = start;
  for (const update of updates) {
    const added = txidsOf(update).filter((txid) => !txidsOf(before).includes(txid));
    const released = update.lease === null || update.lease.expiresAt === update.nextRunAt;
    expect({ status: update.status, released, added: added.length > 0 })
      .not.toMatchObject({ released: false, added: false });
    before = update;
  }
}

const txidsOf = (task: CollectionTask): string[] => task.steps.flatMap((s) => (s.transaction === null ? [] : [s.transaction.txid]));

describe('task writes of a sweep', { timeout: 60_000 }, () => {
  it('every update of a USDT sweep stores a new transaction or releases the task: none only saves a completion', async () => {
    const { w, sub, task } = await usdtSweep();
    const updates: CollectionTask[] = [];
    await driveUntil(w, [executorOf(w, w.gateway, recordingTasks(w.stores.tasks, updates))],
      async () => (await w.stores.tasks.get(task.taskNo))!.finishedAt !== null);
    const done = (await w.stores.tasks.get(task.taskNo))!;
    expect({ status: done.status, error: done.lastError }).toEqual({ status: COLLECTION_STATUS.DONE, error: null });
    expectEachUpdateSendsOrReleases(task, updates);
    // Each transaction the sweep sent was written once before it went out (an update each): no update beside them.
    expect(updates.length).toBe(txidsOf(done).length);
  });

  it('a rental sweep: the order placed and the release of the task that waits for its energy are one update', async () => {
    const { w, task } = await usdtSweep({ stakeTrx: 0n, seed: 'task-writes-rental' });
    const updates: CollectionTask[] = [];
    await driveUntil(w, [executorOf(w, w.gateway, recordingTasks(w.stores.tasks, updates), { rental: devnetRentalProvider(w.devnet, 'tronsave') })],
      async () => (await w.stores.tasks.get(task.taskNo))!.finishedAt !== null);
    const done = (await w.stores.tasks.get(task.taskNo))!;
    expect({ status: done.status, error: done.lastError, path: done.energyPath }).toEqual({ status: COLLECTION_STATUS.DONE, error: null, path: 'rental' });
    expect(done.steps.some((s) => s.orderRef !== null)).toBe(true);
    expectEachUpdateSendsOrReleases(task, updates);
  });

  it('a crash between a completion and its write: the store still shows the step open; the next stage completes it, nothing sent twice', async () => {
    const { w, sub, task } = await usdtSweep();
    const updates: CollectionTask[] = [];
    const tasks = recordingTasks(w.stores.tasks, updates);
    // The second transaction is signed in the stage that completed the first one's step: the process dies there.
    let prepares = 0;
    let crashedAt: CollectionTask | null = null;
    const chain = new Proxy(w.gateway, {
      get(target, name, receiver) {
        const value = Reflect.get(target, name, receiver) as unknown;
        if (typeof value !== 'function') return value;
        if (name !== 'prepare') return (value as (...args: unknown[]) => unknown).bind(target);
        return async (...args: unknown[]) => {
          if (++prepares === 2) {
            crashedAt = await w.stores.tasks.get(task.taskNo);
            throw new Error('injected crash');
          }
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
    const crashes: unknown[] = [];
    await driveUntil(w, [executorOf(w, chain, tasks)], async () => (await w.stores.tasks.get(task.taskNo))!.finishedAt !== null,
      { onError: (error) => crashes.push(error) });
    expect(crashes).toHaveLength(1);
    // At the crash the first step's transaction had landed and its step was complete in memory only.
    const first = updates[0]!;
    const firstTxid = txidsOf(first)[0]!;
    expect(w.devnet.chain.tx(firstTxid)).toBeDefined();
    expect(crashedAt).not.toBeNull();
    expect(crashedAt!.status).toBe(first.status);
    expect(crashedAt!.steps.find((s) => s.transaction?.txid === firstTxid)!.completedAt).toBeNull();
    const done = (await w.stores.tasks.get(task.taskNo))!;
    expect({ status: done.status, error: done.lastError }).toEqual({ status: COLLECTION_STATUS.DONE, error: null });
    // One transaction per recorded step, each on chain once, and the token moved once.
    expect(new Set(txidsOf(done)).size).toBe(txidsOf(done).length);
    for (const txid of txidsOf(done)) expect(w.devnet.chain.tx(txid)).toBeDefined();
    expect(await w.gateway.getTokenBalance(sub, w.devnet.usdtAddress)).toBe(0n);
    expect(await w.gateway.getTokenBalance(w.main.address, w.devnet.usdtAddress)).toBe(4_000_000n);
  });
});
