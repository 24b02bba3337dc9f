/**
 * Independent transactions of a sweep share a block (issue #10), on the devnet through real tronweb: an activated
 * sub-address's funding goes out with its delegation, and the undelegation with the recovery; the later step waits
 * for the earlier transaction to land, and one that never lands is sent again (the money rule still holds).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { CollectionExecutor } from '../../core/application/worker/collection-executor.js';
import { ChainError } from '../../core/domain/errors.js';
import { COLLECTION_STATUS, type CollectionTask } from '../../core/domain/model/collection-task.js';
import type { ChainGateway } from '../../core/ports/chain-gateway.port.js';
import { SelfDelegationEnergyProvider } from '../../adapters/tron/index.js';
import { buildWorkerWorld, TRX, type WorkerWorld } from './worker-test-fixture.js';
import { driveUntil } from './worker-drive.js';

let world: WorkerWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

function executorOf(w: WorkerWorld, chain: ChainGateway = w.gateway): CollectionExecutor {
  return new CollectionExecutor({
    ...w.stores, chain, cipher: w.cipher, assets: w.assets, energy: { self: new SelfDelegationEnergyProvider(chain) },
  }, { confirmations: 1, pollMs: 3_000 });
}

const blockOf = (w: WorkerWorld, txid: string): number => w.devnet.chain.tx(txid)!.info.blockNumber;
const txOf = (task: CollectionTask, status: number, purpose?: 'undelegate') =>
  task.steps.find((s) => s.status === status && s.transaction !== null && s.purpose === purpose)?.transaction?.txid;

describe('pipelined sweeps', { timeout: 60_000 }, () => {
  it('an activated sub holding TRX: the undelegation and the recovery share a block; 3 blocks in all', async () => {
    world = await buildWorkerWorld({ solidifyLag: 1 });
    const w = world;
    const sub = await w.addSub();
    w.devnet.fund(sub, 2n * TRX);
    w.devnet.fundToken(sub, 4_000_000n);
    const task = await w.collect(sub, 'USDT');
    const start = w.devnet.info().head_number;
    await driveUntil(w, [executorOf(w)], async () => (await w.stores.tasks.get(task.taskNo))!.finishedAt !== null);
    const done = (await w.stores.tasks.get(task.taskNo))!;
    expect({ status: done.status, error: done.lastError }).toEqual({ status: COLLECTION_STATUS.DONE, error: null });
    const undelegation = txOf(done, COLLECTION_STATUS.UNDELEGATING_ENERGY)!;
    const recovery = txOf(done, COLLECTION_STATUS.RECOVER_TRX)!;
    expect(blockOf(w, undelegation)).toBe(blockOf(w, recovery));
    expect(done.steps.find((s) => s.status === COLLECTION_STATUS.UNDELEGATING_ENERGY)!.pipelined).toBe(true);
    expect(w.devnet.info().head_number - start).toBeLessThanOrEqual(3);
    expect((await w.gateway.getResources(sub)).energy.receivedSun).toBe(0n);
    expect(done.cost!.returnedSun).toBe(done.steps.find((s) => s.status === COLLECTION_STATUS.RECOVER_TRX)!.amount);
    // Both receipts were counted once.
    expect(done.cost!.txids).toEqual(expect.arrayContaining([undelegation, recovery]));
  });

  it('an activated sub short of bandwidth: the funding shares a block with the delegation', async () => {
    world = await buildWorkerWorld({ solidifyLag: 1 });
    const w = world;
    const sub = await w.addSub();
    // Activated, and its free bandwidth spent today: the sweep's 345 bytes must be bought with TRX the plan sends.
    w.devnet.fund(sub, 1);
    const other = (await w.gateway.createAccount()).address;
    w.devnet.fund(other, TRX);
    w.devnet.fund(sub, 3n * TRX);
    const subSigner = { address: sub, privateKey: async () => new TextDecoder().decode(await w.cipher.decrypt((await w.stores.wallets.findByAddress(sub))!.encryptedKey, sub)) };
    for (let i = 0; i < 2; i++) await w.gateway.broadcast(await w.gateway.prepare(subSigner, { kind: 'transfer-trx', to: other, amountSun: 1_499_999n }));
    w.devnet.mine(1);
    w.devnet.fundToken(sub, 4_000_000n);
    const task = await w.collect(sub, 'USDT');
    await driveUntil(w, [executorOf(w)], async () => (await w.stores.tasks.get(task.taskNo))!.finishedAt !== null);
    const done = (await w.stores.tasks.get(task.taskNo))!;
    expect({ status: done.status, error: done.lastError }).toEqual({ status: COLLECTION_STATUS.DONE, error: null });
    expect(done.plan).toMatchObject({ activate: false });
    const funding = txOf(done, COLLECTION_STATUS.FUNDING_TRX)!;
    expect(funding).toBeDefined();
    expect(blockOf(w, funding)).toBe(blockOf(w, txOf(done, COLLECTION_STATUS.ACQUIRING_ENERGY)!));
    expect(done.cost!.txids).toContain(funding);
  });

  it('a pipelined undelegation that never lands (accepted, dropped, then refused until it expired): undelegated again, DONE', async () => {
    world = await buildWorkerWorld({ solidifyLag: 1 });
    const w = world;
    const sub = await w.addSub();
    w.devnet.fund(sub, 2n * TRX);
    w.devnet.fundToken(sub, 4_000_000n);
    // The first undelegation is accepted and lost by the node; every later send of those bytes is refused.
    let first: string | undefined;
    const chain = new Proxy(w.gateway, {
      get(target, prop) {
        if (prop === 'broadcast') {
          return async (tx: Parameters<ChainGateway['broadcast']>[0]) => {
            const kind = (JSON.parse(tx.signedJson) as { raw_data: { contract: { type: string }[] } }).raw_data.contract[0]!.type;
            if (kind === 'UnDelegateResourceContract' && first === undefined) {
              first = tx.txid;
              w.devnet.setFaults({ drop_next_transactions: 1 });
            } else if (tx.txid === first) {
              throw new ChainError('CHAIN-BROADCAST-FAILED', 'Transaction expired', { transient: false, nodeCode: 'TRANSACTION_EXPIRATION_ERROR' });
            }
            return target.broadcast(tx);
          };
        }
        const value: unknown = Reflect.get(target, prop);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const task = await w.collect(sub, 'USDT');
    await driveUntil(w, [executorOf(w, chain)], async () => (await w.stores.tasks.get(task.taskNo))!.finishedAt !== null, { maxRounds: 80 });
    const done = (await w.stores.tasks.get(task.taskNo))!;
    expect({ status: done.status, error: done.lastError }).toEqual({ status: COLLECTION_STATUS.DONE, error: null });
    expect(first).toBeDefined();
    expect(w.devnet.chain.tx(first!)).toBeUndefined();
    const again = txOf(done, COLLECTION_STATUS.RECOVER_TRX, 'undelegate')!;
    expect(w.devnet.chain.tx(again)?.contractRet).toBe('SUCCESS');
    expect((await w.gateway.getResources(sub)).energy.receivedSun).toBe(0n);
    expect((await w.gateway.getResources(w.main.address)).energy.delegatedOutSun).toBe(0n);
    expect(await w.gateway.getTrxBalance(sub)).toBeLessThan(300_000n);
  });
});
