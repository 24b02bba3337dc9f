/**
 * Staking in the books (issue #36), on the devnet through real tronweb. Through the composed worker: a stake and an
 * unstake made through the use cases the API routes call (POST /api/wallets/{address}/stake, /unstake) are booked once
 * each (liquid → staked → unstaking), and the reconciliation then finds every address matched: no "staked"
 * explanation, no discrepancy. Through the command executor with no booker (a worker that died right after the SUCCESS
 * writes): two racing catch-up passes book each staking command once, and the liquid, staked and unstaking books equal
 * the chain's liquid balance, stake and unstaking TRX to the SUN.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryOperatorStatusStore, RecordingMailer } from '../../adapters/memory/index.js';
import { NodeSecretHasher, TEST_SCRYPT_COST } from '../../adapters/node/index.js';
import { pay, wallet } from '../../adapters/tron-devnet/testing/devnet-helpers.js';
import { CollectionBookingCatchUp } from '../../core/application/collection-ledger-booker.js';
import { STAKING_CAUSE, STAKING_REWARD_CAUSE } from '../../core/application/ledger-bookings.js';
import { submitFundCommand } from '../../core/application/fund-commands.js';
import { StakingLedgerBooker } from '../../core/application/staking-ledger-booker.js';
import { userWithWallets } from '../../core/application/testing/index.js';
import { LedgerReconciliation, LedgerReconciliationJob } from '../../core/application/ledger-reconciliation.js';
import { CommandExecutor } from '../../core/application/worker/command-executor.js';
import { custodialAccount, holderAccount, ledgerAccountKey, stakeAccount, sumsPerAsset } from '../../core/domain/ledger.js';
import { COMMAND_STATUS, COMMAND_TYPE, type CommandType } from '../../core/domain/model/command.js';
import type { CommandRepository } from '../../core/ports/command-repository.port.js';
import { loadConfig } from '../composition/config.js';
import { composeContainer, type Composition } from '../composition/container.js';
import { TOKENS } from '../composition/tokens.js';
import { LEDGER_RECONCILIATION, startComposedWorker } from './compose-worker.js';
import type { RunningWorker } from './index.js';
import { driveUntil } from './worker-drive.js';
import { buildWorkerWorld, TRX, type WorkerWorld } from './worker-test-fixture.js';

let world: WorkerWorld | undefined;
let composition: Composition | undefined;
let worker: RunningWorker | undefined;
afterEach(async () => {
  await worker?.stop();
  await composition?.close();
  await world?.close();
  worker = undefined;
  composition = undefined;
  world = undefined;
});

async function ended(stores: { readonly commands: Pick<CommandRepository, 'get'> }, commandNo: string): Promise<boolean> {
  const c = await stores.commands.get(commandNo);
  return c !== null && c.status !== COMMAND_STATUS.PENDING && c.status !== COMMAND_STATUS.RUNNING;
}

describe('staking in the books', { timeout: 90_000 }, () => {
  it('a stake and an unstake through the use cases are booked once each by the worker; the reconciliation finds 0 discrepancies', async () => {
    world = await buildWorkerWorld({ stakeTrx: 0n });
    const w = world;
    const config = loadConfig({ CHAIN: 'devnet', TRON_FULL_HOST: w.devnet.url, USDT_CONTRACT: w.devnet.usdtAddress, CHAIN_CONFIRMATIONS: '1' }, { mode: 'dev' });
    const mailer = new RecordingMailer();
    composition = composeContainer(config, { clock: w.clock, mailer, hasher: new NodeSecretHasher({ cost: TEST_SCRYPT_COST }) });
    const app = composition.container.get(TOKENS.Application);
    const stores = composition.container.get(TOKENS.Stores);
    const user = await userWithWallets(app, (address) => mailer.lastCodeFor(address), 'staking-books@example.com', 1);
    worker = startComposedWorker(composition, {}, { manual: true });
    const running = worker;
    const tick = { runDue: () => running.tick() };
    const payer = wallet(w.devnet, 'staking-payer');
    w.devnet.fund(payer.address, 400n * TRX);
    w.devnet.mine(1);
    await running.tick();
    pay.trx(w.devnet, payer.key, user.main, 300_000_000);
    await driveUntil(w, [tick], async () => (await app.deposits.list(user.userId, { status: 'confirmed' })).items.length === 1, { maxRounds: 60 });

    const stake = await app.staking.stake(user.userId, user.main, { resource: 'ENERGY', amount: '100000000' });
    await driveUntil(w, [tick], () => ended(stores, stake.command_no), { maxRounds: 60 });
    const unstake = await app.staking.unstake(user.userId, user.main, { resource: 'ENERGY', amount: '40000000' });
    await driveUntil(w, [tick], () => ended(stores, unstake.command_no), { maxRounds: 60 });
    for (const c of [stake, unstake]) expect((await stores.commands.get(c.command_no))!.status).toBe(COMMAND_STATUS.SUCCESS);
    // The worker booked each right after the tick that finished it.
    const entries = (await stores.ledger.entries(user.userId, { causeType: STAKING_CAUSE }, { offset: 0, limit: 100 })).items;
    expect(new Set(entries.map((e) => e.cause.id))).toEqual(new Set([stake.command_no, unstake.command_no]));
    for (const [asset, sum] of sumsPerAsset(entries)) expect(sum, asset).toBe(0n);

    for (let i = 0; i < 2; i++) {
      w.clock.advance(LEDGER_RECONCILIATION.everyMs);
      w.devnet.mine(1);
      await running.tick();
    }
    const now = await app.ledger.reconciliation(user.userId, {});
    expect(now.summary.discrepancy).toBe(0);
    expect(now.summary.explained).toBe(0);
    const balances = new Map((await stores.ledger.balancesAt(user.userId, w.clock.now() + 3_600_000)).map((b) => [ledgerAccountKey(b.account), b.balance]));
    expect([stakeAccount('staked', 'TRON', 'TRX', user.main), stakeAccount('unstaking', 'TRON', 'TRX', user.main)].map((a) => balances.get(ledgerAccountKey(a))))
      .toEqual([60n * TRX, 40n * TRX]);
    expect(balances.get(ledgerAccountKey(custodialAccount('TRON', 'TRX', user.main)))).toBe(await w.gateway.getTrxBalance(user.main));
  });

  it('the catch-up books staking commands finished while no booker ran, once each, and the books equal the chain', async () => {
    world = await buildWorkerWorld({ stakeTrx: 0n });
    const w = world;
    const address = await w.addSub();
    w.devnet.fund(address, 500n * TRX);
    w.devnet.mine(1);
    const opening = await w.gateway.getTrxBalance(address);
    await w.stores.ledger.post({ transactionId: 'open', userId: w.userId, occurredAt: w.clock.now(), reverses: null, cause: { type: 'deposit', id: 'open' },
      lines: [{ account: holderAccount('external_in', 'TRON', 'TRX'), amount: -opening }, { account: custodialAccount('TRON', 'TRX', address), amount: opening }] });
    const executor = new CommandExecutor({ ...w.stores, chain: w.gateway, cipher: w.cipher, assets: w.assets });
    const stake = await w.stake(address, 'STAKE', 'ENERGY', 200n * TRX);
    await driveUntil(w, [executor], () => ended(w.stores, stake.commandNo));
    const unstake = await w.stake(address, 'UNSTAKE', 'ENERGY', 75n * TRX);
    await driveUntil(w, [executor], () => ended(w.stores, unstake.commandNo));
    const tooMuch = await w.stake(address, 'UNSTAKE', 'ENERGY', 1_000n * TRX);
    await driveUntil(w, [executor], () => ended(w.stores, tooMuch.commandNo));
    w.devnet.mine(2);
    expect(await Promise.all([stake, unstake, tooMuch].map(async (c) => (await w.stores.commands.get(c.commandNo))!.status)))
      .toEqual([COMMAND_STATUS.SUCCESS, COMMAND_STATUS.SUCCESS, COMMAND_STATUS.FAILED]);

    const booker = new StakingLedgerBooker({ commands: w.stores.commands, wallets: w.stores.wallets, chain: w.gateway, ledger: w.stores.ledger, ids: w.stores.ids });
    const catchUp = () => new CollectionBookingCatchUp(booker, w.clock, { lookbackMs: 3_600_000, everyMs: 60_000, limit: 10 });
    const outcomes = await Promise.all([catchUp().maybeRun(), catchUp().maybeRun()]);
    expect(outcomes.reduce((a, b) => a + b, 0)).toBe(2);
    for (const c of [stake, unstake]) expect(await booker.book(c.commandNo)).toBe('already-booked');
    expect(await catchUp().maybeRun()).toBe(0);
    const entries = (await w.stores.ledger.entries(w.userId, { causeType: STAKING_CAUSE }, { offset: 0, limit: 100 })).items;
    expect(new Set(entries.map((e) => e.transactionId)).size).toBe(2);
    for (const [asset, sum] of sumsPerAsset(entries)) expect(sum, asset).toBe(0n);

    const balances = new Map((await w.stores.ledger.balancesAt(w.userId, w.clock.now() + 3_600_000)).map((b) => [ledgerAccountKey(b.account), b.balance]));
    const booked = (account: Parameters<typeof ledgerAccountKey>[0]) => balances.get(ledgerAccountKey(account)) ?? 0n;
    const resources = await w.gateway.getResources(address);
    expect({
      liquid: booked(custodialAccount('TRON', 'TRX', address)), staked: booked(stakeAccount('staked', 'TRON', 'TRX', address)),
      unstaking: booked(stakeAccount('unstaking', 'TRON', 'TRX', address)),
    }).toEqual({ liquid: await w.gateway.getTrxBalance(address), staked: resources.energy.stakedSun, unstaking: (resources.unstakingSun ?? 0n) + resources.withdrawableSun });
    expect(booked(stakeAccount('staked', 'TRON', 'TRX', address))).toBe(125n * TRX);
  });

  it('a vote, a withdrawal of unstaked TRX past its wait and a reward withdrawal are booked from their receipts: the books equal the chain', async () => {
    world = await buildWorkerWorld({ stakeTrx: 0n });
    const w = world;
    const address = await w.addSub();
    w.devnet.fund(address, 500n * TRX);
    w.devnet.mine(1);
    const opening = await w.gateway.getTrxBalance(address);
    await w.stores.ledger.post({ transactionId: 'open', userId: w.userId, occurredAt: w.clock.now(), reverses: null, cause: { type: 'deposit', id: 'open' },
      lines: [{ account: holderAccount('external_in', 'TRON', 'TRX'), amount: -opening }, { account: custodialAccount('TRON', 'TRX', address), amount: opening }] });
    const executor = new CommandExecutor({ ...w.stores, chain: w.gateway, cipher: w.cipher, assets: w.assets });
    const submit = (type: CommandType, params: Record<string, string>) => submitFundCommand(w.core, { userId: w.userId, operation: 'stake', address, assetSymbol: 'TRX' },
      { userId: w.userId, type, address, assetSymbol: 'TRX', lockedAmount: 0n, params });
    const run = async (command: Promise<{ readonly commandNo: string }>) => {
      const c = await command;
      await driveUntil(w, [executor], () => ended(w.stores, c.commandNo));
      return c.commandNo;
    };
    const done: string[] = [];
    done.push(await run(w.stake(address, 'STAKE', 'ENERGY', 200n * TRX)));
    done.push(await run(submit(COMMAND_TYPE.VOTE, { votes: JSON.stringify([{ witness: w.devnet.info().witnesses[0]!, count: 100 }]) })));
    done.push(await run(w.stake(address, 'UNSTAKE', 'ENERGY', 50n * TRX)));
    // The unstaking wait (14 days on the devnet, as on mainnet) passes on the chain and on the worker's clock.
    w.devnet.advance(15 * 86_400_000);
    w.clock.advance(15 * 86_400_000);
    done.push(await run(submit(COMMAND_TYPE.WITHDRAW_UNSTAKED, {})));
    done.push(await run(submit(COMMAND_TYPE.WITHDRAW_REWARD, {})));
    w.devnet.mine(2);
    const commands = await Promise.all(done.map(async (no) => (await w.stores.commands.get(no))!));
    expect(commands.map((c) => [c.type, c.status, c.lastError])).toEqual([
      [COMMAND_TYPE.STAKE, COMMAND_STATUS.SUCCESS, null], [COMMAND_TYPE.VOTE, COMMAND_STATUS.SUCCESS, null], [COMMAND_TYPE.UNSTAKE, COMMAND_STATUS.SUCCESS, null],
      [COMMAND_TYPE.WITHDRAW_UNSTAKED, COMMAND_STATUS.SUCCESS, null], [COMMAND_TYPE.WITHDRAW_REWARD, COMMAND_STATUS.SUCCESS, null],
    ]);
    const booker = new StakingLedgerBooker({ commands: w.stores.commands, wallets: w.stores.wallets, chain: w.gateway, ledger: w.stores.ledger, ids: w.stores.ids });
    await booker.catchUp(0, 50);
    const rewards = (await w.stores.ledger.entries(w.userId, { causeType: STAKING_REWARD_CAUSE }, { offset: 0, limit: 100 })).items;
    const reward = rewards.find((e) => e.account.kind === 'custodial')?.amount ?? 0n;
    expect(reward).toBeGreaterThan(0n);
    const balances = new Map((await w.stores.ledger.balancesAt(w.userId, w.clock.now() + 3_600_000)).map((b) => [ledgerAccountKey(b.account), b.balance]));
    const booked = (account: Parameters<typeof ledgerAccountKey>[0]) => balances.get(ledgerAccountKey(account)) ?? 0n;
    const resources = await w.gateway.getResources(address);
    expect({
      liquid: booked(custodialAccount('TRON', 'TRX', address)), staked: booked(stakeAccount('staked', 'TRON', 'TRX', address)),
      unstaking: booked(stakeAccount('unstaking', 'TRON', 'TRX', address)), received: -booked(holderAccount('external_in', 'TRON', 'TRX')),
    }).toEqual({
      liquid: await w.gateway.getTrxBalance(address), staked: resources.energy.stakedSun, unstaking: (resources.unstakingSun ?? 0n) + resources.withdrawableSun,
      received: opening + reward,
    });
    expect({ staked: booked(stakeAccount('staked', 'TRON', 'TRX', address)), unstaking: booked(stakeAccount('unstaking', 'TRON', 'TRX', address)) })
      .toEqual({ staked: 150n * TRX, unstaking: 0n });
  });

  it('on top of booked stake, stake made behind the books\' back is explained by its own amount only', async () => {
    world = await buildWorkerWorld({ stakeTrx: 0n, liquidTrx: 500n });
    const w = world;
    const main = w.main.address;
    const opening = await w.gateway.getTrxBalance(main);
    await w.stores.ledger.post({ transactionId: 'open', userId: w.userId, occurredAt: w.clock.now(), reverses: null, cause: { type: 'deposit', id: 'open' },
      lines: [{ account: holderAccount('external_in', 'TRON', 'TRX'), amount: -opening }, { account: custodialAccount('TRON', 'TRX', main), amount: opening }] });
    const executor = new CommandExecutor({ ...w.stores, chain: w.gateway, cipher: w.cipher, assets: w.assets });
    const stake = await w.stake(main, 'STAKE', 'ENERGY', 100n * TRX);
    await driveUntil(w, [executor], () => ended(w.stores, stake.commandNo));
    const booker = new StakingLedgerBooker({ commands: w.stores.commands, wallets: w.stores.wallets, chain: w.gateway, ledger: w.stores.ledger, ids: w.stores.ids });
    expect(await booker.book(stake.commandNo)).toBe('booked');
    const reconciliation = new LedgerReconciliation({ ...w.stores, chain: w.gateway, assets: w.assets });
    const mainTrx = async () => (await reconciliation.user(w.userId)).find((l) => l.address === main && l.assetSymbol === 'TRX')!;
    expect((await mainTrx()).judgement.status).toBe('matched');
    // 30 TRX more go into stake with no command: the books hold 100 in stake, the chain 130.
    await w.gateway.broadcast(await w.gateway.prepare(w.main, { kind: 'freeze', resource: 'BANDWIDTH', amountSun: 30n * TRX }));
    w.devnet.mine(1);
    expect((await mainTrx()).judgement).toEqual({
      status: 'explained', difference: -30n * TRX, explained: [{ reason: 'staked', amount: -30n * TRX }], unexplained: 0n, stakeUnexplained: { staked: 0n, unstaking: 0n },
    });
  });

  it('stake behind the books\' back with the liquid balance matching is a discrepancy, reported by the job after two passes (issue #36)', async () => {
    world = await buildWorkerWorld({ stakeTrx: 0n, liquidTrx: 500n });
    const w = world;
    const main = w.main.address;
    const opening = await w.gateway.getTrxBalance(main);
    await w.stores.ledger.post({ transactionId: 'open', userId: w.userId, occurredAt: w.clock.now(), reverses: null, cause: { type: 'deposit', id: 'open' },
      lines: [{ account: holderAccount('external_in', 'TRON', 'TRX'), amount: -opening }, { account: custodialAccount('TRON', 'TRX', main), amount: opening }] });
    const executor = new CommandExecutor({ ...w.stores, chain: w.gateway, cipher: w.cipher, assets: w.assets });
    const stake = await w.stake(main, 'STAKE', 'ENERGY', 100n * TRX);
    await driveUntil(w, [executor], () => ended(w.stores, stake.commandNo));
    const booker = new StakingLedgerBooker({ commands: w.stores.commands, wallets: w.stores.wallets, chain: w.gateway, ledger: w.stores.ledger, ids: w.stores.ids });
    expect(await booker.book(stake.commandNo)).toBe('booked');
    const job = new LedgerReconciliationJob({ ...w.stores, chain: w.gateway, assets: w.assets, clock: w.clock, operatorStatus: new MemoryOperatorStatusStore() }, { everyMs: 0 });
    expect((await job.runPass()).standing).toEqual([]);
    // 30 TRX arrive unseen (minted, no transfer) and go into stake with no command: the liquid balance still equals the
    // books (free bandwidth: the freeze burns nothing), the chain's stake is 130 against the books' 100.
    w.devnet.fund(main, 30n * TRX);
    await w.gateway.broadcast(await w.gateway.prepare(w.main, { kind: 'freeze', resource: 'BANDWIDTH', amountSun: 30n * TRX }));
    w.devnet.mine(1);
    const first = await job.runPass();
    expect({ standing: first.standing, reported: first.reported }).toEqual({ standing: [], reported: [] });
    const second = await job.runPass();
    expect(second.reported.map((l) => [l.address, l.assetSymbol, l.chain - l.ledger, l.judgement.status, l.judgement.stakeUnexplained, l.stake]))
      .toEqual([[main, 'TRX', 0n, 'discrepancy', { staked: 30n * TRX, unstaking: 0n },
        { ledgerStaked: 100n * TRX, chainStaked: 130n * TRX, ledgerUnstaking: 0n, chainUnstaking: 0n }]]);
    // Unstaking 40 behind the books' back moves it from staked to unstaking on chain only: both differ from the books
    // (its fee, burnt now that the free bandwidth is spent, is a liquid difference beside them).
    await w.gateway.broadcast(await w.gateway.prepare(w.main, { kind: 'unfreeze', resource: 'ENERGY', amountSun: 40n * TRX }));
    w.devnet.mine(1);
    const line = (await new LedgerReconciliation({ ...w.stores, chain: w.gateway, assets: w.assets }).user(w.userId)).find((l) => l.address === main && l.assetSymbol === 'TRX')!;
    expect(line.judgement).toMatchObject({ status: 'discrepancy', stakeUnexplained: { staked: -10n * TRX, unstaking: 40n * TRX } });
  });
});
