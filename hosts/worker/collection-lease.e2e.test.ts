/**
 * Leases and retries of the collection executor on the devnet: a leased task is left alone until the lease ends and
 * is then resumed by another worker; a worker whose lease was taken over mid-stage loses its next write and stops;
 * transient node failures come back after 1 s, 2 s, 4 s … of Clock time, never by sleeping.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { CollectionExecutor, type CollectionExecutorDeps } from '../../core/application/worker/collection-executor.js';
import { InfrastructureError } from '../../core/domain/errors.js';
import { COLLECTION_STATUS } from '../../core/domain/model/collection-task.js';
import type { ChainGateway } from '../../core/ports/chain-gateway.port.js';
import type { CollectionTaskRepository } from '../../core/ports/collection-task-repository.port.js';
import { buildWorkerWorld, TRX, type WorkerWorld } from './worker-test-fixture.js';
import { driveUntil } from './worker-drive.js';

let world: WorkerWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

function depsOf(w: WorkerWorld, overrides: Partial<CollectionExecutorDeps> = {}): CollectionExecutorDeps {
  return { ...w.stores, chain: w.gateway, cipher: w.cipher, assets: w.assets, energy: {}, ...overrides };
}

async function trxTask(w: WorkerWorld) {
  const sub = await w.addSub();
  w.devnet.fund(sub, 7n * TRX);
  return { sub, task: await w.collect(sub, 'TRX') };
}

describe('collection leases', { timeout: 60_000 }, () => {
  it('a leased task waits for the lease to end, then another worker resumes it to DONE', async () => {
    world = await buildWorkerWorld({ stakeTrx: 0n });
    const w = world;
    const { task } = await trxTask(w);
    expect((await w.stores.tasks.claimDue(w.clock.now(), 'crashed-worker', 30_000))!.taskNo).toBe(task.taskNo);
    const rescuer = new CollectionExecutor(depsOf(w), { owner: 'rescuer', confirmations: 1 });
    expect(await rescuer.runDue()).toEqual([]);
    w.clock.advance(29_999);
    expect(await rescuer.runDue()).toEqual([]);
    w.clock.advance(1);
    await driveUntil(w, [rescuer], async () => (await w.stores.tasks.get(task.taskNo))!.status === COLLECTION_STATUS.DONE);
    expect((await w.stores.tasks.get(task.taskNo))!.sweptAmount).toBe(7n * TRX);
  });

  it('a worker whose lease was taken over mid-stage loses its write, sends nothing more, and the task ends once', async () => {
    world = await buildWorkerWorld({ stakeTrx: 0n });
    const w = world;
    const { task } = await trxTask(w);
    const other = new CollectionExecutor(depsOf(w), { owner: 'other', leaseMs: 10_000, confirmations: 1 });
    let takenOver = false;
    // The slow worker's first write happens after its lease ran out and the other worker claimed the task.
    const slowTasks: CollectionTaskRepository = {
      ...w.stores.tasks,
      get: (no) => w.stores.tasks.get(no),
      findLatestByAddress: (a) => w.stores.tasks.findLatestByAddress(a),
      listByUser: (userId, filter, page) => w.stores.tasks.listByUser(userId, filter, page),
      claimDue: (now, owner, ms) => w.stores.tasks.claimDue(now, owner, ms),
      claimSeveralDue: (now, owner, ms, limit) => w.stores.tasks.claimSeveralDue(now, owner, ms, limit),
      claimReclaimDue: (now, owner, ms) => w.stores.tasks.claimReclaimDue(now, owner, ms),
      listFinishedSince: (status, since, limit) => w.stores.tasks.listFinishedSince(status, since, limit),
      countByStatus: () => w.stores.tasks.countByStatus(),
      update: async (t) => {
        if (!takenOver) {
          takenOver = true;
          w.clock.advance(10_000);
          expect((await other.runOnce())?.key).toBe(task.taskNo);
        }
        return w.stores.tasks.update(t);
      },
    };
    const slow = new CollectionExecutor(depsOf(w, { tasks: slowTasks }), { owner: 'slow', leaseMs: 10_000, confirmations: 1 });
    // PENDING → COLLECTING commits through the unit of work; the same stage's next write (the sweep's write-ahead
    // record) is the one that loses, so nothing is sent.
    expect(await slow.runOnce()).toMatchObject({ key: task.taskNo, outcome: 'lost-lease' });
    await driveUntil(w, [other, slow], async () => (await w.stores.tasks.get(task.taskNo))!.status === COLLECTION_STATUS.DONE);
    const done = (await w.stores.tasks.get(task.taskNo))!;
    expect(done.steps.filter((s) => s.transaction !== null)).toHaveLength(1);
    expect((await w.stores.outbox.listUndispatched(100)).filter((e) => e.payload['task_no'] === task.taskNo)).toHaveLength(1);
  });

  it('transient node failures retry with doubling backoff on the Clock, then the task completes', async () => {
    world = await buildWorkerWorld({ stakeTrx: 0n });
    const w = world;
    const { task } = await trxTask(w);
    let failures = 3;
    // The real gateway with one read failing transiently (its other methods reached through the prototype).
    const flaky = Object.create(w.gateway) as ChainGateway;
    flaky.getTrxBalance = async (address: string) => {
      if (failures > 0) {
        failures--;
        throw new InfrastructureError('CHAIN-NODE-UNAVAILABLE', 'node timed out');
      }
      return w.gateway.getTrxBalance(address);
    };
    const executor = new CollectionExecutor(depsOf(w, { chain: flaky }), { confirmations: 1, retryBaseMs: 1_000, retryMaxMs: 60_000 });
    const delays: number[] = [];
    for (let i = 0; i < 3; i++) {
      const before = w.clock.now();
      expect(await executor.runOnce()).toMatchObject({ outcome: 'retrying', status: COLLECTION_STATUS.PENDING });
      const next = (await w.stores.tasks.get(task.taskNo))!;
      expect(next.lease).toBeNull();
      delays.push(next.nextRunAt - before);
      expect(await executor.runOnce()).toBeNull();
      w.clock.set(next.nextRunAt);
    }
    expect(delays).toEqual([1_000, 2_000, 4_000]);
    await driveUntil(w, [executor], async () => (await w.stores.tasks.get(task.taskNo))!.status === COLLECTION_STATUS.DONE);
  });
});
