/**
 * Tasks kept between stages (decision 160), on the devnet through real tronweb: a runner whose stage ends waiting
 * for the chain keeps the task's lease and resumes it from memory, without a claim; the store shows it leased to that
 * runner and due when the lease ends. A runner that dies hands its tasks on when their leases end; one that stops
 * releases them at once; one that comes back late renews the lease by a versioned write that loses to anyone who
 * claimed the task meanwhile.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { CollectionExecutor } from '../../core/application/worker/collection-executor.js';
import { CommandExecutor } from '../../core/application/worker/command-executor.js';
import type { WorkflowOptions } from '../../core/application/worker/workflow-executor.js';
import { COLLECTION_STATUS, type CollectionTask } from '../../core/domain/model/collection-task.js';
import { COMMAND_STATUS } from '../../core/domain/model/command.js';
import type { CollectionTaskRepository } from '../../core/ports/collection-task-repository.port.js';
import { SelfDelegationEnergyProvider } from '../../adapters/tron/index.js';
import { buildWorkerWorld, TRX, type WorkerWorld } from './worker-test-fixture.js';

const LEASE_MS = 20_000;
const POLL_MS = 3_000;

let world: WorkerWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

/**
 * The task repository noting its claims: `claimed`, the owner of each task a claim found; `roundTrips`, how many
 * tasks each claim (one or several at once) found.
 */
function countingClaims(tasks: CollectionTaskRepository, claimed: string[], roundTrips: number[] = []): CollectionTaskRepository {
  const noted = (owner: string, found: readonly CollectionTask[]) => {
    roundTrips.push(found.length);
    for (let i = 0; i < found.length; i++) claimed.push(owner);
  };
  return new Proxy(tasks, {
    get(target, name, receiver) {
      if (name === 'claimDue') return async (now: number, owner: string, leaseMs: number) => {
        const task = await target.claimDue(now, owner, leaseMs);
        noted(owner, task === null ? [] : [task]);
        return task;
      };
      if (name === 'claimSeveralDue') return async (now: number, owner: string, leaseMs: number, limit: number) => {
        const found = await target.claimSeveralDue(now, owner, leaseMs, limit);
        noted(owner, found);
        return found;
      };
      const value = Reflect.get(target, name, receiver) as unknown;
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

function executorOf(w: WorkerWorld, owner: string, tasks: CollectionTaskRepository = w.stores.tasks, options: WorkflowOptions = {}): CollectionExecutor {
  return new CollectionExecutor({
    ...w.stores, tasks, chain: w.gateway, cipher: w.cipher, assets: w.assets, energy: { self: new SelfDelegationEnergyProvider(w.gateway) },
  }, { owner, confirmations: 1, pollMs: POLL_MS, leaseMs: LEASE_MS, ...options });
}

/** A fresh world with a sub-address holding 4 USDT and its collection requested. */
async function usdtSweep(): Promise<{ w: WorkerWorld; sub: string; task: CollectionTask }> {
  world = await buildWorkerWorld({ solidifyLag: 1, seed: 'kept-tasks' });
  const sub = await world.addSub();
  world.devnet.fundToken(sub, 4_000_000n);
  return { w: world, sub, task: await world.collect(sub, 'USDT') };
}

/** One block: mined, and the clock moved past a poll. */
function block(w: WorkerWorld): void {
  w.devnet.mine(1);
  w.clock.advance(POLL_MS);
}

const stored = async (w: WorkerWorld, task: CollectionTask): Promise<CollectionTask> => (await w.stores.tasks.get(task.taskNo))!;
const txidsOf = (task: CollectionTask): string[] => task.steps.flatMap((s) => (s.transaction === null ? [] : [s.transaction.txid]));

/** Ends with the sweep done: every transaction once on chain, the token moved once. */
async function expectSweptOnce(w: WorkerWorld, sub: string, task: CollectionTask): Promise<void> {
  const done = await stored(w, task);
  expect({ status: done.status, error: done.lastError, lease: done.lease }).toEqual({ status: COLLECTION_STATUS.DONE, error: null, lease: null });
  expect(new Set(txidsOf(done)).size).toBe(txidsOf(done).length);
  for (const txid of txidsOf(done)) expect(w.devnet.chain.tx(txid)).toBeDefined();
  expect(await w.gateway.getTokenBalance(sub, w.devnet.usdtAddress)).toBe(0n);
  expect(await w.gateway.getTokenBalance(w.main.address, w.devnet.usdtAddress)).toBe(4_000_000n);
}

/** Runs `executor` a block at a time until the task is finished (at most `blocks` blocks). */
async function runToEnd(w: WorkerWorld, executor: CollectionExecutor, task: CollectionTask, blocks = 30): Promise<void> {
  for (let i = 0; i < blocks && (await stored(w, task)).finishedAt === null; i++) {
    await executor.runDue();
    block(w);
  }
}

describe('tasks kept between stages', { timeout: 60_000 }, () => {
  it('a runner claims a sweep once: its later stages resume it from memory, and the store shows it leased to the runner, due when the lease ends', async () => {
    const { w, sub, task } = await usdtSweep();
    const claimed: string[] = [];
    const executor = executorOf(w, 'a', countingClaims(w.stores.tasks, claimed));
    let stages = 0;
    for (let i = 0; i < 30 && (await stored(w, task)).finishedAt === null; i++) {
      stages += (await executor.runDue()).length;
      const between = await stored(w, task);
      if (between.finishedAt === null && between.status !== COLLECTION_STATUS.PENDING) {
        // Kept: leased to the runner, due for anyone else only when that lease ends.
        expect(between.lease?.owner).toBe('a');
        expect(between.nextRunAt).toBe(between.lease!.expiresAt);
        expect(executor.keptCount()).toBe(1);
      }
      block(w);
    }
    await expectSweptOnce(w, sub, task);
    expect(stages).toBeGreaterThanOrEqual(4);
    expect(claimed).toEqual(['a']);
    expect(executor.keptCount()).toBe(0);
  });

  it('with keepMax 0 every stage claims the task from the store', async () => {
    const { w, sub, task } = await usdtSweep();
    const claimed: string[] = [];
    const executor = executorOf(w, 'a', countingClaims(w.stores.tasks, claimed), { keepMax: 0 });
    let stages = 0;
    for (let i = 0; i < 30 && (await stored(w, task)).finishedAt === null; i++) {
      stages += (await executor.runDue()).length;
      block(w);
    }
    await expectSweptOnce(w, sub, task);
    expect(claimed).toHaveLength(stages);
    expect(executor.keptCount()).toBe(0);
  });

  it('a withdrawal waiting for its block is released, never kept: others may act on it meanwhile (its store does not keep)', async () => {
    world = await buildWorkerWorld({ stakeTrx: 0n, seed: 'kept-tasks' });
    const w = world;
    const from = await w.addSub();
    const to = (await w.gateway.createAccount()).address;
    w.devnet.fund(from, 20n * TRX);
    w.devnet.fund(to, 1n * TRX);
    const executor = new CommandExecutor({ ...w.stores, chain: w.gateway, cipher: w.cipher, assets: w.assets },
      { owner: 'a', completeOn: 1, pollMs: POLL_MS, leaseMs: LEASE_MS });
    const command = await w.withdraw(from, to, 'TRX', 5n * TRX);
    let waited = 0;
    for (let i = 0; i < 10; i++) {
      await executor.runDue();
      const between = (await w.stores.commands.get(command.commandNo))!;
      if (between.status === COMMAND_STATUS.SUCCESS) break;
      if (between.status === COMMAND_STATUS.RUNNING && between.transaction !== null) {
        waited++;
        expect({ lease: between.lease, kept: executor.keptCount() }).toEqual({ lease: null, kept: 0 });
      }
      block(w);
    }
    expect(waited).toBeGreaterThan(0);
    expect((await w.stores.commands.get(command.commandNo))!.status).toBe(COMMAND_STATUS.SUCCESS);
  });

  it('a runner that dies keeping a task: another takes it only when the lease ends, and finishes the sweep with nothing sent twice', async () => {
    const { w, sub, task } = await usdtSweep();
    const dead = executorOf(w, 'dead');
    // Stages until a transaction is out and the task is kept; then the process is gone (its memory with it).
    for (let i = 0; i < 5 && txidsOf(await stored(w, task)).length === 0; i++) {
      await dead.runDue();
      block(w);
    }
    const kept = await stored(w, task);
    expect(txidsOf(kept).length).toBeGreaterThan(0);
    expect(kept.lease?.owner).toBe('dead');
    const other = executorOf(w, 'other');
    // Due for the dead runner, not for anyone else yet.
    expect(await other.runDue()).toEqual([]);
    w.clock.set(kept.lease!.expiresAt);
    expect((await other.runDue()).map((r) => r.key)).toEqual([task.taskNo]);
    await runToEnd(w, other, task);
    await expectSweptOnce(w, sub, task);
  });

  it('a stopping runner releases what it keeps: another takes it when it falls due, not a lease later', async () => {
    const { w, sub, task } = await usdtSweep();
    const stopping = executorOf(w, 'stopping');
    await stopping.runDue();
    await stopping.runDue();
    expect(stopping.keptCount()).toBe(1);
    await stopping.releaseKept();
    expect(stopping.keptCount()).toBe(0);
    const released = await stored(w, task);
    expect(released.lease).toBeNull();
    expect(released.nextRunAt).toBeLessThanOrEqual(w.clock.now() + POLL_MS);
    block(w);
    const other = executorOf(w, 'other');
    expect((await other.runDue()).map((r) => r.key)).toEqual([task.taskNo]);
    await runToEnd(w, other, task);
    await expectSweptOnce(w, sub, task);
    // The stopped runner never runs it again.
    expect(await stopping.runDue()).toEqual([]);
  });

  it('a runner back late renews the lease with a versioned write; after another runner claimed the task, it lets it go unrun', async () => {
    const { w, sub, task } = await usdtSweep();
    const late = executorOf(w, 'late');
    await late.runDue();
    await late.runDue();
    const kept = await stored(w, task);
    expect(kept.lease?.owner).toBe('late');
    // Past half the lease: the resume renews it (the store shows the new lease) before the stage runs.
    w.devnet.mine(1);
    w.clock.set(kept.lease!.expiresAt - LEASE_MS / 2 + 1);
    const renewedAt = w.clock.now();
    expect((await late.runDue()).map((r) => r.key)).toEqual([task.taskNo]);
    const renewed = await stored(w, task);
    expect(renewed.version).toBeGreaterThan(kept.version + 1);
    expect(renewed.lease?.owner).toBe('late');
    expect(renewed.lease!.expiresAt).toBeGreaterThanOrEqual(renewedAt + LEASE_MS);
    // Now it comes back only after its lease ran out and another runner claimed the task and ran a stage of it.
    const again = await stored(w, task);
    w.devnet.mine(1);
    w.clock.set(again.lease!.expiresAt);
    const other = executorOf(w, 'other');
    expect((await other.runDue()).map((r) => r.key)).toEqual([task.taskNo]);
    expect(await late.runDue()).toEqual([]);
    expect(late.keptCount()).toBe(0);
    block(w);
    await runToEnd(w, other, task);
    await expectSweptOnce(w, sub, task);
  });

  it('a task due in the store goes before a kept one: a sweep started later is not held back by the stages of earlier ones', async () => {
    const { w, task: first } = await usdtSweep();
    const executor = executorOf(w, 'a');
    expect((await executor.runDue()).map((r) => r.key)).toEqual([first.taskNo]);
    expect(executor.keptCount()).toBe(1);
    const sub = await w.addSub();
    w.devnet.fundToken(sub, 1_000_000n);
    const second = await w.collect(sub, 'USDT');
    block(w);
    // Both are due: the new one from the store first, then (the store found dry) the kept one without a claim.
    expect((await executor.runOnce())?.key).toBe(second.taskNo);
    expect((await executor.runDue()).map((r) => r.key)).toEqual([first.taskNo]);
  });

  it('a runner with several lanes claims new sweeps for all of them in one round trip (decision 163)', async () => {
    world = await buildWorkerWorld({ solidifyLag: 1, seed: 'kept-tasks-batch' });
    const w = world;
    const tasks: CollectionTask[] = [];
    for (let i = 0; i < 5; i++) {
      const sub = await w.addSub();
      w.devnet.fundToken(sub, 1_000_000n + BigInt(i));
      tasks.push(await w.collect(sub, 'USDT'));
    }
    const roundTrips: number[] = [];
    const counted = countingClaims(w.stores.tasks, [], roundTrips);
    const executor = executorOf(w, 'a', counted, { concurrency: 4 });
    const first = await executor.runDue();
    expect(first.map((r) => r.key).sort()).toEqual(tasks.map((t) => t.taskNo).sort());
    // 4 for the 4 lanes, then the fifth, then none: three round trips, not one per task and one more.
    expect(roundTrips).toEqual([4, 1, 0]);
    for (const task of tasks) expect((await stored(w, task)).lease?.owner).toBe('a');
  });
});
