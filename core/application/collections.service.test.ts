import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildTestCore, startTestDevnet, type TestCore } from '../../adapters/memory/testing/memory-test-core.js';
import type { Devnet } from '../../adapters/tron-devnet/index.js';
import { cacheBalances } from './testing/cached-balances.js';
import { failureOf, userWithWallets, type UserWithWallets } from './testing/user-journeys.js';

let devnet: Devnet;
beforeAll(async () => { devnet = await startTestDevnet(); });
afterAll(async () => { await devnet.close(); });

// Wallet-side timestamps are 'YYYY-MM-DD HH:MM:SS' UTC (DESIGN.md); the cashier endpoints use ISO 8601.
const PENDING = 1;
const COLLECTION = 3;

/** Cached balances a collection accepts on each address (a test about something else than dust). */
const collectable = (core: TestCore, ...addresses: string[]): Promise<unknown> =>
  Promise.all(addresses.map((address) => cacheBalances({ balances: core.stores.balances, clock: core.clock }, address)));

describe('collections (spec §4 POST/GET /collections)', () => {
  let core: TestCore;
  let user: UserWithWallets;
  beforeEach(async () => {
    core = buildTestCore(devnet);
    user = await userWithWallets(core.app, core.readCode, 'collect@example.com', 2);
  });

  it('create → a PENDING task with its COLLECTION command; the command holds the cached balance as balance_locked', async () => {
    const { app } = core;
    const sub = user.subs[0]!;
    devnet.fundToken(sub, 25_000_000n);
    await app.wallets.refresh(user.userId, sub, {});
    const task = await app.collections.create(user.userId, { address: sub, asset_symbol: 'USDT' });
    expect(task).toEqual({
      task_no: expect.any(String), command_no: expect.any(String), status: PENDING, error_code: null, last_error: null,
      started_at: '2026-01-01 00:00:00', finished_at: null,
    });
    expect(await app.collections.get(user.userId, task.task_no)).toEqual(task);
    expect(await app.commands.get(user.userId, task.command_no)).toMatchObject({ command_no: task.command_no, type: COLLECTION, status: PENDING });
    const balances = await app.wallets.balances(user.userId, sub);
    const usdt = balances.items.find((i) => i.symbol === 'USDT')!;
    expect([usdt.balance_available, usdt.balance_locked]).toEqual(['0', '25000000']);
    expect(balances.items.find((i) => i.symbol === 'TRX')!.balance_locked).toBe('0');
    const stored = await core.stores.tasks.get(task.task_no);
    expect(stored).toMatchObject({ address: sub, mainAddress: user.main, assetSymbol: 'USDT', userId: user.userId });
  });

  it('a second collection on the locked address is 409 BIZ-COMMAND-LOCKED, whatever the asset; another address is free', async () => {
    const { app } = core;
    await collectable(core, ...user.subs);
    await app.collections.create(user.userId, { address: user.subs[0]!, asset_symbol: 'USDT' });
    expect(await failureOf(app.collections.create(user.userId, { address: user.subs[0]!, asset_symbol: 'USDT' })))
      .toEqual({ code: 'BIZ-COMMAND-LOCKED' });
    expect(await failureOf(app.collections.create(user.userId, { address: user.subs[0]!, asset_symbol: 'TRX' })))
      .toEqual({ code: 'BIZ-COMMAND-LOCKED' });
    expect((await app.collections.create(user.userId, { address: user.subs[1]!, asset_symbol: 'TRX' })).status).toBe(PENDING);
  });

  it('refuses with the spec codes: main address, unknown or foreign address (422), unknown asset', async () => {
    const { app, readCode } = core;
    expect(await failureOf(app.collections.create(user.userId, { address: user.main, asset_symbol: 'USDT' })))
      .toEqual({ code: 'BIZ-ADDRESS-TYPE-NOT-SUB' });
    expect(await failureOf(app.collections.create(user.userId, { address: 'TNoSuchAddress', asset_symbol: 'USDT' })))
      .toEqual({ code: 'BIZ-WALLET-ADDRESS-NOT-FOUND' });
    const other = await userWithWallets(app, readCode, 'other@example.com', 1);
    expect(await failureOf(app.collections.create(user.userId, { address: other.subs[0]!, asset_symbol: 'USDT' })))
      .toEqual({ code: 'BIZ-WALLET-ADDRESS-NOT-FOUND' });
    expect(await failureOf(app.collections.create(user.userId, { address: user.subs[0]!, asset_symbol: 'DOGE' })))
      .toEqual({ code: 'BIZ-ASSET-NOT-FOUND' });
    expect(await failureOf(app.collections.create(user.userId, { address: user.subs[0]! })))
      .toEqual({ code: 'VALIDATION-ERROR' });
    expect((await app.commands.list(user.userId, {})).pagination.total).toBe(0);
  });

  it('another user\'s task and command are not found', async () => {
    const { app, readCode } = core;
    await collectable(core, user.subs[0]!);
    const task = await app.collections.create(user.userId, { address: user.subs[0]!, asset_symbol: 'USDT' });
    const other = await userWithWallets(app, readCode, 'nosy@example.com', 0);
    expect(await failureOf(app.collections.get(other.userId, task.task_no))).toEqual({ code: 'BIZ-COLLECTION-TASK-NOT-FOUND' });
    expect(await failureOf(app.collections.get(user.userId, 'K-unknown'))).toEqual({ code: 'BIZ-COLLECTION-TASK-NOT-FOUND' });
    expect(await failureOf(app.commands.get(other.userId, task.command_no))).toEqual({ code: 'BIZ-COMMAND-NOT-FOUND' });
    expect((await app.commands.list(other.userId, {})).items).toEqual([]);
  });

  it('a deny-listed user or address is 403 RISK-REVIEW-BLOCKED, recorded as a REJECTED command; allowing lifts it', async () => {
    const { app } = core;
    await collectable(core, ...user.subs);
    await app.admin.denyRisk({ kind: 'address', value: user.subs[0]!, reason: 'sanctions hit' });
    expect(await app.admin.listRisk()).toEqual([{ kind: 'address', value: user.subs[0]!, reason: 'sanctions hit' }]);
    expect(await failureOf(app.collections.create(user.userId, { address: user.subs[0]!, asset_symbol: 'USDT' })))
      .toEqual({ code: 'RISK-REVIEW-BLOCKED' });
    const [rejected] = (await app.commands.list(user.userId, {})).items;
    expect(rejected).toMatchObject({ type: COLLECTION, status: 5, error_code: 'RISK-REVIEW-BLOCKED' });
    expect(await app.admin.allowRisk({ kind: 'address', value: user.subs[0]! })).toEqual({ removed: true });
    expect(await app.admin.allowRisk({ kind: 'address', value: user.subs[0]! })).toEqual({ removed: false });
    await app.admin.denyRisk({ kind: 'user', value: String(user.userId) });
    expect(await failureOf(app.collections.create(user.userId, { address: user.subs[1]!, asset_symbol: 'TRX' })))
      .toEqual({ code: 'RISK-REVIEW-BLOCKED' });
    await app.admin.allowRisk({ kind: 'user', value: String(user.userId) });
    expect((await app.collections.create(user.userId, { address: user.subs[0]!, asset_symbol: 'USDT' })).status).toBe(PENDING);
  });

  it('parallel collections on one address: exactly one task, the others 409', async () => {
    const { app, stores } = core;
    await collectable(core, user.subs[0]!);
    const results = await Promise.allSettled(Array.from({ length: 12 }, () =>
      app.collections.create(user.userId, { address: user.subs[0]!, asset_symbol: 'USDT' })));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const r of results) if (r.status === 'rejected') expect(r.reason).toMatchObject({ code: 'BIZ-COMMAND-LOCKED' });
    const commands = await app.commands.list(user.userId, { type: '3' });
    expect(commands.pagination.total).toBe(1);
    expect(stores.store.tasks.size).toBe(1);
  });

  it('dust is refused before any task (issue #24 item 5): no USDT, 1 SUN or just under 0.1 TRX is 422 BIZ-AMOUNT-BELOW-MINIMUM; nothing is written', async () => {
    const { app, stores } = core;
    const sub = user.subs[0]!;
    const create = (asset_symbol: string) => app.collections.create(user.userId, { address: sub, asset_symbol });
    const refusalOf = async (asset_symbol: string) => create(asset_symbol).then(() => null, (e: unknown) => e);
    // Never refreshed: the cache holds nothing.
    expect(await refusalOf('USDT')).toMatchObject({ code: 'BIZ-AMOUNT-BELOW-MINIMUM', message: expect.stringContaining('holds no USDT') });
    // The 1 SUN a token sweep's activation funding leaves, and the last SUN under what a TRX sweep must net.
    for (const trx of [1n, 99_999n]) {
      await cacheBalances({ balances: stores.balances, clock: core.clock }, sub, { TRX: trx });
      core.clock.advance(1_000);
      expect(await refusalOf('TRX')).toMatchObject({
        code: 'BIZ-AMOUNT-BELOW-MINIMUM', message: expect.stringContaining(`at least 100000 after fees and the address holds ${trx}`),
      });
    }
    expect(stores.store.tasks.size).toBe(0);
    expect((await app.commands.list(user.userId, {})).pagination.total).toBe(0);
    expect(stores.store.events.size).toBe(0);
    // 0.1 TRX is swept; the address was never held.
    await cacheBalances({ balances: stores.balances, clock: core.clock }, sub, { TRX: 100_000n });
    expect((await create('TRX')).status).toBe(PENDING);
  });

  it('dust comes after the 403 and 409 checks: a deny-listed address is REJECTED, a locked one 409, whatever it holds', async () => {
    const { app } = core;
    await app.admin.denyRisk({ kind: 'address', value: user.subs[0]! });
    expect(await failureOf(app.collections.create(user.userId, { address: user.subs[0]!, asset_symbol: 'USDT' }))).toEqual({ code: 'RISK-REVIEW-BLOCKED' });
    await collectable(core, user.subs[1]!);
    await app.collections.create(user.userId, { address: user.subs[1]!, asset_symbol: 'USDT' });
    core.clock.advance(1_000);
    await cacheBalances({ balances: core.stores.balances, clock: core.clock }, user.subs[1]!, {});
    expect(await failureOf(app.collections.create(user.userId, { address: user.subs[1]!, asset_symbol: 'TRX' }))).toEqual({ code: 'BIZ-COMMAND-LOCKED' });
  });
});

describe('collection costs (extension GET /collections/{taskNo}/costs)', () => {
  it('zeros before a receipt; the recorded cost as SUN strings; final once terminal; another user\'s task is not found', async () => {
    const core = buildTestCore(devnet);
    const { app, stores } = core;
    const user = await userWithWallets(app, core.readCode, 'costs@example.com', 1);
    await collectable(core, user.subs[0]!);
    const task = await app.collections.create(user.userId, { address: user.subs[0]!, asset_symbol: 'USDT' });
    expect(await app.collections.costs(user.userId, task.task_no)).toEqual({
      task_no: task.task_no, asset_symbol: 'USDT', energy_path: null, provider: null, final: false, estimate: null,
      cost: {
        total_sun: '0', bandwidth_burned_sun: '0', energy_burned_sun: '0', activation_sun: '0', rental_sun: '0', lent_sun: '0',
        returned_sun: '0', txids: [],
      },
    });
    const stored = (await stores.tasks.get(task.task_no))!;
    await stores.tasks.update({
      ...stored, version: stored.version + 1, status: 11, finishedAt: 0, energyPath: 'self',
      cost: { bandwidthSun: 0n, energySun: 0n, activationSun: 1_100_000n, rentalSun: 0n, lentSun: 1n, returnedSun: 0n, txids: ['t1'] },
    });
    expect(await app.collections.costs(user.userId, task.task_no)).toMatchObject({
      energy_path: 'self', final: true, cost: { total_sun: '1100000', activation_sun: '1100000', lent_sun: '1', txids: ['t1'] },
    });
    const other = await userWithWallets(app, core.readCode, 'costs-nosy@example.com', 0);
    expect(await failureOf(app.collections.costs(other.userId, task.task_no))).toEqual({ code: 'BIZ-COLLECTION-TASK-NOT-FOUND' });
    expect(await failureOf(app.collections.costs(user.userId, 'K-unknown'))).toEqual({ code: 'BIZ-COLLECTION-TASK-NOT-FOUND' });
  });
});

describe('commands (spec §4 GET /commands)', () => {
  it('lists newest first with type/status filters and pagination; bad filters are VALIDATION-ERROR', async () => {
    const core = buildTestCore(devnet);
    const { app, clock } = core;
    const user = await userWithWallets(app, core.readCode, 'commands@example.com', 2);
    await collectable(core, ...user.subs);
    await app.wallets.refresh(user.userId, user.main, {});
    clock.advance(1_000);
    const first = await app.collections.create(user.userId, { address: user.subs[0]!, asset_symbol: 'USDT' });
    clock.advance(1_000);
    const second = await app.collections.create(user.userId, { address: user.subs[1]!, asset_symbol: 'TRX' });
    const all = await app.commands.list(user.userId, {});
    expect(all.items.map((c) => c.command_no).slice(0, 2)).toEqual([second.command_no, first.command_no]);
    expect(all.pagination).toEqual({ page: 1, per_page: 20, total: 3, pages: 1 });
    expect(all.items[0]).toEqual({
      command_no: second.command_no, type: COLLECTION, status: PENDING, error_code: null, last_error: null,
      started_at: null, finished_at: null, created_at: '2026-01-01 00:00:02',
    });
    expect((await app.commands.list(user.userId, { type: '1' })).items.map((c) => c.type)).toEqual([1]);
    expect((await app.commands.list(user.userId, { status: '3' })).items.map((c) => c.type)).toEqual([1]);
    const page = await app.commands.list(user.userId, { type: '3', per_page: '1', page: '2' });
    expect(page.items.map((c) => c.command_no)).toEqual([first.command_no]);
    for (const query of [{ type: '9' }, { status: '0' }, { per_page: '0' }, { page: 'x' }]) {
      expect(await failureOf(app.commands.list(user.userId, query))).toEqual({ code: 'VALIDATION-ERROR' });
    }
  });
});

describe('transfers (withdrawal commands)', () => {
  let core: TestCore;
  let user: UserWithWallets;
  let recipient: string;
  beforeEach(async () => {
    core = buildTestCore(devnet);
    user = await userWithWallets(core.app, core.readCode, 'withdraw@example.com', 1);
    recipient = (await core.chain.createAccount()).address;
  });
  const body = (overrides: Record<string, unknown> = {}) => ({
    from_address: user.main, to_address: recipient, asset_symbol: 'USDT', amount: '1500000', ...overrides,
  });

  it('creates a PENDING WITHDRAWAL command holding the amount; a second fund-moving command is 409', async () => {
    const { app } = core;
    const accepted = await app.transfers.create(user.userId, body());
    expect(accepted).toEqual({ command_no: expect.any(String), status: PENDING });
    expect(await app.commands.get(user.userId, accepted.command_no)).toMatchObject({ type: 2, status: PENDING });
    const usdt = (await app.wallets.balances(user.userId, user.main)).items.find((i) => i.symbol === 'USDT')!;
    expect(usdt.balance_locked).toBe('1500000');
    expect(await failureOf(app.transfers.create(user.userId, body({ asset_symbol: 'TRX', amount: '1' }))))
      .toEqual({ code: 'BIZ-COMMAND-LOCKED' });
  });

  it('refuses bad amounts, destinations, addresses and assets with their codes', async () => {
    const { app } = core;
    for (const amount of ['0', '-5', '1.5', 'abc', 12]) {
      expect(await failureOf(app.transfers.create(user.userId, body({ amount })))).toEqual({ code: 'BIZ-AMOUNT-INVALID' });
    }
    expect(await failureOf(app.transfers.create(user.userId, body({ to_address: 'not-an-address' })))).toEqual({ code: 'VALIDATION-ERROR' });
    expect(await failureOf(app.transfers.create(user.userId, body({ from_address: recipient, to_address: user.main }))))
      .toEqual({ code: 'BIZ-WALLET-ADDRESS-NOT-FOUND' });
    expect(await failureOf(app.transfers.create(user.userId, body({ asset_symbol: 'DOGE' })))).toEqual({ code: 'BIZ-ASSET-NOT-FOUND' });
    expect((await app.commands.list(user.userId, {})).pagination.total).toBe(0);
  });

  it('a deny-listed destination is 403 and the command is recorded REJECTED without holding funds', async () => {
    const { app } = core;
    await app.admin.denyRisk({ kind: 'address', value: recipient });
    expect(await failureOf(app.transfers.create(user.userId, body()))).toEqual({ code: 'RISK-REVIEW-BLOCKED' });
    const [rejected] = (await app.commands.list(user.userId, {})).items;
    expect(rejected).toMatchObject({ type: 2, status: 5, error_code: 'RISK-REVIEW-BLOCKED', finished_at: expect.any(String) });
    const usdt = (await app.wallets.balances(user.userId, user.main)).items.find((i) => i.symbol === 'USDT')!;
    expect(usdt.balance_locked).toBe('0');
    await app.admin.allowRisk({ kind: 'address', value: recipient });
    expect((await app.transfers.create(user.userId, body())).status).toBe(PENDING);
  });
});

describe('admin: cancel command', () => {
  it('cancels a PENDING withdrawal (status 6) and frees the address; terminal or unknown commands are refused', async () => {
    const core = buildTestCore(devnet);
    const { app } = core;
    const user = await userWithWallets(app, core.readCode, 'cancel@example.com', 0);
    const to = (await core.chain.createAccount()).address;
    const accepted = await app.transfers.create(user.userId, { from_address: user.main, to_address: to, asset_symbol: 'TRX', amount: '10' });
    const cancelled = await app.admin.cancelCommand(accepted.command_no);
    expect(cancelled).toMatchObject({ command_no: accepted.command_no, status: 6, finished_at: '2026-01-01 00:00:00' });
    expect(await failureOf(app.admin.cancelCommand(accepted.command_no))).toEqual({ code: 'BIZ-COMMAND-NOT-CANCELLABLE' });
    expect(await failureOf(app.admin.cancelCommand('C-unknown'))).toEqual({ code: 'BIZ-COMMAND-NOT-FOUND' });
    expect((await app.transfers.create(user.userId, { from_address: user.main, to_address: to, asset_symbol: 'TRX', amount: '10' })).status).toBe(PENDING);
  });

  it('cancels a PENDING collection: the task fails with CANCELLED and collection.failed is queued', async () => {
    const core = buildTestCore(devnet);
    const { app, stores } = core;
    const user = await userWithWallets(app, core.readCode, 'cancel-collect@example.com', 1);
    await collectable(core, user.subs[0]!);
    const task = await app.collections.create(user.userId, { address: user.subs[0]!, asset_symbol: 'USDT' });
    expect((await app.admin.cancelCommand(task.command_no)).status).toBe(6);
    expect(await app.collections.get(user.userId, task.task_no)).toMatchObject({ status: 12, error_code: 'BIZ-COMMAND-CANCELLED' });
    const events = [...stores.store.events.values()];
    expect(events.map((e) => e.eventType)).toEqual(['collection.failed']);
    expect((await app.collections.create(user.userId, { address: user.subs[0]!, asset_symbol: 'USDT' })).status).toBe(PENDING);
  });
});
