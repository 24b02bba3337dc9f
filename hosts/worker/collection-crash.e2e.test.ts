/**
 * Crash injection: random schedules of process deaths and transient node failures at every step boundary (after
 * prepare, before/after broadcast, after a confirmed lookup, after every store write, around the terminal commit),
 * 1–3 worker instances on one memory store and one devnet. Whatever the schedule: every task ends DONE, no step
 * puts two transactions on chain, the main address receives exactly the swept amounts, each task has exactly one
 * terminal event, and every address lock is released. The workers follow their transactions by asking the node
 * (`off`), from the receipts of the blocks a scanner reads each round with once-per-block reads (`on`), or from a
 * scanner that stops for good after a few rounds (`down`; issue #27).
 */
import { runs } from '../../contracts-tests/support/depth.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CollectionExecutor } from '../../core/application/worker/collection-executor.js';
import { COLLECTION_STATUS } from '../../core/domain/model/collection-task.js';
import { COMMAND_STATUS } from '../../core/domain/model/command.js';
import { CachingChainGateway, createDevnetChainGateway, SelfDelegationEnergyProvider } from '../../adapters/tron/index.js';
import { TronBlockSource } from '../../adapters/tron/tron-block-source.js';
import { MemoryScanCursorStore } from '../../adapters/memory/index.js';
import { BalanceScanner } from '../../core/application/worker/balance-scanner.js';
import { BlockReceipts } from '../../core/application/worker/block-receipts.js';
import { FaultPlan, faultyCommands, faultyGateway, faultyTasks, faultyUnitOfWork, InjectedCrash, type FaultKind, type SentTransaction } from './fault-injection.js';
import { buildWorkerWorld, TRX } from './worker-test-fixture.js';
import { driveUntil } from './worker-drive.js';

const LEASE_MS = 9_000;

const scheduleArb = fc.uniqueArray(
  fc.record({ at: fc.integer({ min: 0, max: 120 }), kind: fc.constantFrom<FaultKind>('crash', 'crash', 'transient') }),
  { maxLength: 8, selector: (f) => f.at },
);

describe('collection executor under crashes', () => {
  it('every task ends DONE, nothing is sent twice, balances are conserved, one terminal event each', async () => {
    await fc.assert(fc.asyncProperty(
      scheduleArb, fc.integer({ min: 1, max: 3 }), fc.constantFrom<'USDT' | 'TRX' | 'both'>('USDT', 'TRX', 'both'),
      fc.integer({ min: 1, max: 3 }), fc.boolean(), fc.constantFrom<'off' | 'on' | 'down'>('off', 'on', 'down'),
      async (schedule, workers, kinds, ticksPerBlock, concurrent, evidence) => {
        const w = await buildWorkerWorld({ solidifyLag: 1, seed: 'worker-crash' });
        try {
          const plan = new FaultPlan(new Map(schedule.map((f) => [f.at, f.kind])));
          const sent = new Map<string, SentTransaction>();
          const receipts = new BlockReceipts(w.clock);
          const gateway = evidence === 'off' ? w.gateway
            : new CachingChainGateway(createDevnetChainGateway(w.devnet, { now: () => w.clock.now(), blockCacheMs: 3_000, tip: () => receipts.newestBlock() }),
              { blockMs: 3_000, now: () => w.clock.now(), tip: () => receipts.newestBlock() });
          const chain = faultyGateway(gateway, plan, sent);
          const subs: { sub: string; symbol: 'USDT' | 'TRX'; amount: bigint }[] = [];
          if (kinds !== 'TRX') subs.push({ sub: await w.addSub(), symbol: 'USDT', amount: 7_000_000n });
          if (kinds !== 'USDT') subs.push({ sub: await w.addSub(), symbol: 'TRX', amount: 5n * TRX });
          for (const s of subs) (s.symbol === 'USDT' ? w.devnet.fundToken(s.sub, s.amount) : w.devnet.fund(s.sub, s.amount));
          const mainUsdtBefore = await w.gateway.getTokenBalance(w.main.address, w.devnet.usdtAddress);
          const tasks = await Promise.all(subs.map((s) => w.collect(s.sub, s.symbol)));
          const executors = Array.from({ length: workers }, (_, i) => new CollectionExecutor({
            ...w.stores, chain, cipher: w.cipher, assets: w.assets,
            tasks: faultyTasks(w.stores.tasks, plan), commands: faultyCommands(w.stores.commands, plan),
            uow: faultyUnitOfWork(w.stores.uow, plan),
            energy: { self: new SelfDelegationEnergyProvider(chain) },
            ...(evidence === 'off' ? {} : { evidence: receipts }),
          }, { owner: `worker-${i}`, leaseMs: LEASE_MS, confirmations: 1, pollMs: 1_000, retryBaseMs: 1_000, retryMaxMs: 6_000 }));
          const scanner = new BalanceScanner({
            clock: w.clock, cursors: new MemoryScanCursorStore(), wallets: w.stores.wallets, balances: w.stores.balances, deposits: w.stores.deposits,
            uow: w.stores.uow, developerConfigs: w.stores.developerConfigs, ids: w.stores.ids, assets: w.assets, receipts,
            blocks: new TronBlockSource({ fullHost: w.devnet.url, timeoutMs: 5_000 }),
          });
          let scans = 0;
          const scanning = { runDue: async () => { if (evidence === 'on' || (evidence === 'down' && scans++ < 3)) await scanner.scan(); } };
          await driveUntil(w, [scanning, ...executors], async () => {
            const all = await Promise.all(tasks.map((t) => w.stores.tasks.get(t.taskNo)));
            return all.every((t) => t!.status === COLLECTION_STATUS.DONE || t!.status === COLLECTION_STATUS.FAILED);
          }, { maxRounds: 300, ticksPerBlock, concurrent, onError: (e) => { if (!(e instanceof InjectedCrash)) throw e; } });

          const events = await w.stores.outbox.listUndispatched(1_000);
          // Landed transactions per (signer, kind, receiver): each step of each task at most one.
          const landed: SentTransaction[] = [];
          for (const tx of sent.values()) if ((await w.gateway.getTransaction(tx.txid)).state === 'confirmed') landed.push(tx);
          const keyOf = (t: SentTransaction) => `${t.from}|${t.intent.kind}|${'to' in t.intent ? t.intent.to : 'receiver' in t.intent ? t.intent.receiver : ''}`;
          const keys = landed.map(keyOf);
          expect(new Set(keys).size, `${keys.join('\n')}\nfaults ${JSON.stringify(plan.fired)}`).toBe(keys.length);
          let sweptUsdt = 0n;
          for (const [i, t] of tasks.entries()) {
            const s = subs[i]!;
            const end = (await w.stores.tasks.get(t.taskNo))!;
            expect({ status: end.status, error: end.lastError, faults: plan.fired }).toMatchObject({ status: COLLECTION_STATUS.DONE, error: null });
            expect((await w.stores.commands.get(t.commandNo))!.status).toBe(COMMAND_STATUS.SUCCESS);
            expect(await w.stores.commands.findActiveByAddress(s.sub)).toBeNull();
            expect(end.lease).toBeNull();
            expect(events.filter((e) => e.payload['task_no'] === t.taskNo).map((e) => e.eventType)).toEqual(['collection.completed']);
            const sweep = landed.filter((tx) => tx.from === s.sub && (tx.intent.kind === 'transfer-trc20' || s.symbol === 'TRX'));
            expect(sweep.map((tx) => tx.txid)).toContain(end.sweepTxHash);
            if (s.symbol === 'USDT') {
              expect(end.sweptAmount).toBe(s.amount);
              sweptUsdt += end.sweptAmount!;
              expect(await w.gateway.getTokenBalance(s.sub, w.devnet.usdtAddress)).toBe(0n);
              expect((await w.gateway.getResources(s.sub)).energy.receivedSun).toBe(0n);
            } else {
              const moved = sweep.reduce((sum, tx) => sum + (tx.intent.kind === 'transfer-trx' ? tx.intent.amountSun : 0n), 0n);
              expect(end.sweptAmount).toBe(moved);
              expect(moved).toBeGreaterThan(s.amount - TRX);
            }
          }
          expect(await w.gateway.getTokenBalance(w.main.address, w.devnet.usdtAddress)).toBe(mainUsdtBefore + sweptUsdt);
        } finally {
          await w.close();
        }
      },
    ), { numRuns: runs(25) });
  }, 120_000);
});
