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
import { MemoryScanCursorStore } from '../../adapters/memory/index.js';
import { pay, wallet } from '../../adapters/tron-devnet/testing/devnet-helpers.js';
import { BalanceScanner } from '../../core/application/worker/balance-scanner.js';
import { createBlockSource } from './jobs/balance-scan.js';
import { startWorker, type RunningWorker } from './index.js';
import { buildWorkerWorld, TRX, type WorkerWorld } from './worker-test-fixture.js';
import { BLOCK_MS, driveUntil } from './worker-drive.js';

let world: WorkerWorld | undefined;
let worker: RunningWorker | undefined;
afterEach(async () => {
  await worker?.stop();
  await world?.close();
  worker = undefined;
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
    w.clock.advance(60_000);
    expect(await collector.pass()).toEqual(['started']);
    // Issue #34: followed while its task runs, never started twice.
    expect(await collector.pass()).toEqual(['forwarding']);
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

  it('a USDT payment on chain: scanned, confirmed, collected by the worker alone (DONE, one task), no API call', async () => {
    world = await buildWorkerWorld({ solidifyLag: 2 });
    const w = world;
    const sub = await w.addSub();
    const payer = wallet(w.devnet, 'auto-collect-payer');
    w.devnet.fund(payer.address, 100n * TRX);
    w.devnet.fundToken(payer.address, 50_000_000n);
    await w.stores.developerConfigs.save({
      ...emptyDeveloperConfig(w.userId), autoCollect: { USDT: { minAmount: 10_000_000n, maxFeeSun: 100n * TRX } }, version: 1,
    });
    const start = w.devnet.mine(1);
    const energy = { self: new SelfDelegationEnergyProvider(w.gateway), rental: undefined };
    const scanner = new BalanceScanner({
      clock: w.clock, blocks: createBlockSource({ fullHost: w.devnet.url }), cursors: new MemoryScanCursorStore(), wallets: w.stores.wallets,
      balances: w.stores.balances, deposits: w.stores.deposits, uow: w.stores.uow, developerConfigs: w.stores.developerConfigs,
      ids: w.stores.ids, assets: w.assets,
    }, { startAt: start, owner: 'auto-collect-e2e' });
    const sweepFee = plannedSweepFee({ chain: w.gateway, clock: w.clock, energy, wallets: w.stores.wallets, cipher: w.cipher }, collectionStepSettings({}));
    worker = startWorker({
      ...w.stores, chain: w.gateway, cipher: w.cipher, assets: w.assets, energy, balanceScanner: scanner,
      autoCollector: new AutoCollector({ ...w.core, sweepFee }, 'TRON'),
    }, { manual: true, collection: { confirmations: 'solidified' } });
    pay.usdt(w.devnet, payer.key, sub, 20_000_000n);
    let taskNo: string | null = null;
    for (let round = 0; round < 200; round++) {
      w.devnet.mine(1);
      w.clock.advance(BLOCK_MS);
      await worker.tick();
      const command = await w.stores.commands.findActiveByAddress(sub);
      if (command !== null) taskNo ??= String(command.params['task_no']);
      if (taskNo !== null && (await w.stores.tasks.get(taskNo))!.status === COLLECTION_STATUS.DONE) break;
    }
    expect(taskNo).not.toBeNull();
    const done = (await w.stores.tasks.get(taskNo!))!;
    expect({ status: done.status, swept: done.sweptAmount }).toEqual({ status: COLLECTION_STATUS.DONE, swept: 20_000_000n });
    expect(await w.gateway.getTokenBalance(w.main.address, w.devnet.usdtAddress)).toBe(20_000_000n);
    const deposits = (await w.stores.deposits.listByUser(w.userId, { address: sub }, { offset: 0, limit: 10 })).items;
    expect(deposits.map((d) => [d.status, d.amount, d.autoCollect])).toEqual([['confirmed', 20_000_000n, 'started']]);
    // More ticks judge nothing again: one collection for the one trigger.
    for (let round = 0; round < 5; round++) {
      w.devnet.mine(1);
      w.clock.advance(BLOCK_MS);
      // Its task is followed to its end (issue #34), never started again.
      expect((await worker.tick()).autoCollect ?? []).not.toContain('started');
    }
  });
});
