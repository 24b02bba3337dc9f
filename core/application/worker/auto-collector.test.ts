import { runs } from '../../../contracts-tests/support/depth.js';
import fc from 'fast-check';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildTestCore, startTestDevnet, type TestCore } from '../../../adapters/memory/testing/memory-test-core.js';
import type { Devnet } from '../../../adapters/tron-devnet/index.js';
import { createAssetRegistry } from '../../domain/assets.js';
import type { Deposit } from '../../domain/model/deposit.js';
import { DEFAULT_CORE_SETTINGS } from '../deps.js';
import { cacheBalances } from '../testing/cached-balances.js';
import { userWithWallets, type UserWithWallets } from '../testing/user-journeys.js';
import { AutoCollector, type AutoCollectorDeps, type SweepFeeQuote } from './auto-collector.js';
import { DepositRecorder } from './deposit-recorder.js';
import { randomBytes } from 'node:crypto';
import { AesGcmKeyCipher } from '../../../adapters/node/index.js';
import { SelfDelegationEnergyProvider } from '../../../adapters/tron/self-delegation-energy-provider.js';
import { CollectionExecutor, collectionStepSettings } from './collection-executor.js';
import { COLLECTION_STATUS } from '../../domain/model/collection-task.js';
import { plannedSweepCheck } from './sweep-fee-quote.js';

let devnet: Devnet;
beforeAll(async () => { devnet = await startTestDevnet(); });
afterAll(async () => { await devnet.close(); });

const RULE = { USDT: { min_amount: '10000000', max_fee_sun: '3000000' } };

describe('automatic collection (issue #24 item 4)', () => {
  let core: TestCore;
  let user: UserWithWallets;
  let sub: string;
  let transfers = 0;

  const depsWith = (sweepFee?: SweepFeeQuote): AutoCollectorDeps => ({
    risk: core.stores.risk, commands: core.stores.commands, clock: core.clock, ids: core.stores.ids, addressLock: core.addressLock,
    settings: DEFAULT_CORE_SETTINGS, balances: core.stores.balances, wallets: core.stores.wallets, uow: core.stores.uow,
    deposits: core.stores.deposits, developerConfigs: core.stores.developerConfigs, tasks: core.stores.tasks,
    assets: createAssetRegistry({ usdtContract: devnet.usdtAddress }), ...(sweepFee === undefined ? {} : { sweepFee }),
  });
  const recorder = () => new DepositRecorder({
    deposits: core.stores.deposits, uow: core.stores.uow, developerConfigs: core.stores.developerConfigs, clock: core.clock, ids: core.stores.ids,
  }, 'TRON');
  const setRule = (autoCollect: unknown) => core.app.subscriptions.putConfig(user.userId, { service_code: 'developer', config: { auto_collect: autoCollect } });

  /** A USDT transfer to the sub-address, seen then solidified: the recorder marks it due when a rule covers USDT. */
  async function confirmedDeposit(amount: bigint): Promise<Deposit> {
    transfers += 1;
    const id = `${transfers.toString(16).padStart(64, '0')}:log:0`;
    const transfer = { id, txid: id.slice(0, 64), contract: devnet.usdtAddress, internal: false, from: user.main, to: sub, amount };
    await recorder().record([{ kind: 'seen', transfer, block: 10, userId: user.userId, assetSymbol: 'USDT' }], 10);
    await recorder().record([{ kind: 'solidified', transferId: id }], 30);
    return (await core.stores.deposits.findByTransfer('TRON', id))!;
  }
  const tasksOn = async () => (await core.stores.commands.findActiveByAddress(sub)) === null ? 0 : 1;

  beforeEach(async () => {
    core = buildTestCore(devnet);
    user = await userWithWallets(core.app, core.readCode, `auto${Math.random()}@example.com`, 1);
    sub = user.subs[0]!;
    await core.app.subscriptions.activate(user.userId, { service_code: 'developer' });
  });

  it('a confirmation is marked due only when the owner has a rule for the asset; no rule, no trigger', async () => {
    expect((await confirmedDeposit(20_000_000n)).autoCollect).toBeUndefined();
    await setRule(RULE);
    const due = await confirmedDeposit(20_000_000n);
    expect(due).toMatchObject({ status: 'confirmed', autoCollect: 'due' });
    expect((await core.stores.deposits.listAutoCollectDue('TRON', 10)).map((d) => d.depositId)).toEqual([due.depositId]);
  });

  it('at or above min_amount: one collection, as POST /collections makes it; the trigger is started and judged no more', async () => {
    await setRule(RULE);
    const due = await confirmedDeposit(10_000_000n);
    await cacheBalances({ balances: core.stores.balances, clock: core.clock }, sub, { USDT: 10_000_000n });
    expect(await new AutoCollector(depsWith(), 'TRON').pass()).toEqual(['started']);
    const command = (await core.stores.commands.findActiveByAddress(sub))!;
    expect(command).toMatchObject({ type: 3, userId: user.userId, assetSymbol: 'USDT', lockedAmount: 10_000_000n });
    expect(await core.stores.tasks.get(String(command.params['task_no']))).toMatchObject({ address: sub, assetSymbol: 'USDT', status: 1 });
    expect((await core.stores.deposits.findById(due.depositId))!).toMatchObject({ autoCollect: 'started', autoCollectTask: command.params['task_no'] });
    // Issue #34: followed while its task runs, never a second collection.
    expect(await new AutoCollector(depsWith(), 'TRON').pass()).toEqual(['forwarding']);
    expect((await core.stores.commands.listByUser(user.userId, {}, { offset: 0, limit: 10 })).items).toHaveLength(1);
  });

  it('below min_amount (dust never counts) none: skipped; a held address: skipped, the running command stays alone', async () => {
    await setRule({ TRX: { min_amount: '1', max_fee_sun: '0' }, ...RULE });
    const small = await confirmedDeposit(9_999_999n);
    await cacheBalances({ balances: core.stores.balances, clock: core.clock }, sub, { USDT: 9_999_999n });
    expect(await new AutoCollector(depsWith(), 'TRON').pass()).toEqual(['below-minimum']);
    expect(await tasksOn()).toBe(0);
    expect((await core.stores.deposits.findById(small.depositId))!.autoCollect).toBe('skipped');

    await cacheBalances({ balances: core.stores.balances, clock: core.clock }, sub, { USDT: 50_000_000n });
    await core.app.collections.create(user.userId, { address: sub, asset_symbol: 'USDT' });
    const held = await confirmedDeposit(40_000_000n);
    expect(await new AutoCollector(depsWith(), 'TRON').pass()).toEqual(['locked']);
    expect((await core.stores.deposits.findById(held.depositId))!.autoCollect).toBe('skipped');
  });

  it('above max_fee_sun: waits (counted), stays due, and starts once the plan is cheap enough', async () => {
    await setRule(RULE);
    const due = await confirmedDeposit(20_000_000n);
    await cacheBalances({ balances: core.stores.balances, clock: core.clock }, sub, { USDT: 20_000_000n });
    let fee: bigint | null = 3_000_001n;
    const waits: (bigint | null)[] = [];
    const collector = new AutoCollector(depsWith(async () => fee), 'TRON', (_d, quoted) => waits.push(quoted));
    expect(await collector.pass()).toEqual(['waiting']);
    // It rests a minute before this process asks the chain again.
    fee = null;
    core.clock.advance(59_999);
    expect(await collector.pass()).toEqual([]);
    core.clock.advance(1);
    expect(await collector.pass()).toEqual(['waiting']);
    expect(waits).toEqual([3_000_001n, null]);
    expect(await tasksOn()).toBe(0);
    expect((await core.stores.deposits.findById(due.depositId))!.autoCollect).toBe('due');
    // Each wait in a row doubles the rest (1, 2, 4 min, … up to 10): a trigger that stays too dear costs few quotes.
    core.clock.advance(119_999);
    expect(await collector.pass()).toEqual([]);
    core.clock.advance(1);
    expect(await collector.pass()).toEqual(['waiting']);
    core.clock.advance(239_999);
    expect(await collector.pass()).toEqual([]);
    fee = 3_000_000n;
    core.clock.advance(1);
    expect(await collector.pass()).toEqual(['started']);
    expect(await tasksOn()).toBe(1);
  });

  // Issue #34: a trigger whose sweep has no energy source waits (never skipped), with the reason, and starts once one fits.
  it('no energy source (the planner\'s refusal before any task): waits with the reason, stays due, starts once the main address can pay', async () => {
    await setRule(RULE);
    const due = await confirmedDeposit(20_000_000n);
    devnet.fundToken(sub, 20_000_000n);
    devnet.mine(1);
    await cacheBalances({ balances: core.stores.balances, clock: core.clock }, sub, { USDT: 20_000_000n });
    const sweepCheck = plannedSweepCheck({
      chain: core.chain, clock: core.clock, wallets: core.stores.wallets, cipher: AesGcmKeyCipher.fromConfig(randomBytes(32).toString('base64')),
      energy: { self: new SelfDelegationEnergyProvider(core.chain) },
    }, collectionStepSettings({ burnEnabled: true }));
    const reasons: (string | null)[] = [];
    const collector = new AutoCollector({ ...depsWith(), sweepCheck }, 'TRON', (_d, fee, _cap, reason) => reasons.push(reason), 60_000);
    expect(await collector.pass()).toEqual(['waiting']);
    expect(reasons).toHaveLength(1);
    expect(reasons[0]).toMatch(/the main address holds 0 SUN.*To sweep, send at least \d+ TRX to the main address/);
    expect(collector.waiting()).toBe(1);
    expect(await tasksOn()).toBe(0);
    expect((await core.stores.deposits.findById(due.depositId))!.autoCollect).toBe('due');
    devnet.fund(user.main, 100_000_000);
    devnet.mine(1);
    core.clock.advance(60_000);
    expect(await collector.pass()).toEqual(['started']);
    expect(await tasksOn()).toBe(1);
  });

  // Issue #34 item 2: the rest after a wait is held in memory only; the trigger itself is the durable `due` mark, so a
  // restart (a new collector) loses nothing: it judges the trigger again at once instead of after the rest.
  it('a restart during the rest after a wait: the trigger is still due and the new process judges it at once', async () => {
    await setRule(RULE);
    await confirmedDeposit(20_000_000n);
    devnet.fundToken(sub, 20_000_000n);
    devnet.mine(1);
    await cacheBalances({ balances: core.stores.balances, clock: core.clock }, sub, { USDT: 20_000_000n });
    const sweepCheck = plannedSweepCheck({
      chain: core.chain, clock: core.clock, wallets: core.stores.wallets, cipher: AesGcmKeyCipher.fromConfig(randomBytes(32).toString('base64')),
      energy: { self: new SelfDelegationEnergyProvider(core.chain) },
    }, collectionStepSettings({ burnEnabled: true }));
    const collector = () => new AutoCollector({ ...depsWith(), sweepCheck }, 'TRON', () => {}, 3_600_000);
    const before = collector();
    expect(await before.pass()).toEqual(['waiting']);
    devnet.fund(user.main, 100_000_000);
    devnet.mine(1);
    core.clock.advance(1_000);
    // The process that saw it wait rests it (no quote) for the hour; the restarted one starts it now.
    expect(await before.pass()).toEqual([]);
    expect(await collector().pass()).toEqual(['started']);
    expect(await tasksOn()).toBe(1);
  });

  // Issue #34: the plan passed, then the task's own planning found no energy (a race): the trigger is due again.
  it('a started trigger whose task fails for want of energy with nothing sent: due again, rested, started again; any other end: let go', async () => {
    await setRule(RULE);
    const due = await confirmedDeposit(20_000_000n);
    devnet.fundToken(sub, 20_000_000n);
    devnet.fund(user.main, 100_000_000);
    devnet.mine(1);
    await cacheBalances({ balances: core.stores.balances, clock: core.clock }, sub, { USDT: 20_000_000n });
    const cipher = AesGcmKeyCipher.fromConfig(randomBytes(32).toString('base64'));
    const energy = { self: new SelfDelegationEnergyProvider(core.chain) };
    const sweepCheck = plannedSweepCheck({ chain: core.chain, clock: core.clock, wallets: core.stores.wallets, cipher, energy },
      collectionStepSettings({ burnEnabled: true }));
    const reasons: (string | null)[] = [];
    const collector = new AutoCollector({ ...depsWith(), sweepCheck }, 'TRON', (_d, _fee, _cap, reason) => reasons.push(reason), 60_000);
    // The task's planning when the energy is gone by then: no stake to lend, burning not allowed.
    const starved = () => new CollectionExecutor({
      ...core.stores, chain: core.chain, clock: core.clock, cipher, assets: createAssetRegistry({ usdtContract: devnet.usdtAddress }), energy,
    }, { burnEnabled: false });
    const commands = async () => (await core.stores.commands.listByUser(user.userId, {}, { offset: 0, limit: 10 })).items;

    expect(await collector.pass()).toEqual(['started']);
    const first = (await core.stores.deposits.findById(due.depositId))!.autoCollectTask!;
    await starved().runDue();
    expect(await core.stores.tasks.get(first)).toMatchObject({ status: COLLECTION_STATUS.FAILED, errorCode: 'BIZ-ENERGY-UNAVAILABLE' });
    expect(await collector.pass()).toEqual(['waiting']);
    const waiting = (await core.stores.deposits.findById(due.depositId))!;
    expect(waiting.autoCollect).toBe('due');
    expect(waiting).not.toHaveProperty('autoCollectTask');
    expect(reasons).toEqual([(await core.stores.tasks.get(first))!.lastError]);
    expect(collector.waiting()).toBe(1);
    // Rested like any wait, then started again by itself: a second collection only once the first is over.
    expect(await collector.pass()).toEqual([]);
    core.clock.advance(60_000);
    expect(await collector.pass()).toEqual(['started']);
    expect(await commands()).toHaveLength(2);
    expect(collector.waiting()).toBe(0);

    // The second task ends FAILED after a transaction was recorded (its funding went out): the trigger stays started.
    const second = (await core.stores.tasks.get((await core.stores.deposits.findById(due.depositId))!.autoCollectTask!))!;
    const funded = {
      status: COLLECTION_STATUS.FUNDING_TRX, orderRef: null, startedAt: core.clock.now(), completedAt: core.clock.now(),
      transaction: { txid: 'f'.repeat(64), signedJson: '{}', expiresAt: core.clock.now() + 60_000, broadcastAt: core.clock.now() },
    };
    await core.stores.tasks.update({
      ...second, status: COLLECTION_STATUS.FAILED, errorCode: 'BIZ-ENERGY-UNAVAILABLE', lastError: 'gone', steps: [funded],
      finishedAt: core.clock.now(), version: second.version + 1,
    } as typeof second);
    expect(await collector.pass()).toEqual(['followed']);
    expect((await core.stores.deposits.findById(due.depositId))!).toMatchObject({ autoCollect: 'started' });
    expect((await core.stores.deposits.findById(due.depositId))!).not.toHaveProperty('autoCollectTask');
    core.clock.advance(3_600_000);
    expect(await collector.pass()).toEqual([]);
    expect(await commands()).toHaveLength(2);
  });

  it('property: repeated and duplicated confirmations, 1-3 workers judging at once, crashes before the commit: at most one collection per trigger, exactly one when it is due and enough', async () => {
    await fc.assert(fc.asyncProperty(
      fc.integer({ min: 1, max: 3 }), fc.bigInt({ min: 0n, max: 30_000_000n }), fc.integer({ min: 1, max: 4 }), fc.boolean(),
      async (workers, amount, confirmations, crashFirst) => {
        core = buildTestCore(devnet);
        user = await userWithWallets(core.app, core.readCode, `p${Math.random()}@example.com`, 1);
        sub = user.subs[0]!;
        await core.app.subscriptions.activate(user.userId, { service_code: 'developer' });
        await setRule(RULE);
        const due = await confirmedDeposit(amount);
        // The same confirmation seen again (a redo, a second scanner) writes nothing and leaves one trigger.
        for (let i = 1; i < confirmations; i += 1) await recorder().record([{ kind: 'solidified', transferId: due.transferId }], 40);
        await cacheBalances({ balances: core.stores.balances, clock: core.clock }, sub, { USDT: amount });
        if (crashFirst) {
          // A worker that dies at the commit: nothing is written, the trigger stays due for the next pass.
          const crashing = depsWith();
          const dying = new AutoCollector({ ...crashing, uow: { commit: async () => { throw new Error('crash'); }, atomically: (work) => work() } }, 'TRON');
          await expect(dying.pass()).rejects.toThrow('crash');
        }
        const outcomes = (await Promise.all(Array.from({ length: workers }, () => new AutoCollector(depsWith(), 'TRON').pass()))).flat();
        const started = outcomes.filter((o) => o === 'started').length;
        const tasks = await tasksOn();
        expect(started).toBe(tasks);
        expect(tasks).toBe(amount >= 10_000_000n ? 1 : 0);
        expect((await core.stores.deposits.findById(due.depositId))!.autoCollect).toBe(tasks === 1 ? 'started' : 'skipped');
        // A started trigger is followed while its task runs (issue #34), never started again.
        expect(await new AutoCollector(depsWith(), 'TRON').pass()).toEqual(tasks === 1 ? ['forwarding'] : []);
      },
    ), { numRuns: runs(25) });
  });
});
