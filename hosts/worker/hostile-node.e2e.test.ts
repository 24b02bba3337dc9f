/**
 * The two incidents of a real node, replayed on the devnet through real tronweb (the money rule, docs/decisions.md):
 * a transaction that reached the node whose reply was lost, and whose lookups then answer HTTP 403 (TronGrid over
 * quota). The workflow stays non-terminal and keeps its address lock while the node misbehaves, so an integrator's
 * retry is refused instead of paying twice; once the node answers again it ends SUCCESS/DONE on the chain's evidence.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { CollectionExecutor } from '../../core/application/worker/collection-executor.js';
import { CommandExecutor } from '../../core/application/worker/command-executor.js';
import { DomainError } from '../../core/domain/errors.js';
import { COLLECTION_STATUS } from '../../core/domain/model/collection-task.js';
import { COMMAND_STATUS } from '../../core/domain/model/command.js';
import { SelfDelegationEnergyProvider } from '../../adapters/tron/index.js';
import { buildWorkerWorld, TRX, type WorkerWorld } from './worker-test-fixture.js';
import { driveUntil } from './worker-drive.js';

let world: WorkerWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

/** Every lookup of a transaction answers 403 with TronGrid's over-quota body, `times` times. */
const lookups403 = (times: number) => [
  { path: 'wallet/gettransactioninfobyid', kind: 'http_403' as const, times },
  { path: 'walletsolidity/gettransactioninfobyid', kind: 'http_403' as const, times },
  { path: 'wallet/gettransactionfrompending', kind: 'http_403' as const, times },
];

async function eventsOf(w: WorkerWorld, key: string, value: string) {
  return (await w.stores.outbox.listUndispatched(1_000)).filter((e) => e.payload[key] === value);
}

/** A world with a sub-address holding 20 TRX and an existing recipient holding 1 TRX. */
async function withdrawalWorld(): Promise<{ w: WorkerWorld; from: string; to: string }> {
  world = await buildWorkerWorld({ stakeTrx: 0n, solidifyLag: 2 });
  const w = world;
  const from = await w.addSub();
  const to = (await w.gateway.createAccount()).address;
  w.devnet.fund(from, 20n * TRX);
  w.devnet.fund(to, TRX);
  return { w, from, to };
}

describe('a hostile node: lost broadcast reply, then 403 on every lookup', { timeout: 60_000 }, () => {
  it('a withdrawal stays RUNNING and locked (the retry is refused), then ends SUCCESS once; the recipient is paid once', async () => {
    const { w, from, to } = await withdrawalWorld();
    const executor = new CommandExecutor({ ...w.stores, chain: w.gateway, cipher: w.cipher, assets: w.assets },
      { retryBaseMs: 1_000, retryMaxMs: 6_000 });
    const command = await w.withdraw(from, to, 'TRX', 3n * TRX);
    w.devnet.setFaults({ script: [{ path: 'wallet/broadcasttransaction', kind: 'lost_reply' }, ...lookups403(40)] });

    // The node is hostile for these rounds: the transaction lands, the worker cannot see it.
    for (let round = 0; round < 12; round++) {
      await executor.runDue();
      const current = (await w.stores.commands.get(command.commandNo))!;
      expect(current.status, `round ${round}: ${current.lastError}`).toBe(COMMAND_STATUS.RUNNING);
      expect(await w.stores.commands.findActiveByAddress(from)).not.toBeNull();
      expect(await eventsOf(w, 'command_no', command.commandNo)).toEqual([]);
      w.devnet.mine(1);
      w.clock.advance(3_000);
    }
    const sent = (await w.stores.commands.get(command.commandNo))!.transaction!;
    expect(w.devnet.chain.tx(sent.txid)).toBeDefined();
    // The integrator retries: refused while the first may still be in flight.
    await expect(w.withdraw(from, to, 'TRX', 3n * TRX)).rejects.toMatchObject({ code: 'BIZ-COMMAND-LOCKED' });

    w.devnet.setFaults({ script: [] });
    await driveUntil(w, [executor], async () => (await w.stores.commands.get(command.commandNo))!.status !== COMMAND_STATUS.RUNNING);
    const done = (await w.stores.commands.get(command.commandNo))!;
    expect({ status: done.status, error: done.lastError, txid: done.transaction!.txid })
      .toEqual({ status: COMMAND_STATUS.SUCCESS, error: null, txid: sent.txid });
    expect((await eventsOf(w, 'command_no', command.commandNo)).map((e) => [e.eventType, e.payload['txid']]))
      .toEqual([['withdrawal.completed', sent.txid]]);
    expect(await w.gateway.getTrxBalance(to)).toBe(4n * TRX);
    expect(await w.stores.commands.findActiveByAddress(from)).toBeNull();
  });

  it('a collection whose sweep reply is lost stays COLLECTING and locked, then ends DONE with the whole sweep once', async () => {
    world = await buildWorkerWorld({ solidifyLag: 2 });
    const w = world;
    const sub = await w.addSub();
    w.devnet.fundToken(sub, 7_654_321n);
    const mainUsdt = await w.gateway.getTokenBalance(w.main.address, w.devnet.usdtAddress);
    const task = await w.collect(sub, 'USDT');
    const executor = new CollectionExecutor({
      ...w.stores, chain: w.gateway, cipher: w.cipher, assets: w.assets, energy: { self: new SelfDelegationEnergyProvider(w.gateway) },
    }, { confirmations: 1, pollMs: 3_000, retryBaseMs: 1_000, retryMaxMs: 6_000 });
    // Up to the delegation; the stage that sees it confirmed passes the energy wait and sends the sweep next.
    const sentIn = async (status: number) => (await w.stores.tasks.get(task.taskNo))!.steps.find((s) => s.status === status)?.transaction?.txid;
    await driveUntil(w, [executor], async () => (await sentIn(COLLECTION_STATUS.ACQUIRING_ENERGY)) !== undefined);
    w.devnet.setFaults({ script: [{ path: 'wallet/broadcasttransaction', kind: 'lost_reply' }] });
    await driveUntil(w, [executor], async () => (await sentIn(COLLECTION_STATUS.COLLECTING)) !== undefined);
    const sweep = await sentIn(COLLECTION_STATUS.COLLECTING);
    w.devnet.setFaults({ script: lookups403(60) });

    for (let round = 0; round < 15; round++) {
      await executor.runDue();
      const current = (await w.stores.tasks.get(task.taskNo))!;
      expect(current.status, `round ${round}: ${current.lastError}`).toBe(COLLECTION_STATUS.COLLECTING);
      expect(await w.stores.commands.findActiveByAddress(sub)).not.toBeNull();
      w.devnet.mine(1);
      w.clock.advance(3_000);
    }
    expect(sweep).toBeDefined();
    // The sweep landed while the worker was blind to it.
    expect(await w.gateway.getTokenBalance(w.main.address, w.devnet.usdtAddress)).toBe(mainUsdt + 7_654_321n);
    await expect(w.collect(sub, 'USDT')).rejects.toBeInstanceOf(DomainError);

    w.devnet.setFaults({ script: [] });
    await driveUntil(w, [executor], async () => (await w.stores.tasks.get(task.taskNo))!.status === COLLECTION_STATUS.DONE, { maxRounds: 60 });
    const done = (await w.stores.tasks.get(task.taskNo))!;
    expect({ swept: done.sweptAmount, hash: done.sweepTxHash, error: done.errorCode }).toEqual({ swept: 7_654_321n, hash: sweep, error: null });
    expect((await eventsOf(w, 'task_no', task.taskNo)).map((e) => e.eventType)).toEqual(['collection.completed']);
    expect(await w.gateway.getTokenBalance(w.main.address, w.devnet.usdtAddress)).toBe(mainUsdt + 7_654_321n);
    expect(done.steps.filter((s) => s.status === COLLECTION_STATUS.COLLECTING && s.transaction !== null)).toHaveLength(1);
    expect((await w.gateway.getResources(sub)).energy.receivedSun).toBe(0n);
  });
});

describe('a node over quota: Retry-After and the stuck flag', { timeout: 60_000 }, () => {
  it('a 429 with Retry-After puts the next look at least that far out; a step unresolved past stuckAfterMs is logged once per period', async () => {
    const { w, from, to } = await withdrawalWorld();
    const warnings: { fields: Record<string, unknown>; message: string }[] = [];
    const log = { warn: (fields: object, message: string) => warnings.push({ fields: fields as Record<string, unknown>, message }), error: () => undefined };
    const executor = new CommandExecutor({ ...w.stores, chain: w.gateway, cipher: w.cipher, assets: w.assets, log },
      { retryBaseMs: 1_000, retryMaxMs: 6_000, stuckAfterMs: 60_000 });
    const command = await w.withdraw(from, to, 'TRX', 2n * TRX);
    w.devnet.setFaults({
      script: [
        { path: 'wallet/broadcasttransaction', kind: 'lost_reply' },
        { path: 'wallet/gettransactioninfobyid', kind: 'http_429', times: 1_000, retry_after_s: 30 },
      ],
    });
    await executor.runDue();
    // The lost reply: looked at again after the base backoff.
    expect((await w.stores.commands.get(command.commandNo))!.nextRunAt - w.clock.now()).toBe(1_000);
    w.clock.advance(1_000);
    await executor.runDue();
    // The node said 429 with Retry-After: 30 s, longer than the backoff (2 s): the node's word wins.
    expect((await w.stores.commands.get(command.commandNo))!.nextRunAt - w.clock.now()).toBe(30_000);
    for (let minute = 0; minute < 5; minute++) {
      for (let i = 0; i < 2; i++) {
        w.clock.advance(30_000);
        w.devnet.mine(10);
        await executor.runDue();
      }
    }
    const stuck = warnings.filter((x) => x.message === 'workflow stuck');
    // Stuck from the first minute on, reported once per minute: 4 or 5 reports in five minutes, never every poll.
    expect(stuck.length).toBeGreaterThanOrEqual(4);
    expect(stuck.length).toBeLessThanOrEqual(5);
    expect(stuck[0]!.fields).toMatchObject({ workflow: 'command', key: command.commandNo, step: 'withdrawal', txid: expect.any(String) });
    // The error that keeps it retrying is in the report: here, the node over quota.
    expect(String(stuck.at(-1)!.fields['lastError'])).toMatch(/^HTTP_429: getTransaction: node answered HTTP 429/);
    expect((await w.stores.commands.get(command.commandNo))!.status).toBe(COMMAND_STATUS.RUNNING);
    w.devnet.setFaults({ script: [] });
    await driveUntil(w, [executor], async () => (await w.stores.commands.get(command.commandNo))!.status !== COMMAND_STATUS.RUNNING);
    expect((await w.stores.commands.get(command.commandNo))!.status).toBe(COMMAND_STATUS.SUCCESS);
    expect(await w.gateway.getTrxBalance(to)).toBe(3n * TRX);
  });
});
