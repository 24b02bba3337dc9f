/**
 * The reclaim's step table (RECLAIM_STEPS) at work on the devnet: both phases run after money moved, so a reclaim
 * transaction that a node refuses for good is planned again once it is provably dead (never ended, never retried on
 * the same dead record), and the runner's retries name the phase's step from the table.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { CollectionExecutor } from '../../core/application/worker/collection-executor.js';
import { ReclaimExecutor } from '../../core/application/worker/reclaim-executor.js';
import { ChainError } from '../../core/domain/errors.js';
import { COLLECTION_STATUS } from '../../core/domain/model/collection-task.js';
import type { ChainGateway } from '../../core/ports/chain-gateway.port.js';
import type { EnergyProvider } from '../../core/ports/energy-provider.port.js';
import { SelfDelegationEnergyProvider } from '../../adapters/tron/index.js';
import { buildWorkerWorld, TRX, type WorkerWorld } from './worker-test-fixture.js';
import { driveUntil } from './worker-drive.js';

let world: WorkerWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

/** The gateway, except that a node refuses the first TRX transfer prepared through it for good (the operation itself). */
function refusingFirstTransfer(inner: ChainGateway): { readonly chain: ChainGateway; readonly refused: () => string | null } {
  let refused: string | null = null;
  const chain = new Proxy(inner, {
    get(target, prop) {
      if (prop === 'prepare') {
        return async (...args: Parameters<ChainGateway['prepare']>) => {
          const tx = await target.prepare(...args);
          if (args[1].kind === 'transfer-trx' && refused === null) refused = tx.txid;
          return tx;
        };
      }
      if (prop === 'broadcast') {
        return async (tx: Parameters<ChainGateway['broadcast']>[0]) => {
          if (tx.txid === refused) {
            throw new ChainError('CHAIN-BROADCAST-FAILED', 'node refused the transfer (injected)', { transient: false, nodeCode: 'CONTRACT_VALIDATE_ERROR' });
          }
          return target.broadcast(tx);
        };
      }
      const value: unknown = Reflect.get(target, prop);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { chain, refused: () => refused };
}

describe('the reclaim\'s step table on the devnet', () => {
  it('a recovery a node refuses for good is planned again once dead and lands once; the retries name the table\'s step', async () => {
    world = await buildWorkerWorld({ solidifyLag: 1 });
    const w = world;
    // A USDT task that times out after a half self-delegation, on a sub-address holding 2 TRX of its own.
    const sub = await w.addSub();
    w.devnet.fundToken(sub, 5_000_000n);
    w.devnet.fund(sub, 2n * TRX);
    const task = await w.collect(sub, 'USDT');
    const real = new SelfDelegationEnergyProvider(w.gateway, { lockBlocks: 0 });
    const half: EnergyProvider = {
      name: 'self', canProvide: (r, m) => real.canProvide(r, m), orderStatus: (o) => real.orderStatus(o),
      acquire: (r, m) => real.acquire({ ...r, energy: Math.max(1, Math.floor(r.energy / 2)) }, m),
    };
    const collector = new CollectionExecutor(
      { ...w.stores, chain: w.gateway, cipher: w.cipher, assets: w.assets, energy: { self: half } },
      { confirmations: 1, pollMs: 3_000, energyTimeoutMs: 9_000 },
    );
    await driveUntil(w, [collector], async () => (await w.stores.tasks.get(task.taskNo))!.finishedAt !== null);
    expect((await w.stores.tasks.get(task.taskNo))!).toMatchObject({ status: COLLECTION_STATUS.FAILED, reclaim: { status: 'pending' } });
    const subTrx = await w.gateway.getTrxBalance(sub);

    const { chain, refused } = refusingFirstTransfer(w.gateway);
    const retried: string[] = [];
    const reclaimer = new ReclaimExecutor(
      { ...w.stores, chain, cipher: w.cipher, assets: w.assets, energy: {}, hooks: { onRetry: (_workflow, _key, step) => retried.push(step) } },
      { owner: 'reclaimer', confirmations: 1, pollMs: 3_000, leaseMs: 9_000, retryBaseMs: 3_000, retryMaxMs: 12_000 },
    );
    await driveUntil(w, [reclaimer], async () => (await w.stores.tasks.get(task.taskNo))!.reclaim?.status === 'done', { maxRounds: 150 });

    const end = (await w.stores.tasks.get(task.taskNo))!;
    const recoveries = end.reclaim!.steps.filter((s) => s.status === COLLECTION_STATUS.RECOVER_TRX);
    expect(recoveries).toHaveLength(1);
    expect(refused()).not.toBeNull();
    expect(recoveries[0]!.transaction!.txid).not.toBe(refused());
    expect(await w.gateway.getTransaction(refused()!)).toEqual({ state: 'unknown' });
    expect(recoveries[0]!.amount).toBe(subTrx);
    expect(await w.gateway.getTrxBalance(sub)).toBe(0n);
    expect((await w.gateway.getResources(sub)).energy.receivedSun).toBe(0n);
    expect(new Set(retried)).toEqual(new Set(['reclaim-recover-trx']));
  });
});
