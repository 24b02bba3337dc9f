/**
 * Crash injection on funded withdrawals (issue #34 item 3): random schedules of process deaths and transient node
 * failures at every boundary (after prepare, before/after broadcast, after a confirmed lookup, after every command
 * write, around the terminal commit), 1–3 workers on one memory store and one devnet, refunds from sub-addresses that
 * hold no TRX (USDT: activation and self-delegated energy funded by main; TRX: the whole balance to an address the
 * transfer creates, its fees funded). Whatever the schedule: each refund ends SUCCESS, the payer receives exactly the
 * amount (one transfer landed, never two), no (signer, kind, receiver) lands twice, the delegation is back, one
 * withdrawal.completed each, every lock released. CI runs a few seeded schedules; REFUND_CRASH_RUNS and
 * REFUND_CRASH_SEED explore further (the seed is printed).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CommandExecutor } from '../../core/application/worker/command-executor.js';
import { COMMAND_STATUS } from '../../core/domain/model/command.js';
import { SelfDelegationEnergyProvider } from '../../adapters/tron/index.js';
import { FaultPlan, faultyCommands, faultyGateway, faultyUnitOfWork, InjectedCrash, type FaultKind, type SentTransaction } from './fault-injection.js';
import { buildWorkerWorld, TRX } from './worker-test-fixture.js';
import { driveUntil } from './worker-drive.js';
import { scaled } from '../../contracts-tests/support/depth.js';

const LEASE_MS = 9_000;
const RUNS = Number(process.env['REFUND_CRASH_RUNS'] ?? scaled(6, 3));
const SEED = process.env['REFUND_CRASH_SEED'] === undefined ? 34 : Number(process.env['REFUND_CRASH_SEED']);

const scheduleArb = fc.uniqueArray(
  fc.record({ at: fc.integer({ min: 0, max: 90 }), kind: fc.constantFrom<FaultKind>('crash', 'crash', 'transient') }),
  { maxLength: 8, selector: (f) => f.at },
);

describe('funded withdrawals under crashes', () => {
  it('each refund ends SUCCESS, the payer gets exactly the amount once, nothing lands twice, the delegation is back', async () => {
    console.log(`funded withdrawal crash property: seed ${SEED}, ${RUNS} runs (REFUND_CRASH_SEED, REFUND_CRASH_RUNS)`);
    await fc.assert(fc.asyncProperty(
      scheduleArb, fc.integer({ min: 1, max: 3 }), fc.constantFrom<'USDT' | 'TRX'>('USDT', 'TRX'), fc.boolean(),
      async (schedule, workers, symbol, concurrent) => {
        const w = await buildWorkerWorld({ solidifyLag: 1, seed: 'refund-crash' });
        try {
          const plan = new FaultPlan(new Map(schedule.map((f) => [f.at, f.kind])));
          const sent = new Map<string, SentTransaction>();
          const chain = faultyGateway(w.gateway, plan, sent);
          const sub = await w.addSub();
          const payer = (await w.gateway.createAccount()).address;
          const amount = symbol === 'USDT' ? 4_000_000n : 3n * TRX;
          if (symbol === 'USDT') w.devnet.fundToken(sub, 10_000_000n);
          else w.devnet.fund(sub, amount);
          w.devnet.mine(1);
          const refund = await w.withdraw(sub, payer, symbol, amount);
          const executors = Array.from({ length: workers }, (_, i) => new CommandExecutor({
            ...w.stores, chain, cipher: w.cipher, assets: w.assets,
            commands: faultyCommands(w.stores.commands, plan), uow: faultyUnitOfWork(w.stores.uow, plan),
            energy: { self: new SelfDelegationEnergyProvider(chain) },
          }, { owner: `worker-${i}`, leaseMs: LEASE_MS, pollMs: 1_000, retryBaseMs: 1_000, retryMaxMs: 6_000 }, { funding: { confirmations: 1 } }));
          await driveUntil(w, executors, async () => {
            const c = await w.stores.commands.get(refund.commandNo);
            return c!.status !== COMMAND_STATUS.PENDING && c!.status !== COMMAND_STATUS.RUNNING;
          }, { maxRounds: 200, concurrent, onError: (e) => { if (!(e instanceof InjectedCrash)) throw e; } });
          w.devnet.mine(2);

          const faults = JSON.stringify(plan.fired);
          const end = (await w.stores.commands.get(refund.commandNo))!;
          expect({ status: end.status, error: end.lastError, faults }).toMatchObject({ status: COMMAND_STATUS.SUCCESS, error: null });
          expect(end.funding, faults).toBeTruthy();
          const landed: SentTransaction[] = [];
          for (const tx of sent.values()) if ((await w.gateway.getTransaction(tx.txid)).state === 'confirmed') landed.push(tx);
          const keyOf = (t: SentTransaction) => `${t.from}|${t.intent.kind}|${'to' in t.intent ? t.intent.to : 'receiver' in t.intent ? t.intent.receiver : ''}`;
          const keys = landed.map(keyOf);
          expect(new Set(keys).size, `${keys.join('\n')}\nfaults ${faults}`).toBe(keys.length);
          const toPayer = landed.filter((tx) => 'to' in tx.intent && tx.intent.to === payer);
          expect(toPayer.map((tx) => tx.txid), faults).toEqual([end.transaction!.txid]);
          if (symbol === 'USDT') {
            expect(await w.gateway.getTokenBalance(payer, w.devnet.usdtAddress)).toBe(amount);
            expect(await w.gateway.getTokenBalance(sub, w.devnet.usdtAddress)).toBe(10_000_000n - amount);
            expect((await w.gateway.getResources(sub)).energy.receivedSun).toBe(0n);
          } else {
            expect(await w.gateway.getTrxBalance(payer)).toBe(amount);
          }
          const events = (await w.stores.outbox.listUndispatched(1_000)).filter((e) => e.payload['command_no'] === refund.commandNo);
          expect(events.map((e) => [e.eventType, e.payload['txid']])).toEqual([['withdrawal.completed', end.transaction!.txid]]);
          expect(end.lease).toBeNull();
          expect(await w.stores.commands.findActiveByAddress(sub)).toBeNull();
        } finally {
          await w.close();
        }
      },
    ), { numRuns: RUNS, seed: SEED });
  }, 180_000);
});
