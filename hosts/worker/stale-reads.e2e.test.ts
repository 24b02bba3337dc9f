/**
 * Reads from a node behind (a provider's load-balanced backends; the devnet's `stale_reads` draws them at random in
 * the hostile-schedule property): a balance that looks short soon after the workflow started, or a delegation not
 * yet visible, is read again a poll later (STALE_READ_GRACE_MS, 30 s) instead of failing the workflow or leaving
 * stake delegated. A "short" that lasts past the grace is final. Here the node behind is a gateway whose first
 * answers about one address are those of a node that has not seen its deposit (or delegation) yet.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { CollectionExecutor } from '../../core/application/worker/collection-executor.js';
import { CommandExecutor } from '../../core/application/worker/command-executor.js';
import { STALE_READ_GRACE_MS } from '../../core/application/worker/write-ahead.js';
import { COLLECTION_STATUS, type CollectionTask } from '../../core/domain/model/collection-task.js';
import { COMMAND_STATUS } from '../../core/domain/model/command.js';
import type { ChainGateway } from '../../core/ports/chain-gateway.port.js';
import { SelfDelegationEnergyProvider } from '../../adapters/tron/index.js';
import { buildWorkerWorld, TRX, type WorkerWorld } from './worker-test-fixture.js';
import { driveUntil } from './worker-drive.js';

let world: WorkerWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

/**
 * The gateway as a node behind sees `address`: while `behind()` holds, its balances read 0 and nothing is delegated
 * to it. Counts the answers it falsified.
 */
function behindGateway(inner: ChainGateway, address: string, behind: () => Promise<boolean> | boolean): ChainGateway & { readonly falsified: () => number } {
  let falsified = 0;
  const lie = async (who: string): Promise<boolean> => {
    const yes = who === address && await behind();
    if (yes) falsified += 1;
    return yes;
  };
  return new Proxy(inner, {
    get(target, prop) {
      if (prop === 'falsified') return () => falsified;
      if (prop === 'getTrxBalance') return async (who: string) => (await lie(who) ? 0n : target.getTrxBalance(who));
      if (prop === 'getTokenBalance') return async (who: string, contract: string) => (await lie(who) ? 0n : target.getTokenBalance(who, contract));
      if (prop === 'getResources') {
        return async (who: string) => {
          const real = await target.getResources(who);
          return await lie(who) ? { ...real, energy: { ...real.energy, receivedSun: 0n } } : real;
        };
      }
      const value: unknown = Reflect.get(target, prop);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  }) as ChainGateway & { readonly falsified: () => number };
}

/** Holds for the first `n` questions. */
function firstReads(n: number): () => boolean {
  let asked = 0;
  return () => asked++ < n;
}

const ended = (t: CollectionTask | null): boolean => t !== null && (t.status === COLLECTION_STATUS.DONE || t.status === COLLECTION_STATUS.FAILED);

describe('reads from a node behind', { timeout: 60_000 }, () => {
  it('a collection that first reads an empty sub-address waits and sweeps it all; a really empty one fails only after the grace', async () => {
    world = await buildWorkerWorld({ stakeTrx: 0n });
    const w = world;
    const sub = await w.addSub();
    const empty = await w.addSub();
    w.devnet.fund(sub, 7n * TRX);
    const chain = behindGateway(w.gateway, sub, firstReads(4));
    const executor = new CollectionExecutor({ ...w.stores, chain, cipher: w.cipher, assets: w.assets, energy: {} }, { pollMs: 3_000, confirmations: 1 });
    const task = await w.collect(sub, 'TRX');
    const hollow = await w.collect(empty, 'TRX');
    await driveUntil(w, [executor], async () => ended(await w.stores.tasks.get(task.taskNo)) && ended(await w.stores.tasks.get(hollow.taskNo)));
    const done = (await w.stores.tasks.get(task.taskNo))!;
    expect(chain.falsified()).toBeGreaterThan(0);
    expect({ status: done.status, error: done.errorCode }).toEqual({ status: COLLECTION_STATUS.DONE, error: null });
    expect(done.sweptAmount! > 6n * TRX).toBe(true);
    const failed = (await w.stores.tasks.get(hollow.taskNo))!;
    expect({ status: failed.status, error: failed.errorCode }).toEqual({ status: COLLECTION_STATUS.FAILED, error: 'BIZ-NOTHING-TO-COLLECT' });
    expect(failed.finishedAt! - failed.startedAt).toBeGreaterThanOrEqual(STALE_READ_GRACE_MS);
    expect(failed.finishedAt! - failed.startedAt).toBeLessThan(STALE_READ_GRACE_MS + 4 * 3_000);
  });

  it('a withdrawal whose first reads show no balance waits and pays once; one really short fails only after the grace', async () => {
    world = await buildWorkerWorld({ stakeTrx: 0n });
    const w = world;
    const from = await w.addSub();
    const poor = await w.addSub();
    const to = (await w.gateway.createAccount()).address;
    w.devnet.fund(from, 20n * TRX);
    w.devnet.fund(poor, 1n * TRX);
    w.devnet.fund(to, 1n * TRX);
    const chain = behindGateway(w.gateway, from, firstReads(3));
    const executor = new CommandExecutor({ ...w.stores, chain, cipher: w.cipher, assets: w.assets }, { completeOn: 1 });
    const paid = await w.withdraw(from, to, 'TRX', 5n * TRX);
    const short = await w.withdraw(poor, to, 'TRX', 5n * TRX);
    const isEnded = async (no: string): Promise<boolean> => {
      const c = await w.stores.commands.get(no);
      return c !== null && c.status !== COMMAND_STATUS.PENDING && c.status !== COMMAND_STATUS.RUNNING;
    };
    await driveUntil(w, [executor], async () => (await isEnded(paid.commandNo)) && (await isEnded(short.commandNo)));
    w.devnet.mine(1);
    expect(chain.falsified()).toBeGreaterThan(0);
    expect((await w.stores.commands.get(paid.commandNo))!.status).toBe(COMMAND_STATUS.SUCCESS);
    expect(await w.gateway.getTrxBalance(to)).toBe(6n * TRX);
    const failed = (await w.stores.commands.get(short.commandNo))!;
    expect({ status: failed.status, error: failed.errorCode }).toEqual({ status: COMMAND_STATUS.FAILED, error: 'BIZ-INSUFFICIENT-BALANCE' });
    expect(failed.finishedAt! - failed.createdAt).toBeGreaterThanOrEqual(STALE_READ_GRACE_MS);
  });

  it('the first undelegation gives back the recorded delegation without asking a node (one behind cannot mislead it)', async () => {
    world = await buildWorkerWorld({ solidifyLag: 1 });
    const w = world;
    const sub = await w.addSub();
    w.devnet.fundToken(sub, 3_000_000n);
    const task = await w.collect(sub, 'USDT');
    const undelegating = async (): Promise<boolean> => (await w.stores.tasks.get(task.taskNo))?.status === COLLECTION_STATUS.UNDELEGATING_ENERGY;
    const chain = behindGateway(w.gateway, sub, undelegating);
    const executor = new CollectionExecutor({
      ...w.stores, chain, cipher: w.cipher, assets: w.assets, energy: { self: new SelfDelegationEnergyProvider(chain) },
    }, { pollMs: 3_000, confirmations: 1 });
    await driveUntil(w, [executor], async () => ended(await w.stores.tasks.get(task.taskNo)));
    w.devnet.mine(1);
    const done = (await w.stores.tasks.get(task.taskNo))!;
    expect(chain.falsified()).toBe(0);
    expect(done.status).toBe(COLLECTION_STATUS.DONE);
    expect((await w.gateway.getResources(sub)).energy.receivedSun).toBe(0n);
  });

  it('an undelegation planned again after a dropped one reads; reading nothing delegated yet it waits, then gives back what is left', async () => {
    world = await buildWorkerWorld({ solidifyLag: 1 });
    const w = world;
    const sub = await w.addSub();
    w.devnet.fundToken(sub, 3_000_000n);
    const task = await w.collect(sub, 'USDT');
    // Behind only once an undelegation was dropped, and only for its first two looks.
    const looks = firstReads(2);
    const dropped = async (): Promise<boolean> => {
      const t = await w.stores.tasks.get(task.taskNo);
      return t !== null && t.steps.some((s) => s.status === COLLECTION_STATUS.UNDELEGATING_ENERGY && s.transaction === null) && looks();
    };
    const chain = behindGateway(w.gateway, sub, dropped);
    const executor = new CollectionExecutor({
      ...w.stores, chain, cipher: w.cipher, assets: w.assets, energy: { self: new SelfDelegationEnergyProvider(chain) },
    }, { pollMs: 3_000, confirmations: 1 });
    let tookBack = 0n;
    await driveUntil(w, [{
      runDue: async () => {
        await executor.runDue();
        // Once the sweep is out, another transaction of the main address takes a third of the delegation back: the
        // recorded undelegation is refused, dropped once proven dead, and the step plans again from the chain.
        const t = (await w.stores.tasks.get(task.taskNo))!;
        if (tookBack === 0n && t.status === COLLECTION_STATUS.COLLECTING && t.steps.some((s) => s.status === COLLECTION_STATUS.COLLECTING)) {
          tookBack = (await w.gateway.getResources(sub)).energy.receivedSun / 3n;
          await w.gateway.broadcast(await w.gateway.prepare(w.main, { kind: 'undelegate', resource: 'ENERGY', receiver: sub, amountSun: tookBack }));
        }
      },
    }], async () => ended(await w.stores.tasks.get(task.taskNo)), { maxRounds: 200 });
    w.devnet.mine(1);
    const done = (await w.stores.tasks.get(task.taskNo))!;
    expect(tookBack).toBeGreaterThan(0n);
    expect(chain.falsified()).toBe(2);
    expect(done.status).toBe(COLLECTION_STATUS.DONE);
    expect((await w.gateway.getResources(sub)).energy.receivedSun).toBe(0n);
  });
});
