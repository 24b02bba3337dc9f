/**
 * Issue #27's read savings in the collection steps, on the devnet through real tronweb, counted per gateway method:
 * - one dry run per plan: a USDT sweep dry-runs its transfer once (PENDING), and its energy wait and its sweep use
 *   that run; the sweep moves the amount the plan dry-ran, and USDT that arrives meanwhile stays for the next sweep;
 *   a plan older than DRY_RUN_REUSE_MS is dry-run again;
 * - the first undelegation gives back the recorded delegation with no read of the sub-address; one the chain refuses
 *   (less is delegated than recorded: here another transaction took part of it back) is dropped, and the next plan
 *   reads what is still delegated and gives exactly that back;
 * - a sub-address that can hold no TRX worth recovering is not read for a recovery.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { CollectionExecutor } from '../../core/application/worker/collection-executor.js';
import { DRY_RUN_REUSE_MS } from '../../core/application/worker/collection-steps.js';
import { COLLECTION_STATUS, type CollectionTask } from '../../core/domain/model/collection-task.js';
import type { ChainGateway } from '../../core/ports/chain-gateway.port.js';
import { CachingChainGateway, createDevnetChainGateway, SelfDelegationEnergyProvider } from '../../adapters/tron/index.js';
import { buildWorkerWorld, TRX, type WorkerWorld } from './worker-test-fixture.js';
import { driveUntil } from './worker-drive.js';

let world: WorkerWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

/** The gateway with every call counted by method and first argument (the address asked about). */
function counting(inner: ChainGateway): { chain: ChainGateway; calls: string[] } {
  const calls: string[] = [];
  const chain = new Proxy(inner, {
    get(target, prop) {
      const value: unknown = Reflect.get(target, prop);
      if (typeof value !== 'function' || typeof prop !== 'string') return value;
      return (...args: unknown[]) => {
        calls.push(`${prop} ${typeof args[0] === 'string' ? args[0] : ''}`.trim());
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { chain, calls };
}

async function sweep(w: WorkerWorld, chain: ChainGateway, sub: string, between?: (task: CollectionTask) => Promise<void>): Promise<CollectionTask> {
  const executor = new CollectionExecutor({ ...w.stores, chain, cipher: w.cipher, assets: w.assets, energy: { self: new SelfDelegationEnergyProvider(chain) } },
    { confirmations: 1, pollMs: 3_000 });
  const task = await w.collect(sub, 'USDT');
  await driveUntil(w, [{ runDue: async () => {
    await executor.runDue();
    await between?.((await w.stores.tasks.get(task.taskNo))!);
  } }], async () => (await w.stores.tasks.get(task.taskNo))!.finishedAt !== null, { maxRounds: 200 });
  return (await w.stores.tasks.get(task.taskNo))!;
}

describe('collection steps read each thing once (issue #27)', () => {
  it('dry-runs once per plan, sweeps the amount dry-run, and undelegates the recorded stake without reading the sub-address', async () => {
    const w = world = await buildWorkerWorld({ seed: 'plan-reuse' });
    const sub = await w.addSub();
    w.devnet.fund(sub, 1);
    w.devnet.fundToken(sub, 5_000_000n);
    w.devnet.fundToken(w.main.address, 1n);
    w.devnet.mine(1);
    const { chain, calls } = counting(w.gateway);
    let paidMeanwhile = false;
    let swept = -1;
    const done = await sweep(w, chain, sub, async (task) => {
      // USDT that arrives once the plan is made stays for the next sweep.
      if (!paidMeanwhile && task.plan !== undefined) {
        paidMeanwhile = true;
        w.devnet.fundToken(sub, 2_000_000n);
      }
      if (swept < 0 && task.steps.some((st) => st.status === COLLECTION_STATUS.COLLECTING && st.transaction !== null)) swept = calls.length;
    });
    expect(done.status, done.lastError ?? '').toBe(COLLECTION_STATUS.DONE);
    expect(calls.filter((c) => c.startsWith('estimateTrc20TransferEnergy'))).toHaveLength(1);
    expect(calls.filter((c) => c === `getTokenBalance ${sub}`)).toHaveLength(1);
    expect(done.sweptAmount).toBe(5_000_000n);
    expect(done.plan?.dryRun?.amount).toBe(5_000_000n);
    expect(await w.gateway.getTokenBalance(sub, w.devnet.usdtAddress)).toBe(2_000_000n);
    // The energy wait reads only the sub-address's energy; once the sweep is in, the undelegation reads nothing of
    // it, and nothing worth recovering could be there (1 SUN, nothing funded): no read of it at all after the sweep.
    expect(calls.filter((c) => c === `energyAvailable ${sub}`).length).toBeGreaterThanOrEqual(1);
    expect(swept).toBeGreaterThan(0);
    expect(calls.slice(swept).filter((c) => c.endsWith(sub) && !c.startsWith('prepare'))).toEqual([]);
    expect(calls.slice(swept).filter((c) => c.startsWith('prepare')).length).toBeGreaterThanOrEqual(1);
    expect((await w.gateway.getResources(sub)).energy.receivedSun).toBe(0n);
  });

  for (const crossing of [false, true]) {
    it(crossing ? 'a maintenance between the plan and the sweep (the factor moved): the dry run is made again, DONE'
      : 'with the maintenance period known, the plan reads no energy factor and its dry run stands for the energy wait and the sweep', async () => {
      const w = world = await buildWorkerWorld({ seed: `plan-reuse-period-${crossing}`, maintenanceIntervalMs: 60_000 });
      const sub = await w.addSub();
      w.devnet.fund(sub, 1);
      w.devnet.fundToken(sub, 5_000_000n);
      w.devnet.fundToken(w.main.address, 1n);
      // Three blocks into a period of twenty: well inside it (the gateway's margin is two blocks).
      w.devnet.toMaintenance();
      w.devnet.mine(3);
      // The worker's gateway: the chain's time known (here the devnet's head; the scanner's fresh head in the worker).
      const now = (): number => w.clock.now();
      const reads = new CachingChainGateway(createDevnetChainGateway(w.devnet, { now }), { blockMs: 3_000, now, chainTime: () => w.devnet.chain.head.time });
      const { chain, calls } = counting(reads);
      let moved = false;
      const done = await sweep(w, chain, sub, async (task) => {
        if (crossing && !moved && task.plan !== undefined) {
          moved = true;
          w.devnet.setParams({ usdtEnergyFactor: 36_000 });
          w.devnet.toMaintenance();
          w.devnet.mine(3);
        }
      });
      expect(done.status, done.lastError ?? '').toBe(COLLECTION_STATUS.DONE);
      expect(done.plan?.dryRun?.period).toBeTypeOf('number');
      expect(done.plan?.dryRun?.factor).toBeUndefined();
      expect(calls.filter((c) => c.startsWith('energyFactor'))).toEqual([]);
      expect(calls.filter((c) => c.startsWith('estimateTrc20TransferEnergy')).length).toBe(crossing ? 2 : 1);
    });
  }

  it('a plan older than DRY_RUN_REUSE_MS is dry-run again', async () => {
    const w = world = await buildWorkerWorld({ seed: 'plan-reuse-old' });
    const sub = await w.addSub();
    w.devnet.fund(sub, 1);
    w.devnet.fundToken(sub, 5_000_000n);
    w.devnet.mine(1);
    const { chain, calls } = counting(w.gateway);
    let aged = false;
    const done = await sweep(w, chain, sub, async (task) => {
      if (!aged && task.plan !== undefined) {
        aged = true;
        w.clock.advance(DRY_RUN_REUSE_MS + 1);
      }
    });
    expect(done.status, done.lastError ?? '').toBe(COLLECTION_STATUS.DONE);
    expect(calls.filter((c) => c.startsWith('estimateTrc20TransferEnergy')).length).toBeGreaterThanOrEqual(2);
  });

  it('an undelegation refused because less is delegated than recorded is dropped; the next plan reads and gives back exactly what is left', async () => {
    const w = world = await buildWorkerWorld({ seed: 'plan-reuse-undelegate' });
    const sub = await w.addSub();
    w.devnet.fund(sub, 1);
    w.devnet.fundToken(sub, 5_000_000n);
    w.devnet.mine(1);
    const { chain, calls } = counting(w.gateway);
    let tookBack = 0n;
    const done = await sweep(w, chain, sub, async (task) => {
      // Once the sweep is sent, another transaction of the main address takes a third of the delegation back.
      if (tookBack === 0n && task.status === COLLECTION_STATUS.COLLECTING && task.sweepTxHash === null && task.steps.some((s) => s.status === COLLECTION_STATUS.COLLECTING)) {
        const received = (await w.gateway.getResources(sub)).energy.receivedSun;
        tookBack = received / 3n;
        await w.gateway.broadcast(await w.gateway.prepare(w.main, { kind: 'undelegate', resource: 'ENERGY', receiver: sub, amountSun: tookBack }));
      }
    });
    expect(tookBack).toBeGreaterThan(0n);
    expect(done.status, done.lastError ?? '').toBe(COLLECTION_STATUS.DONE);
    expect((await w.gateway.getResources(sub)).energy.receivedSun).toBe(0n);
    // The dropped attempt stays as a closed record without a transaction; the second attempt read the chain.
    const undelegations = done.steps.filter((s) => s.status === COLLECTION_STATUS.UNDELEGATING_ENERGY);
    expect(undelegations.some((s) => s.transaction === null && s.completedAt !== null)).toBe(true);
    const delegated = done.steps.filter((s) => s.status === COLLECTION_STATUS.ACQUIRING_ENERGY).reduce((n, s) => n + (s.amount ?? 0n), 0n);
    expect(undelegations.find((s) => s.transaction !== null)?.amount).toBe(delegated - tookBack);
    expect(calls.filter((c) => c === `getResources ${sub}`).length).toBeGreaterThanOrEqual(2);
    void TRX;
  });
});
