/**
 * Automatic collection on the devnet (issue #24 item 4): a confirmed deposit's due trigger, judged against the fee the
 * real planner quotes, waits above max_fee_sun and otherwise becomes a collection that reaches DONE with no API call.
 * The trigger is written as the scanner's DepositRecorder writes it (core tests cover that write).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { emptyDeveloperConfig } from '../../core/application/developer-config.js';
import { cacheBalances } from '../../core/application/testing/cached-balances.js';
import { AutoCollector } from '../../core/application/worker/auto-collector.js';
import { CollectionExecutor, collectionStepSettings } from '../../core/application/worker/collection-executor.js';
import { plannedSweepFee } from '../../core/application/worker/sweep-fee-quote.js';
import { COLLECTION_STATUS } from '../../core/domain/model/collection-task.js';
import type { Deposit } from '../../core/domain/model/deposit.js';
import { SelfDelegationEnergyProvider } from '../../adapters/tron/index.js';
import { buildWorkerWorld, type WorkerWorld } from './worker-test-fixture.js';
import { driveUntil } from './worker-drive.js';

let world: WorkerWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

describe('automatic collection on the devnet', { timeout: 60_000 }, () => {
  it('a due USDT trigger waits while the planned fee is above max_fee_sun, then starts a collection that reaches DONE', async () => {
    world = await buildWorkerWorld({ solidifyLag: 3 });
    const w = world;
    const sub = await w.addSub();
    w.devnet.fundToken(sub, 20_000_000n);
    await cacheBalances({ balances: w.stores.balances, clock: w.clock }, sub, { USDT: 20_000_000n });
    const energy = { self: new SelfDelegationEnergyProvider(w.gateway), rental: undefined };
    const settings = collectionStepSettings({});
    const sweepFee = plannedSweepFee({ chain: w.gateway, clock: w.clock, energy, wallets: w.stores.wallets, cipher: w.cipher }, settings);
    const setCap = async (maxFeeSun: bigint) => {
      const current = (await w.stores.developerConfigs.get(w.userId)) ?? emptyDeveloperConfig(w.userId);
      await w.stores.developerConfigs.save({
        ...current, autoCollect: { USDT: { minAmount: 10_000_000n, maxFeeSun } }, version: current.version + 1,
      });
    };
    const deposit: Deposit = {
      depositId: 'dep-1', transferId: `${'a'.repeat(64)}:log:0`, userId: w.userId, address: sub, networkCode: 'TRON',
      assetSymbol: 'USDT', amount: 20_000_000n, fromAddress: w.main.address, txid: 'a'.repeat(64), blockNumber: 5,
      status: 'confirmed', detectedAt: w.clock.now(), confirmedAt: w.clock.now(), autoCollect: 'due', version: 1,
    };
    await w.stores.deposits.insert(deposit);
    // A fresh sub-address needs its activation (1 SUN sent, the creation fee paid by main): the plan is never free.
    const quoted = await sweepFee((await w.stores.wallets.findByAddress(sub))!, w.assets.find('TRON', 'USDT')!, 20_000_000n);
    expect(quoted).not.toBeNull();
    expect(quoted!).toBeGreaterThan(0n);

    const waits: (bigint | null)[] = [];
    const collector = new AutoCollector({ ...w.core, sweepFee }, 'TRON', (_d, fee) => waits.push(fee));
    await setCap(quoted! - 1n);
    expect(await collector.pass()).toEqual(['waiting']);
    expect(waits).toEqual([quoted]);
    expect(await w.stores.commands.findActiveByAddress(sub)).toBeNull();

    await setCap(quoted!);
    expect(await collector.pass()).toEqual(['started']);
    expect(await collector.pass()).toEqual([]);
    const command = (await w.stores.commands.findActiveByAddress(sub))!;
    const taskNo = String(command.params['task_no']);
    const executor = new CollectionExecutor({ ...w.stores, chain: w.gateway, cipher: w.cipher, assets: w.assets, energy }, { pollMs: 3_000 });
    await driveUntil(w, [executor], async () => {
      const task = await w.stores.tasks.get(taskNo);
      return task !== null && (task.status === COLLECTION_STATUS.DONE || task.status === COLLECTION_STATUS.FAILED);
    });
    const done = (await w.stores.tasks.get(taskNo))!;
    expect({ status: done.status, error: done.lastError, swept: done.sweptAmount })
      .toEqual({ status: COLLECTION_STATUS.DONE, error: null, swept: 20_000_000n });
    expect(await w.gateway.getTokenBalance(w.main.address, w.devnet.usdtAddress)).toBe(20_000_000n);
    expect((await w.stores.deposits.findById('dep-1'))!.autoCollect).toBe('started');
    const events = (await w.stores.outbox.listUndispatched(1_000)).filter((e) => e.payload['task_no'] === taskNo);
    expect(events.map((e) => e.eventType)).toEqual(['collection.completed']);
  });
});
