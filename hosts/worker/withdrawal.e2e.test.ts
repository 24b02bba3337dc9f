/**
 * The withdrawal executor end to end on the devnet through real tronweb: TRX and USDT withdrawals reach SUCCESS
 * with the exact amounts moved and a withdrawal.completed event carrying the txid; a blocked destination is
 * REJECTED without an event; an amount above the on-chain balance fails with withdrawal.failed; a crash after the
 * broadcast never sends a second transaction.
 */
import { runs } from '../../contracts-tests/support/depth.js';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { AdminUseCases } from '../../core/application/admin.service.js';
import { CommandExecutor } from '../../core/application/worker/command-executor.js';
import { DomainError } from '../../core/domain/errors.js';
import { COMMAND_STATUS } from '../../core/domain/model/command.js';
import { emptyWithdrawalPolicy } from '../../core/domain/withdrawal-policy-rules.js';
import { FaultPlan, faultyCommands, faultyGateway, faultyUnitOfWork, InjectedCrash, type FaultKind, type SentTransaction } from './fault-injection.js';
import { buildWorkerWorld, TRX, type WorkerWorld } from './worker-test-fixture.js';
import { driveUntil } from './worker-drive.js';

let world: WorkerWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

function executorOf(w: WorkerWorld, overrides: Partial<ConstructorParameters<typeof CommandExecutor>[0]> = {}): CommandExecutor {
  return new CommandExecutor({ ...w.stores, chain: w.gateway, cipher: w.cipher, assets: w.assets, ...overrides });
}

async function ended(w: WorkerWorld, commandNo: string): Promise<boolean> {
  const c = await w.stores.commands.get(commandNo);
  return c !== null && c.status !== COMMAND_STATUS.PENDING && c.status !== COMMAND_STATUS.RUNNING;
}

async function eventsOf(w: WorkerWorld, commandNo: string) {
  return (await w.stores.outbox.listUndispatched(1_000)).filter((e) => e.payload['command_no'] === commandNo);
}

describe('withdrawals on the devnet', { timeout: 60_000 }, () => {
  it('TRX and USDT: SUCCESS on broadcast, the amount lands, withdrawal.completed with the txid', async () => {
    world = await buildWorkerWorld({ stakeTrx: 0n });
    const w = world;
    const from = await w.addSub();
    const other = await w.addSub();
    const to = (await w.gateway.createAccount()).address;
    w.devnet.fund(from, 50n * TRX);
    w.devnet.fund(other, 50n * TRX);
    w.devnet.fundToken(other, 9_000_000n);
    const trx = await w.withdraw(from, to, 'TRX', 3n * TRX);
    const usdt = await w.withdraw(other, to, 'USDT', 2_500_000n);
    await driveUntil(w, [executorOf(w)], async () => (await ended(w, trx.commandNo)) && (await ended(w, usdt.commandNo)));
    w.devnet.mine(1);
    for (const [command, check] of [[trx, () => w.gateway.getTrxBalance(to)], [usdt, () => w.gateway.getTokenBalance(to, w.devnet.usdtAddress)]] as const) {
      const done = (await w.stores.commands.get(command.commandNo))!;
      expect({ status: done.status, error: done.lastError }).toEqual({ status: COMMAND_STATUS.SUCCESS, error: null });
      expect((await w.gateway.getTransaction(done.transaction!.txid)).state).toBe('confirmed');
      const events = await eventsOf(w, command.commandNo);
      expect(events.map((e) => [e.eventType, e.payload['status'], e.payload['txid'], e.payload['error']]))
        .toEqual([['withdrawal.completed', COMMAND_STATUS.SUCCESS, done.transaction!.txid, null]]);
      expect(await check()).toBe(command === trx ? 3n * TRX : 2_500_000n);
    }
    expect(await w.stores.commands.findActiveByAddress(from)).toBeNull();
  });

  it('a blocked destination is REJECTED by the worker: no event, nothing sent, the lock released', async () => {
    world = await buildWorkerWorld({ stakeTrx: 0n });
    const w = world;
    const from = await w.addSub();
    const to = (await w.gateway.createAccount()).address;
    w.devnet.fund(from, 20n * TRX);
    const blocked = await w.withdraw(from, to, 'TRX', TRX);
    // Listed after the request was accepted: only the worker's own check can stop it.
    await w.stores.risk.deny({ kind: 'address', value: to, reason: 'sanctioned' });
    await driveUntil(w, [executorOf(w)], () => ended(w, blocked.commandNo));
    const rejected = (await w.stores.commands.get(blocked.commandNo))!;
    // The operator's note ('sanctioned') never reaches the user: last_error is the fixed, generic text (issue #13).
    expect({ status: rejected.status, code: rejected.errorCode, tx: rejected.transaction, lastError: rejected.lastError })
      .toEqual({ status: COMMAND_STATUS.REJECTED, code: 'RISK-REVIEW-BLOCKED', tx: null, lastError: 'blocked by risk control' });
    expect(await eventsOf(w, blocked.commandNo)).toEqual([]);
    expect(await w.stores.commands.findActiveByAddress(from)).toBeNull();
    w.devnet.mine(1);
    expect(await w.gateway.getTrxBalance(to)).toBe(0n);
  });

  it('the policy is checked again when the withdrawal runs (issue #35): allow_list_only turned on since the request REJECTS it, nothing sent', async () => {
    world = await buildWorkerWorld({ stakeTrx: 0n });
    const w = world;
    const from = await w.addSub();
    const to = (await w.gateway.createAccount()).address;
    w.devnet.fund(from, 20n * TRX);
    const command = await w.withdraw(from, to, 'TRX', TRX);
    const accepted = (await w.stores.commands.get(command.commandNo))!;
    // Tightened after the request was accepted (a tightening takes effect at once): only the worker can stop it.
    const now = w.clock.now();
    await w.stores.withdrawalPolicies.save({ ...emptyWithdrawalPolicy(accepted.userId, now), allowListOnly: true, version: 1 });
    await driveUntil(w, [executorOf(w)], () => ended(w, command.commandNo));
    const rejected = (await w.stores.commands.get(command.commandNo))!;
    expect({ status: rejected.status, code: rejected.errorCode, tx: rejected.transaction })
      .toEqual({ status: COMMAND_STATUS.REJECTED, code: 'POLICY-DESTINATION-NOT-ALLOWED', tx: null });
    expect((await eventsOf(w, command.commandNo)).map((e) => [e.eventType, e.payload['status']])).toEqual([['withdrawal.failed', COMMAND_STATUS.REJECTED]]);
    expect(await w.stores.commands.findActiveByAddress(from)).toBeNull();
    w.devnet.mine(1);
    expect(await w.gateway.getTrxBalance(to)).toBe(0n);
  });

  it('more than the chain balance: FAILED BIZ-INSUFFICIENT-BALANCE with withdrawal.failed, nothing sent', async () => {
    world = await buildWorkerWorld({ stakeTrx: 0n });
    const w = world;
    const from = await w.addSub();
    const to = (await w.gateway.createAccount()).address;
    w.devnet.fund(from, 2n * TRX);
    const command = await w.withdraw(from, to, 'TRX', 5n * TRX);
    await driveUntil(w, [executorOf(w)], () => ended(w, command.commandNo));
    const failed = (await w.stores.commands.get(command.commandNo))!;
    expect({ status: failed.status, code: failed.errorCode, tx: failed.transaction }).toEqual({ status: COMMAND_STATUS.FAILED, code: 'BIZ-INSUFFICIENT-BALANCE', tx: null });
    // In the asset's units, never SUN under a TRX label.
    expect(failed.lastError).toBe(`${from} can send 0.9 TRX, 5 TRX requested`);
    expect((await eventsOf(w, command.commandNo)).map((e) => [e.eventType, e.payload['status'], e.payload['txid'], typeof e.payload['error']]))
      .toEqual([['withdrawal.failed', COMMAND_STATUS.FAILED, null, 'string']]);
    expect(await w.stores.commands.findActiveByAddress(from)).toBeNull();
  });

  it('a crash at any boundary (after prepare, before/after broadcast, after a write) sends exactly one transaction', async () => {
    for (let at = 0; at < 8; at++) {
      const w = await buildWorkerWorld({ stakeTrx: 0n });
      try {
        const from = await w.addSub();
        const to = (await w.gateway.createAccount()).address;
        w.devnet.fund(from, 10n * TRX);
        const command = await w.withdraw(from, to, 'TRX', 4n * TRX);
        const plan = new FaultPlan(new Map([[at, 'crash']]));
        const sent = new Map<string, SentTransaction>();
        const crashing = executorOf(w, { chain: faultyGateway(w.gateway, plan, sent), commands: faultyCommands(w.stores.commands, plan) });
        const rescuer = executorOf(w, { chain: faultyGateway(w.gateway, new FaultPlan(new Map()), sent) });
        await driveUntil(w, [crashing, rescuer], () => ended(w, command.commandNo), { onError: (e) => { if (!(e instanceof InjectedCrash)) throw e; } });
        w.devnet.mine(1);
        expect((await w.stores.commands.get(command.commandNo))!.status, `crash at ${at}`).toBe(COMMAND_STATUS.SUCCESS);
        expect(await w.gateway.getTrxBalance(to), `crash at ${at}`).toBe(4n * TRX);
        expect((await eventsOf(w, command.commandNo)).length).toBe(1);
        expect(sent.size, `crash at ${at}: distinct transactions broadcast`).toBe(1);
      } finally {
        await w.close();
      }
    }
  });

  it('property: random crashes and transient failures, 1–3 workers: each command ends SUCCESS with one transaction', async () => {
    const schedules = fc.uniqueArray(
      fc.record({ at: fc.integer({ min: 0, max: 40 }), kind: fc.constantFrom<FaultKind>('crash', 'transient') }),
      { maxLength: 5, selector: (f) => f.at },
    );
    await fc.assert(fc.asyncProperty(schedules, fc.integer({ min: 1, max: 3 }), fc.constantFrom<'TRX' | 'USDT'>('TRX', 'USDT'), async (schedule, workers, symbol) => {
      const w = await buildWorkerWorld({ stakeTrx: 0n, seed: 'withdrawal-crash' });
      try {
        const from = await w.addSub();
        const staker = await w.addSub();
        const to = (await w.gateway.createAccount()).address;
        w.devnet.fund(from, 30n * TRX);
        w.devnet.fund(staker, 300n * TRX);
        w.devnet.fundToken(from, 8_000_000n);
        const amount = symbol === 'TRX' ? 6n * TRX : 5_000_000n;
        const withdrawal = await w.withdraw(from, to, symbol, amount);
        const stake = await w.stake(staker, 'STAKE', 'BANDWIDTH', 100n * TRX);
        const plan = new FaultPlan(new Map(schedule.map((f) => [f.at, f.kind])));
        const sent = new Map<string, SentTransaction>();
        const chain = faultyGateway(w.gateway, plan, sent);
        const executors = Array.from({ length: workers }, () => executorOf(w, {
          chain, commands: faultyCommands(w.stores.commands, plan), uow: faultyUnitOfWork(w.stores.uow, plan),
        }));
        await driveUntil(w, executors, async () => (await ended(w, withdrawal.commandNo)) && (await ended(w, stake.commandNo)), {
          maxRounds: 200, onError: (e) => { if (!(e instanceof InjectedCrash)) throw e; },
        });
        w.devnet.mine(1);
        const faults = JSON.stringify(plan.fired);
        for (const command of [withdrawal, stake]) {
          const end = (await w.stores.commands.get(command.commandNo))!;
          expect({ status: end.status, error: end.lastError }, faults).toEqual({ status: COMMAND_STATUS.SUCCESS, error: null });
          const landed: string[] = [];
          for (const tx of sent.values()) {
            if (tx.from === command.address && (await w.gateway.getTransaction(tx.txid)).state === 'confirmed') landed.push(tx.txid);
          }
          expect(landed, faults).toEqual([end.transaction!.txid]);
          expect(await w.stores.commands.findActiveByAddress(command.address!)).toBeNull();
        }
        expect(symbol === 'TRX' ? await w.gateway.getTrxBalance(to) : await w.gateway.getTokenBalance(to, w.devnet.usdtAddress)).toBe(amount);
        expect((await w.gateway.getResources(staker)).bandwidth.stakedSun).toBe(100n * TRX);
        expect((await eventsOf(w, withdrawal.commandNo)).map((e) => e.eventType)).toEqual(['withdrawal.completed']);
      } finally {
        await w.close();
      }
    }), { numRuns: runs(25) });
  });

  it('an admin cancel is refused from the moment the transaction is written, so it can never race the broadcast', async () => {
    world = await buildWorkerWorld({ stakeTrx: 0n });
    const w = world;
    const from = await w.addSub();
    const to = (await w.gateway.createAccount()).address;
    w.devnet.fund(from, 10n * TRX);
    const command = await w.withdraw(from, to, 'TRX', 2n * TRX);
    const admin = new AdminUseCases(w.core);
    let refused: unknown = null;
    // The admin tries to cancel right after the write-ahead record lands, before the broadcast goes out.
    const gateway = Object.create(w.gateway) as typeof w.gateway;
    gateway.broadcast = async (tx) => {
      refused = await admin.cancelCommand(command.commandNo).then(() => null, (e: unknown) => e);
      return w.gateway.broadcast(tx);
    };
    await executorOf(w, { chain: gateway }).runDue();
    expect(refused).toBeInstanceOf(DomainError);
    expect((refused as DomainError).code).toBe('BIZ-COMMAND-NOT-CANCELLABLE');
    expect((await w.stores.commands.get(command.commandNo))!.status).toBe(COMMAND_STATUS.SUCCESS);
  });

  it('an admin cancel before the worker starts wins: the worker sends nothing', async () => {
    world = await buildWorkerWorld({ stakeTrx: 0n });
    const w = world;
    const from = await w.addSub();
    const to = (await w.gateway.createAccount()).address;
    w.devnet.fund(from, 10n * TRX);
    const command = await w.withdraw(from, to, 'TRX', 2n * TRX);
    await new AdminUseCases(w.core).cancelCommand(command.commandNo);
    expect(await executorOf(w).runDue()).toEqual([]);
    w.devnet.mine(1);
    expect(await w.gateway.getTrxBalance(to)).toBe(0n);
    expect((await w.stores.commands.get(command.commandNo))!.status).toBe(COMMAND_STATUS.CANCELLED);
  });
});
