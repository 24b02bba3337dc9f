/**
 * The post-failure reclaim on the devnet: a self-delegation task that times out waiting for energy ends FAILED
 * (status, error and event untouched afterwards) and the reclaimer gives the delegated stake and the TRX float back
 * to the main address, once each even under crashes at every boundary; a task that failed after funding on any other
 * path (a rental that never delivers, no energy source) gets its TRX float back with nothing undelegated; a task that
 * failed before funding has nothing to reclaim; a locked delegation is retried until its lock period ends.
 */
import { runs } from '../../contracts-tests/support/depth.js';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { CollectionExecutor } from '../../core/application/worker/collection-executor.js';
import { ReclaimExecutor, type ReclaimExecutorDeps } from '../../core/application/worker/reclaim-executor.js';
import { ChainError } from '../../core/domain/errors.js';
import { COLLECTION_STATUS, type CollectionTask } from '../../core/domain/model/collection-task.js';
import type { ChainGateway } from '../../core/ports/chain-gateway.port.js';
import type { EnergyProvider } from '../../core/ports/energy-provider.port.js';
import { SelfDelegationEnergyProvider } from '../../adapters/tron/index.js';
import { devnetRentalMarket } from '../../contracts-tests/harness/tron-devnet.js';
import { FaultPlan, faultyGateway, faultyTasks, InjectedCrash, type FaultKind, type SentTransaction } from './fault-injection.js';
import { buildWorkerWorld, TRX, type WorkerWorld } from './worker-test-fixture.js';
import { driveUntil } from './worker-drive.js';
import { startWorker } from './index.js';

let world: WorkerWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

/** Self-delegation of half the energy asked for: the delegation lands, the energy never suffices. */
function halfDelegation(chain: ChainGateway, lockBlocks = 0): EnergyProvider {
  const real = new SelfDelegationEnergyProvider(chain, { lockBlocks });
  return {
    name: 'self', canProvide: (r, m) => real.canProvide(r, m), orderStatus: (o) => real.orderStatus(o),
    acquire: (r, m) => real.acquire({ ...r, energy: Math.max(1, Math.floor(r.energy / 2)) }, m),
  };
}

/** The gateway, except that the node refuses every TRC20 sweep for good (a permanent broadcast error). */
function refusingSweeps(inner: ChainGateway): ChainGateway {
  const sweeps = new Set<string>();
  return new Proxy(inner, {
    get(target, prop) {
      if (prop === 'prepare') {
        return async (...args: Parameters<ChainGateway['prepare']>) => {
          const tx = await target.prepare(...args);
          if (args[1].kind === 'transfer-trc20') sweeps.add(tx.txid);
          return tx;
        };
      }
      if (prop === 'broadcast') {
        return async (tx: Parameters<ChainGateway['broadcast']>[0]) => {
          // As the gateway reports a node's refusal of the operation itself (java-tron's CONTRACT_VALIDATE_ERROR).
          if (sweeps.has(tx.txid)) {
            throw new ChainError('CHAIN-BROADCAST-FAILED', 'node refused the sweep (injected)', { transient: false, nodeCode: 'CONTRACT_VALIDATE_ERROR' });
          }
          return target.broadcast(tx);
        };
      }
      const value: unknown = Reflect.get(target, prop);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

function collectorOf(w: WorkerWorld, self: EnergyProvider | undefined, rental?: EnergyProvider): CollectionExecutor {
  return new CollectionExecutor(
    { ...w.stores, chain: w.gateway, cipher: w.cipher, assets: w.assets, energy: { self, rental } },
    { confirmations: 1, pollMs: 3_000, energyTimeoutMs: 9_000 },
  );
}

function reclaimerOf(w: WorkerWorld, deps: Partial<ReclaimExecutorDeps> = {}, owner = 'reclaimer'): ReclaimExecutor {
  return new ReclaimExecutor(
    { ...w.stores, chain: w.gateway, cipher: w.cipher, assets: w.assets, energy: {}, ...deps },
    { owner, confirmations: 1, pollMs: 3_000, leaseMs: 9_000, retryBaseMs: 3_000, retryMaxMs: 12_000 },
  );
}

const ended = (w: WorkerWorld, taskNo: string) => async (): Promise<boolean> => (await w.stores.tasks.get(taskNo))!.finishedAt !== null;
const reclaimed = (w: WorkerWorld, taskNo: string) => async (): Promise<boolean> => (await w.stores.tasks.get(taskNo))!.reclaim?.status === 'done';

/** What the failure wrote and must stay: status, error, end time, the collection's steps. */
function failureOf(task: CollectionTask) {
  return { status: task.status, errorCode: task.errorCode, lastError: task.lastError, finishedAt: task.finishedAt, steps: task.steps };
}

/**
 * A USDT task that ends FAILED BIZ-ENERGY-TIMEOUT after a real (half) self-delegation, on a sub-address holding
 * 2 TRX of its own (the plan sends it nothing: its free bandwidth pays the sweep). The reclaim gives the stake back
 * and sweeps those 2 TRX to main, as RECOVER_TRX would have.
 */
async function timedOutTask(w: WorkerWorld, lockBlocks = 0) {
  const sub = await w.addSub();
  w.devnet.fundToken(sub, 5_000_000n);
  w.devnet.fund(sub, 2n * TRX);
  const before = await w.gateway.getCanDelegateEnergySun(w.main.address);
  const task = await w.collect(sub, 'USDT');
  await driveUntil(w, [collectorOf(w, halfDelegation(w.gateway, lockBlocks))], ended(w, task.taskNo));
  const failed = (await w.stores.tasks.get(task.taskNo))!;
  expect(failed).toMatchObject({ status: COLLECTION_STATUS.FAILED, errorCode: 'BIZ-ENERGY-TIMEOUT', reclaim: { status: 'pending', steps: [] } });
  const events = (await w.stores.outbox.listUndispatched(1_000)).filter((e) => e.payload['task_no'] === task.taskNo);
  expect(events.map((e) => e.eventType)).toEqual(['collection.failed']);
  const delegated = (await w.gateway.getResources(sub)).energy.receivedSun;
  expect(delegated).toBeGreaterThan(0n);
  expect(await w.gateway.getCanDelegateEnergySun(w.main.address)).toBe(before - delegated);
  expect(await w.gateway.getTrxBalance(sub)).toBeGreaterThan(0n);
  return { sub, task: failed, before, delegated, events };
}

/** The reclaim's end on chain and in the store, against the failure it followed. */
async function expectReclaimed(w: WorkerWorld, t: Awaited<ReturnType<typeof timedOutTask>>, mainTrxBefore: bigint, subTrxBefore: bigint) {
  const end = (await w.stores.tasks.get(t.task.taskNo))!;
  expect(failureOf(end)).toEqual(failureOf(t.task));
  expect(end.reclaim).toMatchObject({ status: 'done', lease: null });
  expect(end.reclaim!.finishedAt).not.toBeNull();
  expect((await w.gateway.getResources(t.sub)).energy.receivedSun).toBe(0n);
  expect(await w.gateway.getCanDelegateEnergySun(w.main.address)).toBe(t.before);
  const [undelegation, recovery] = end.reclaim!.steps;
  expect(undelegation).toMatchObject({ status: COLLECTION_STATUS.UNDELEGATING_ENERGY, amount: t.delegated });
  expect(recovery!.status).toBe(COLLECTION_STATUS.RECOVER_TRX);
  // Free bandwidth pays the recovery on the devnet, so the whole balance goes back and nothing is left.
  expect(recovery!.amount).toBe(subTrxBefore);
  expect(await w.gateway.getTrxBalance(t.sub)).toBe(0n);
  // The main address pays its own undelegation's bandwidth (its free bandwidth is spent by then).
  const undelegated = await w.gateway.getTransaction(undelegation!.transaction!.txid);
  const fee = undelegated.state === 'confirmed' ? undelegated.feeSun : -1n;
  expect(fee).toBeGreaterThanOrEqual(0n);
  expect(await w.gateway.getTrxBalance(w.main.address)).toBe(mainTrxBefore + subTrxBefore - fee);
  const events = (await w.stores.outbox.listUndispatched(1_000)).filter((e) => e.payload['task_no'] === t.task.taskNo);
  expect(events).toEqual(t.events);
}

describe('post-failure reclaim on the devnet', { timeout: 60_000 }, () => {
  it('energy timeout after a self-delegation: the reclaimer returns the stake and the TRX float, the failure stays', async () => {
    world = await buildWorkerWorld({ solidifyLag: 1 });
    const w = world;
    const t = await timedOutTask(w);
    const [mainTrx, subTrx] = [await w.gateway.getTrxBalance(w.main.address), await w.gateway.getTrxBalance(t.sub)];
    await driveUntil(w, [reclaimerOf(w)], reclaimed(w, t.task.taskNo), { maxRounds: 30 });
    await expectReclaimed(w, t, mainTrx, subTrx);
    expect(await reclaimerOf(w).runOnce()).toBeNull();
  });

  it('the worker host runs it: the same ticks fail the task and then reclaim, reported in TickReport.reclaims', async () => {
    world = await buildWorkerWorld({ solidifyLag: 1 });
    const w = world;
    const sub = await w.addSub();
    w.devnet.fundToken(sub, 5_000_000n);
    w.devnet.fund(sub, 2n * TRX);
    const task = await w.collect(sub, 'USDT');
    const worker = startWorker(
      { ...w.stores, chain: w.gateway, cipher: w.cipher, assets: w.assets, energy: { self: halfDelegation(w.gateway) } },
      { manual: true, collection: { confirmations: 1, pollMs: 3_000, energyTimeoutMs: 9_000 } },
    );
    const reclaims: string[] = [];
    try {
      await driveUntil(w, [{ runDue: async () => { reclaims.push(...(await worker.tick()).reclaims.map((r) => `${r.outcome} ${r.status}`)); } }],
        reclaimed(w, task.taskNo), { maxRounds: 40 });
    } finally {
      await worker.stop();
    }
    expect(reclaims).toContain('finished done');
    expect((await w.stores.tasks.get(task.taskNo))!).toMatchObject({ status: COLLECTION_STATUS.FAILED, errorCode: 'BIZ-ENERGY-TIMEOUT' });
    expect((await w.gateway.getResources(sub)).energy.receivedSun).toBe(0n);
    expect((await w.gateway.getResources(w.main.address)).energy.delegatedOutSun).toBe(0n);
    expect(await w.gateway.getTrxBalance(sub)).toBe(0n);
  });

  it('a task that failed before funding (nothing to collect) has nothing to reclaim', async () => {
    world = await buildWorkerWorld();
    const w = world;
    const sub = await w.addSub();
    const empty = await w.collect(sub, 'USDT');
    await driveUntil(w, [collectorOf(w, halfDelegation(w.gateway))], ended(w, empty.taskNo));
    const task = (await w.stores.tasks.get(empty.taskNo))!;
    expect(task).toMatchObject({ status: COLLECTION_STATUS.FAILED, errorCode: 'BIZ-NOTHING-TO-COLLECT', steps: [] });
    expect(task.reclaim).toBeUndefined();
    expect(await w.gateway.getTrxBalance(sub)).toBe(0n);
    expect(await reclaimerOf(w).runOnce()).toBeNull();
  });

  it('a burn-planned task whose sweep the node refuses: the burn float goes back to main, nothing is undelegated', async () => {
    world = await buildWorkerWorld({ solidifyLag: 1, stakeTrx: 0n });
    const w = world;
    const sub = await w.addSub();
    w.devnet.fundToken(sub, 1_000_000n);
    const delegatedOut = (await w.gateway.getResources(w.main.address)).energy.delegatedOutSun;
    const task = await w.collect(sub, 'USDT');
    const chain = refusingSweeps(w.gateway);
    const collector = new CollectionExecutor(
      { ...w.stores, chain, cipher: w.cipher, assets: w.assets, energy: {} }, { confirmations: 1, pollMs: 3_000, burnEnabled: true },
    );
    await driveUntil(w, [collector], ended(w, task.taskNo), { maxRounds: 60 });
    const failed = (await w.stores.tasks.get(task.taskNo))!;
    expect(failed).toMatchObject({ status: COLLECTION_STATUS.FAILED, errorCode: 'CHAIN-BROADCAST-FAILED', energyPath: 'burn', reclaim: { status: 'pending', steps: [] } });
    // The plan sent exactly the energy burn (a new sub-address: its free bandwidth pays the sweep's bytes).
    const float = await w.gateway.getTrxBalance(sub);
    expect(float).toBe(failed.steps[0]!.amount);
    expect(float).toBe(failed.plan!.fundSun);
    expect(float).toBeGreaterThan(TRX);
    const events = (await w.stores.outbox.listUndispatched(1_000)).filter((e) => e.payload['task_no'] === task.taskNo);
    expect(events.map((e) => e.eventType)).toEqual(['collection.failed']);
    const mainTrx = await w.gateway.getTrxBalance(w.main.address);
    await driveUntil(w, [reclaimerOf(w)], reclaimed(w, task.taskNo), { maxRounds: 30 });
    const end = (await w.stores.tasks.get(task.taskNo))!;
    expect(failureOf(end)).toEqual(failureOf(failed));
    expect(end.reclaim).toMatchObject({ status: 'done', lease: null });
    expect(end.reclaim!.steps.map((s) => [s.status, s.transaction === null, s.amount ?? null])).toEqual([
      [COLLECTION_STATUS.UNDELEGATING_ENERGY, true, null], [COLLECTION_STATUS.RECOVER_TRX, false, float],
    ]);
    expect(await w.gateway.getTrxBalance(sub)).toBe(0n);
    expect(await w.gateway.getTrxBalance(w.main.address)).toBe(mainTrx + float);
    expect((await w.gateway.getResources(w.main.address)).energy.delegatedOutSun).toBe(delegatedOut);
    expect(await w.gateway.getTokenBalance(sub, w.devnet.usdtAddress)).toBe(1_000_000n);
    expect((await w.stores.outbox.listUndispatched(1_000)).filter((e) => e.payload['task_no'] === task.taskNo)).toEqual(events);
    expect(await reclaimerOf(w).runOnce()).toBeNull();
  });

  it('a rental that never delivers times out: only the activation was spent, so there is nothing to reclaim', async () => {
    world = await buildWorkerWorld({ solidifyLag: 1 });
    const w = world;
    const liar: EnergyProvider = {
      name: 'rental', canProvide: async () => true, acquire: async () => ({ kind: 'order', orderId: 'o-1' }), orderStatus: async () => 'delivered',
    };
    const sub = await w.addSub();
    w.devnet.fundToken(sub, 1_000_000n);
    const task = await w.collect(sub, 'USDT');
    await driveUntil(w, [collectorOf(w, undefined, liar)], ended(w, task.taskNo));
    const failed = (await w.stores.tasks.get(task.taskNo))!;
    expect(failed).toMatchObject({ status: COLLECTION_STATUS.FAILED, errorCode: 'BIZ-ENERGY-TIMEOUT', energyPath: 'rental' });
    expect(failed.steps[0]).toMatchObject({ status: COLLECTION_STATUS.FUNDING_TRX, amount: 1n });
    expect(failed.reclaim).toBeUndefined();
    expect(await w.gateway.getTrxBalance(sub)).toBe(1n);
  });

  it('no energy source at all: FAILED BIZ-ENERGY-UNAVAILABLE at PENDING, nothing sent, nothing to reclaim', async () => {
    world = await buildWorkerWorld({ solidifyLag: 1, stakeTrx: 0n });
    const w = world;
    const sub = await w.addSub();
    w.devnet.fundToken(sub, 1_000_000n);
    const mainTrx = await w.gateway.getTrxBalance(w.main.address);
    const task = await w.collect(sub, 'USDT');
    await driveUntil(w, [collectorOf(w, undefined, undefined)], ended(w, task.taskNo));
    const failed = (await w.stores.tasks.get(task.taskNo))!;
    expect(failed).toMatchObject({ status: COLLECTION_STATUS.FAILED, errorCode: 'BIZ-ENERGY-UNAVAILABLE', steps: [] });
    // Issue #34: only the configured source (burning, off) is given a reason; the others are offered as fixes.
    expect(failed.lastError).toMatch(/^no energy source for \d+ energy: burn: burning TRX for energy is disabled \(ENERGY_BURN\)\. To sweep, configure an energy rental provider/);
    expect(failed.lastError).not.toMatch(/self: |rental: /);
    expect(failed.reclaim).toBeUndefined();
    expect(await w.gateway.getTrxBalance(w.main.address)).toBe(mainTrx);
  });

  it('a delivered rental, then the node refuses the sweep: nothing of main\'s is on the sub, so no reclaim; the rented energy stays', async () => {
    world = await buildWorkerWorld({ solidifyLag: 1 });
    const w = world;
    const sub = await w.addSub();
    w.devnet.fundToken(sub, 1_000_000n);
    const task = await w.collect(sub, 'USDT');
    const chain = refusingSweeps(w.gateway);
    const collector = new CollectionExecutor(
      { ...w.stores, chain, cipher: w.cipher, assets: w.assets, energy: { rental: devnetRentalMarket(w.devnet) } },
      { confirmations: 1, pollMs: 3_000 },
    );
    // The refused sweep stays open until it is provably dead (expired, and solidified past its expiration): the money rule.
    await driveUntil(w, [collector], ended(w, task.taskNo), { maxRounds: 60 });
    const failed = (await w.stores.tasks.get(task.taskNo))!;
    expect(failed).toMatchObject({ status: COLLECTION_STATUS.FAILED, errorCode: 'CHAIN-BROADCAST-FAILED', energyPath: 'rental' });
    // Only the activation's 1 SUN was sent: nothing worth a reclaim transaction.
    expect(failed.steps[0]).toMatchObject({ status: COLLECTION_STATUS.FUNDING_TRX, amount: 1n });
    expect(failed.reclaim).toBeUndefined();
    // The rental pool's stake is the provider's to take back, not main's.
    expect((await w.gateway.getResources(sub)).energy.receivedSun).toBeGreaterThan(0n);
    expect(await reclaimerOf(w).runOnce()).toBeNull();
  });

  it('a delegation inside its lock period is retried on the Clock until the lock ends, then given back', async () => {
    world = await buildWorkerWorld({ solidifyLag: 1 });
    const w = world;
    const t = await timedOutTask(w, 20);
    const [mainTrx, subTrx] = [await w.gateway.getTrxBalance(w.main.address), await w.gateway.getTrxBalance(t.sub)];
    const reclaimer = reclaimerOf(w);
    const outcomes: string[] = [];
    const rounds = await driveUntil(w, [{ runDue: async () => { for (const o of await reclaimer.runDue()) outcomes.push(o.outcome); } }],
      reclaimed(w, t.task.taskNo), { maxRounds: 60 });
    expect(outcomes).toContain('retrying');
    expect(rounds).toBeGreaterThan(5);
    await expectReclaimed(w, t, mainTrx, subTrx);
  });

  it('a failure in COLLECTING after a full delegation (the node refuses the sweep): stake and float come back, USDT stays', async () => {
    world = await buildWorkerWorld({ solidifyLag: 1 });
    const w = world;
    const sub = await w.addSub();
    w.devnet.fundToken(sub, 3_000_000n);
    // TRX of its own: the plan sends nothing but the delegation; the reclaim sweeps these back with the stake.
    w.devnet.fund(sub, 2n * TRX);
    const before = (await w.gateway.getResources(w.main.address)).energy.delegatedOutSun;
    const task = await w.collect(sub, 'USDT');
    const chain = refusingSweeps(w.gateway);
    const collector = new CollectionExecutor(
      { ...w.stores, chain, cipher: w.cipher, assets: w.assets, energy: { self: new SelfDelegationEnergyProvider(chain) } },
      { confirmations: 1, pollMs: 3_000 },
    );
    // The refused sweep stays open until it is provably dead (expired, and solidified past its expiration): the money rule.
    await driveUntil(w, [collector], ended(w, task.taskNo), { maxRounds: 60 });
    const failed = (await w.stores.tasks.get(task.taskNo))!;
    expect(failed).toMatchObject({ status: COLLECTION_STATUS.FAILED, errorCode: 'CHAIN-BROADCAST-FAILED', reclaim: { status: 'pending' } });
    expect(failed.steps.at(-1)!.status).toBe(COLLECTION_STATUS.COLLECTING);
    expect((await w.gateway.getResources(sub)).energy.receivedSun).toBeGreaterThan(0n);
    await driveUntil(w, [reclaimerOf(w)], reclaimed(w, task.taskNo), { maxRounds: 30 });
    expect(failureOf((await w.stores.tasks.get(task.taskNo))!)).toEqual(failureOf(failed));
    expect((await w.gateway.getResources(sub)).energy.receivedSun).toBe(0n);
    expect((await w.gateway.getResources(w.main.address)).energy.delegatedOutSun).toBe(before);
    expect(await w.gateway.getTrxBalance(sub)).toBe(0n);
    expect(await w.gateway.getTokenBalance(sub, w.devnet.usdtAddress)).toBe(3_000_000n);
  });

  it('a newer collection of the same sub-address runs first; the reclaim then gives back only what is left', async () => {
    world = await buildWorkerWorld({ solidifyLag: 1 });
    const w = world;
    const t = await timedOutTask(w);
    const newer = await w.collect(t.sub, 'USDT');
    const reclaimer = reclaimerOf(w);
    const waited: string[] = [];
    await driveUntil(w, [collectorOf(w, new SelfDelegationEnergyProvider(w.gateway)), {
      runDue: async () => {
        const running = (await w.stores.tasks.get(newer.taskNo))!.finishedAt === null;
        for (const o of await reclaimer.runDue()) if (running) waited.push(o.outcome);
      },
    }], async () => (await reclaimed(w, t.task.taskNo)()) && (await ended(w, newer.taskNo)()), { maxRounds: 60 });
    expect((await w.stores.tasks.get(newer.taskNo))!.status).toBe(COLLECTION_STATUS.DONE);
    // While the newer task ran, the reclaim only waited: it sent nothing that task could lose.
    expect(waited.length).toBeGreaterThan(0);
    expect(new Set(waited)).toEqual(new Set(['retrying']));
    expect((await w.gateway.getResources(t.sub)).energy.receivedSun).toBe(0n);
    expect((await w.gateway.getResources(w.main.address)).energy.delegatedOutSun).toBe(0n);
    expect(await w.gateway.getTrxBalance(t.sub)).toBeLessThan(300_000n);
    expect(await w.gateway.getTokenBalance(t.sub, w.devnet.usdtAddress)).toBe(0n);
    const end = (await w.stores.tasks.get(t.task.taskNo))!;
    expect(failureOf(end)).toEqual(failureOf(t.task));
    expect(end.reclaim!.steps.map((s) => [s.status, s.transaction === null])).toEqual([
      [COLLECTION_STATUS.UNDELEGATING_ENERGY, false], [COLLECTION_STATUS.RECOVER_TRX, true],
    ]);
  });

  /** One reclaim under a fault schedule with 1-2 reclaimers; returns the faults that fired. */
  async function reclaimUnder(schedule: ReadonlyMap<number, FaultKind>, workers: number, concurrent: boolean) {
    const w = await buildWorkerWorld({ solidifyLag: 1, seed: 'reclaim-crash' });
    try {
      const t = await timedOutTask(w);
      const [mainTrx, subTrx] = [await w.gateway.getTrxBalance(w.main.address), await w.gateway.getTrxBalance(t.sub)];
      const plan = new FaultPlan(schedule);
      const sent = new Map<string, SentTransaction>();
      const chain = faultyGateway(w.gateway, plan, sent);
      const reclaimers = Array.from({ length: workers }, (_, i) => reclaimerOf(w, { chain, tasks: faultyTasks(w.stores.tasks, plan) }, `r-${i}`));
      await driveUntil(w, reclaimers, reclaimed(w, t.task.taskNo), {
        maxRounds: 80, concurrent, onError: (e) => { if (!(e instanceof InjectedCrash)) throw e; },
      });
      const landed: SentTransaction[] = [];
      for (const tx of sent.values()) if ((await w.gateway.getTransaction(tx.txid)).state === 'confirmed') landed.push(tx);
      expect(landed.map((tx) => tx.intent.kind).sort(), JSON.stringify(plan.fired)).toEqual(['transfer-trx', 'undelegate']);
      await expectReclaimed(w, t, mainTrx, subTrx);
      return plan.fired;
    } finally {
      await w.close();
    }
  }

  it('a crash at each reclaim boundary in turn: each reclaim transaction lands exactly once and the reclaim ends', async () => {
    const fired: string[] = [];
    for (let at = 0; at < 18; at++) fired.push(...(await reclaimUnder(new Map([[at, 'crash']]), 1, false)).map((f) => f.point));
    // A fault-free reclaim has 12 boundaries (the last phase's completion and the reclaim's end are one write, and
    // each write-ahead write also releases the task: decision 156), so the sweep covers each one; every kind of
    // boundary was hit.
    expect(fired).toHaveLength(12);
    expect(new Set(fired)).toEqual(new Set([
      'after prepare undelegate', 'after prepare transfer-trx', 'before broadcast', 'after broadcast', 'after confirmation', 'after task write',
    ]));
  }, 240_000);

  it('random crashes and transient failures with 1-2 reclaimers: the same, whatever the schedule', async () => {
    await fc.assert(fc.asyncProperty(
      fc.uniqueArray(fc.record({ at: fc.integer({ min: 0, max: 16 }), kind: fc.constantFrom<FaultKind>('crash', 'crash', 'transient') }), { maxLength: 6, selector: (f) => f.at }),
      fc.integer({ min: 1, max: 2 }), fc.boolean(),
      async (schedule, workers, concurrent) => {
        await reclaimUnder(new Map(schedule.map((f) => [f.at, f.kind])), workers, concurrent);
      },
    ), { numRuns: runs(20) });
  }, 240_000);
});
