/**
 * Refunds from the paying sub-address (issue #34 item 3) on the devnet through real tronweb: a sub-address that holds
 * only USDT (no TRX, not even an account) sends part of it to an outside address with its fees funded by the main
 * address as a collection's are (self-delegated energy, the activation), reaches SUCCESS with one withdrawal.completed
 * carrying the transfer's txid, the outside address receives exactly the amount once, and the delegation goes back
 * to main. A TRX refund of everything a sub-address holds, to an address the transfer creates (1.1 TRX of fees the
 * sub-address does not have), gets those fees from main. A sub-address that pays its own fees is not funded.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { CommandExecutor } from '../../core/application/worker/command-executor.js';
import { COMMAND_STATUS } from '../../core/domain/model/command.js';
import { COLLECTION_STATUS } from '../../core/domain/model/collection-task.js';
import { SelfDelegationEnergyProvider } from '../../adapters/tron/index.js';
import { FaultPlan, faultyGateway, type SentTransaction } from './fault-injection.js';
import { buildWorkerWorld, TRX, type WorkerWorld } from './worker-test-fixture.js';
import { driveUntil } from './worker-drive.js';
import { startWorker } from './index.js';
import { devnetRentalMarket } from '../../contracts-tests/harness/tron-devnet.js';

let world: WorkerWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

async function ended(w: WorkerWorld, commandNo: string): Promise<boolean> {
  const c = await w.stores.commands.get(commandNo);
  return c !== null && c.status !== COMMAND_STATUS.PENDING && c.status !== COMMAND_STATUS.RUNNING;
}

/**
 * The executor as the worker builds it: the collections' energy sources, depth 1; on a gateway that records what it
 * sends, or (`sent` null) on the gateway itself, whose once-per-block reads (the token's energy factor) the recorder
 * does not pass on.
 */
function fundedExecutor(w: WorkerWorld, sent: Map<string, SentTransaction> | null): CommandExecutor {
  const chain = sent === null ? w.gateway : faultyGateway(w.gateway, new FaultPlan(new Map()), sent);
  return new CommandExecutor(
    { ...w.stores, chain, cipher: w.cipher, assets: w.assets, energy: { self: new SelfDelegationEnergyProvider(chain) } },
    { pollMs: 1_000 }, { funding: { confirmations: 1 } },
  );
}

async function landed(w: WorkerWorld, sent: Map<string, SentTransaction>): Promise<SentTransaction[]> {
  const out: SentTransaction[] = [];
  for (const tx of sent.values()) if ((await w.gateway.getTransaction(tx.txid)).state === 'confirmed') out.push(tx);
  return out;
}

describe('refunds from a sub-address that cannot pay its fees', { timeout: 60_000 }, () => {
  it('USDT from a sub-address holding only USDT: funded by main, SUCCESS, the exact amount once, the delegation back', async () => {
    world = await buildWorkerWorld();
    const w = world;
    const sub = await w.addSub();
    const payer = (await w.gateway.createAccount()).address;
    w.devnet.fundToken(sub, 25_000_000n);
    w.devnet.mine(1);
    expect(await w.gateway.getTrxBalance(sub)).toBe(0n);
    const refund = await w.withdraw(sub, payer, 'USDT', 10_000_000n);
    const sent = new Map<string, SentTransaction>();
    await driveUntil(w, [fundedExecutor(w, sent)], () => ended(w, refund.commandNo), { maxRounds: 60 });
    w.devnet.mine(1);
    const done = (await w.stores.commands.get(refund.commandNo))!;
    expect({ status: done.status, error: done.lastError, path: done.funding?.energyPath }).toEqual({ status: COMMAND_STATUS.SUCCESS, error: null, path: 'self' });
    const events = (await w.stores.outbox.listUndispatched(1_000)).filter((e) => e.payload['command_no'] === refund.commandNo);
    expect(events.map((e) => [e.eventType, e.payload['status'], e.payload['txid']])).toEqual([['withdrawal.completed', COMMAND_STATUS.SUCCESS, done.transaction!.txid]]);
    expect(await w.gateway.getTokenBalance(payer, w.devnet.usdtAddress)).toBe(10_000_000n);
    expect(await w.gateway.getTokenBalance(sub, w.devnet.usdtAddress)).toBe(15_000_000n);
    const transfers = (await landed(w, sent)).filter((tx) => tx.intent.kind === 'transfer-trc20');
    expect(transfers.map((tx) => tx.txid)).toEqual([done.transaction!.txid]);
    // The stake lent to the sub-address is back, and nothing holds the address.
    expect((await w.gateway.getResources(sub)).energy.receivedSun).toBe(0n);
    expect(await w.stores.commands.findActiveByAddress(sub)).toBeNull();
  });

  it('a transfer that fails after the funding went out: the delegation comes back first, then FAILED with one withdrawal.failed', async () => {
    world = await buildWorkerWorld();
    const w = world;
    const sub = await w.addSub();
    const payer = (await w.gateway.createAccount()).address;
    w.devnet.fundToken(sub, 25_000_000n);
    w.devnet.mine(1);
    const refund = await w.withdraw(sub, payer, 'USDT', 10_000_000n);
    const sent = new Map<string, SentTransaction>();
    const executor = fundedExecutor(w, sent);
    // Once the energy is delegated, the token blacklists the sub-address: its transfer can only fail.
    await driveUntil(w, [executor], async () => ((await w.stores.commands.get(refund.commandNo))!.funding?.energyPath ?? null) === 'self', { maxRounds: 30 });
    w.devnet.setUsdtBlacklisted(sub);
    await driveUntil(w, [executor], () => ended(w, refund.commandNo), { maxRounds: 80 });
    const done = (await w.stores.commands.get(refund.commandNo))!;
    expect(done.status).toBe(COMMAND_STATUS.FAILED);
    expect(done.lastError).not.toBeNull();
    const events = (await w.stores.outbox.listUndispatched(1_000)).filter((e) => e.payload['command_no'] === refund.commandNo);
    expect(events.map((e) => [e.eventType, e.payload['status'], e.payload['txid']])).toEqual([['withdrawal.failed', COMMAND_STATUS.FAILED, null]]);
    expect((await w.gateway.getResources(sub)).energy.receivedSun).toBe(0n);
    expect(await w.gateway.getTokenBalance(payer, w.devnet.usdtAddress)).toBe(0n);
    expect(await w.stores.commands.findActiveByAddress(sub)).toBeNull();
  });

  it('through the worker host with ENERGY_BURN: main sends the sub-address the TRX its transfer burns, the leftover comes back', async () => {
    world = await buildWorkerWorld({ stakeTrx: 0n });
    const w = world;
    const sub = await w.addSub();
    const payer = (await w.gateway.createAccount()).address;
    w.devnet.fundToken(sub, 25_000_000n);
    w.devnet.fund(payer, TRX);
    w.devnet.mine(1);
    const refund = await w.withdraw(sub, payer, 'USDT', 25_000_000n);
    const worker = startWorker({ ...w.stores, chain: w.gateway, cipher: w.cipher, assets: w.assets, energy: {} },
      { manual: true, collection: { confirmations: 1, burnEnabled: true, pollMs: 3_000 } });
    try {
      for (let round = 0; round < 60 && !(await ended(w, refund.commandNo)); round++) {
        await worker.tick();
        w.devnet.mine(1);
        w.clock.advance(3_000);
      }
    } finally {
      await worker.stop();
    }
    const done = (await w.stores.commands.get(refund.commandNo))!;
    expect({ status: done.status, error: done.lastError, path: done.funding?.plan.path }).toEqual({ status: COMMAND_STATUS.SUCCESS, error: null, path: 'burn' });
    expect(await w.gateway.getTokenBalance(payer, w.devnet.usdtAddress)).toBe(25_000_000n);
    // Main lent the burn's TRX; what the transfer did not burn is back (below 0.1 TRX it stays: not worth a transfer).
    expect(await w.gateway.getTrxBalance(sub)).toBeLessThan(100_000n);
  });

  it('the energy need jumps after the delegation: one top-up delegation, as a collection, SUCCESS, both given back', async () => {
    // A short maintenance interval (6 h on mainnet): the factor moves at a maintenance, as on the chain.
    world = await buildWorkerWorld({ solidifyLag: 1, maintenanceIntervalMs: 30_000 });
    const w = world;
    const sub = await w.addSub();
    const payer = (await w.gateway.createAccount()).address;
    w.devnet.fundToken(sub, 25_000_000n);
    w.devnet.mine(1);
    const refund = await w.withdraw(sub, payer, 'USDT', 10_000_000n);
    const executor = fundedExecutor(w, null);
    const commandOf = async () => (await w.stores.commands.get(refund.commandNo))!;
    await driveUntil(w, [executor], async () => ((await commandOf()).funding?.steps ?? [])
      .some((s) => s.status === COLLECTION_STATUS.ACQUIRING_ENERGY && s.transaction !== null), { maxRounds: 30 });
    w.devnet.setParams({ usdtEnergyFactor: 50_000 });
    w.devnet.toMaintenance();
    await driveUntil(w, [executor], () => ended(w, refund.commandNo), { maxRounds: 60 });
    const done = await commandOf();
    expect({ status: done.status, error: done.lastError }).toEqual({ status: COMMAND_STATUS.SUCCESS, error: null });
    const steps = done.funding!.steps;
    const topUps = steps.filter((s) => s.status === COLLECTION_STATUS.WAIT_ENERGY_READY && s.transaction !== null);
    expect(topUps).toHaveLength(1);
    const delegated = steps.find((s) => s.status === COLLECTION_STATUS.ACQUIRING_ENERGY)!.amount! + topUps[0]!.amount!;
    expect(steps.find((s) => s.status === COLLECTION_STATUS.UNDELEGATING_ENERGY)!.amount).toBe(delegated);
    expect((await w.gateway.getResources(sub)).energy.receivedSun).toBe(0n);
    expect(await w.gateway.getTokenBalance(payer, w.devnet.usdtAddress)).toBe(10_000_000n);
  });

  it('with a rental provider and no stake: the energy is rented (an order keyed by the command), SUCCESS, the amount once', async () => {
    world = await buildWorkerWorld({ stakeTrx: 0n });
    const w = world;
    const sub = await w.addSub();
    const payer = (await w.gateway.createAccount()).address;
    w.devnet.fundToken(sub, 25_000_000n);
    w.devnet.mine(1);
    const refund = await w.withdraw(sub, payer, 'USDT', 10_000_000n);
    const executor = new CommandExecutor(
      { ...w.stores, chain: w.gateway, cipher: w.cipher, assets: w.assets, energy: { rental: devnetRentalMarket(w.devnet) } },
      { pollMs: 1_000 }, { funding: { confirmations: 1 } },
    );
    await driveUntil(w, [executor], () => ended(w, refund.commandNo), { maxRounds: 60 });
    const done = (await w.stores.commands.get(refund.commandNo))!;
    expect({ status: done.status, error: done.lastError, path: done.funding?.energyPath }).toEqual({ status: COMMAND_STATUS.SUCCESS, error: null, path: 'rental' });
    expect(done.funding!.steps.filter((s) => s.orderRef !== null).map((s) => s.status)).toEqual([COLLECTION_STATUS.ACQUIRING_ENERGY]);
    expect(await w.gateway.getTokenBalance(payer, w.devnet.usdtAddress)).toBe(10_000_000n);
  });

  it('TRX: all a sub-address holds, to an address the transfer creates: main funds the 1.1 TRX of fees, the amount lands once', async () => {
    world = await buildWorkerWorld({ stakeTrx: 0n });
    const w = world;
    const sub = await w.addSub();
    const payer = (await w.gateway.createAccount()).address;
    w.devnet.fund(sub, 5n * TRX);
    w.devnet.mine(1);
    const refund = await w.withdraw(sub, payer, 'TRX', 5n * TRX);
    const sent = new Map<string, SentTransaction>();
    await driveUntil(w, [fundedExecutor(w, sent)], () => ended(w, refund.commandNo), { maxRounds: 60 });
    w.devnet.mine(1);
    const done = (await w.stores.commands.get(refund.commandNo))!;
    expect({ status: done.status, error: done.lastError }).toEqual({ status: COMMAND_STATUS.SUCCESS, error: null });
    expect(done.funding?.plan.fundSun).toBeGreaterThan(0n);
    expect(await w.gateway.getTrxBalance(payer)).toBe(5n * TRX);
    const toPayer = (await landed(w, sent)).filter((tx) => tx.intent.kind === 'transfer-trx' && tx.intent.to === payer);
    expect(toPayer.map((tx) => tx.txid)).toEqual([done.transaction!.txid]);
  });

  it('a sub-address that holds the TRX its transfer burns is not funded: the withdrawal is exactly as before', async () => {
    world = await buildWorkerWorld({ stakeTrx: 0n });
    const w = world;
    const sub = await w.addSub();
    const payer = (await w.gateway.createAccount()).address;
    w.devnet.fund(sub, 50n * TRX);
    w.devnet.fundToken(sub, 9_000_000n);
    w.devnet.mine(1);
    const refund = await w.withdraw(sub, payer, 'USDT', 2_500_000n);
    const sent = new Map<string, SentTransaction>();
    await driveUntil(w, [fundedExecutor(w, sent)], () => ended(w, refund.commandNo), { maxRounds: 30 });
    const done = (await w.stores.commands.get(refund.commandNo))!;
    expect({ status: done.status, funding: done.funding ?? null }).toEqual({ status: COMMAND_STATUS.SUCCESS, funding: null });
    expect([...sent.values()].map((tx) => tx.from)).toEqual([sub]);
  });
});
