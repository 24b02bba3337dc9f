import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildTestCore, startTestDevnet, type TestCore } from '../../adapters/memory/testing/memory-test-core.js';
import type { Devnet } from '../../adapters/tron-devnet/index.js';
import { cacheBalances } from './testing/cached-balances.js';
import { failureOf, rejectionOf, userWithWallets, type UserWithWallets } from './testing/user-journeys.js';

let devnet: Devnet;
beforeAll(async () => { devnet = await startTestDevnet(); });
afterAll(async () => { await devnet.close(); });

const MINUTE = 60_000;
const iso = (minutes: number) => new Date(Date.UTC(2026, 0, 1) + minutes * MINUTE).toISOString().replace('.000Z', '+00:00');

describe('cashier tokens (spec §4 management, §3 states)', () => {
  let core: TestCore;
  let user: UserWithWallets;
  beforeEach(async () => {
    core = buildTestCore(devnet);
    user = await userWithWallets(core.app, core.readCode, 'merchant@example.com', 2);
  });

  it('creates an active ct_ token (default TTL 60) shown once; the list omits the value', async () => {
    const { app, stores } = core;
    const created = await app.cashierTokens.create(user.userId, { address: user.subs[0]! });
    expect(created).toEqual({
      token_no: expect.any(String), token: expect.stringMatching(/^ct_.{40,}$/), wallet_address_id: expect.any(Number),
      address: user.subs[0]!, network_code: 'TRON', status: 'active', ttl_minutes: 60, expires_at: iso(60),
      disabled_at: null, disable_reason: null, created_at: iso(0),
    });
    const list = await app.cashierTokens.list(user.userId, {});
    const { token: _shownOnce, ...withoutValue } = created;
    expect(list).toEqual({ data: [withoutValue], meta: { current_page: 1, per_page: 15, total: 1, last_page: 1 } });
    expect(JSON.stringify([...stores.store.cashierTokens.values()], (_k, v) => (typeof v === 'bigint' ? String(v) : v))).not.toContain(created.token);
  });

  it('accepts exactly the TTLs 60, 120, 480 and 1440', async () => {
    const { app } = core;
    for (const [i, ttl] of [60, 120, 480, 1440].entries()) {
      const subject = i % 2 === 0 ? user.subs[0]! : user.subs[1]!;
      const created = await app.cashierTokens.create(user.userId, { address: subject, ttl_minutes: ttl });
      expect([created.ttl_minutes, created.expires_at]).toEqual([ttl, iso(ttl)]);
      await app.cashierTokens.disable(user.userId, created.token_no, {});
    }
    for (const ttl of [0, 30, 61, 1441, '60', 60.5]) {
      expect(await failureOf(app.cashierTokens.create(user.userId, { address: user.subs[0]!, ttl_minutes: ttl })))
        .toEqual({ code: 'VALIDATION-ERROR' });
    }
  });

  it('one active token per address: 409 CASHIER-TOKEN-ACTIVE-EXISTS; after disable or expiry a new one is allowed', async () => {
    const { app, clock } = core;
    const first = await app.cashierTokens.create(user.userId, { address: user.subs[0]! });
    expect(await failureOf(app.cashierTokens.create(user.userId, { address: user.subs[0]! })))
      .toEqual({ code: 'CASHIER-TOKEN-ACTIVE-EXISTS' });
    expect((await app.cashierTokens.create(user.userId, { address: user.subs[1]! })).status).toBe('active');
    await app.cashierTokens.disable(user.userId, first.token_no, { reason: 'paid' });
    const second = await app.cashierTokens.create(user.userId, { address: user.subs[0]! });
    clock.advance(60 * MINUTE);
    expect((await app.cashierTokens.create(user.userId, { address: user.subs[0]! })).token_no).not.toBe(second.token_no);
  });

  it('parallel creations on one address make exactly one active token', async () => {
    const results = await Promise.allSettled(Array.from({ length: 10 }, () =>
      core.app.cashierTokens.create(user.userId, { address: user.subs[0]! })));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const r of results) if (r.status === 'rejected') expect(r.reason).toMatchObject({ code: 'CASHIER-TOKEN-ACTIVE-EXISTS' });
  });

  it('refuses a main address, an unknown or foreign address with the 422 codes', async () => {
    const { app, readCode } = core;
    expect(await failureOf(app.cashierTokens.create(user.userId, { address: user.main }))).toEqual({ code: 'BIZ-ADDRESS-TYPE-NOT-SUB' });
    const other = await userWithWallets(app, readCode, 'other@example.com', 1);
    for (const address of [other.subs[0]!, 'TUnknown']) {
      expect(await failureOf(app.cashierTokens.create(user.userId, { address }))).toEqual({ code: 'BIZ-WALLET-ADDRESS-NOT-FOUND' });
    }
  });

  it('disable: active → disabled with time and reason; again 409; unknown or foreign 404', async () => {
    const { app, clock, readCode } = core;
    const created = await app.cashierTokens.create(user.userId, { address: user.subs[0]! });
    clock.advance(MINUTE);
    expect(await app.cashierTokens.disable(user.userId, created.token_no, { reason: 'paid' }))
      .toEqual({ token_no: created.token_no, status: 'disabled', disabled_at: iso(1), disable_reason: 'paid' });
    expect(await failureOf(app.cashierTokens.disable(user.userId, created.token_no, {}))).toEqual({ code: 'CASHIER-TOKEN-ALREADY-DISABLED' });
    const other = await userWithWallets(app, readCode, 'thief@example.com', 0);
    const fresh = await app.cashierTokens.create(user.userId, { address: user.subs[1]! });
    expect(await failureOf(app.cashierTokens.disable(other.userId, fresh.token_no, {}))).toEqual({ code: 'CASHIER-TOKEN-NOT-FOUND' });
    expect(await failureOf(app.cashierTokens.disable(user.userId, 'CT-unknown', {}))).toEqual({ code: 'CASHIER-TOKEN-NOT-FOUND' });
    expect((await app.cashierTokens.list(user.userId, {})).data.find((t) => t.token_no === fresh.token_no)?.status).toBe('active');
  });
});

describe('cashier payment API', () => {
  let core: TestCore;
  let user: UserWithWallets;
  let token: string;
  beforeEach(async () => {
    core = buildTestCore(devnet);
    user = await userWithWallets(core.app, core.readCode, 'shop@example.com', 1);
    token = (await core.app.cashierTokens.create(user.userId, { address: user.subs[0]!, ttl_minutes: 60 })).token;
  });
  const ctx = () => core.app.cashier.authenticateCashier(token);

  it('authentication: missing 401 CASHIER-TOKEN-MISSING; unknown, other prefixes, disabled, expired 401 CASHIER-TOKEN-INVALID', async () => {
    const { app, clock } = core;
    for (const missing of [null, '']) {
      expect(await failureOf(app.cashier.authenticateCashier(missing))).toEqual({ code: 'CASHIER-TOKEN-MISSING' });
    }
    for (const wrong of ['ct_unknown', 'dk_whatever', token.slice(0, -2)]) {
      expect(await failureOf(app.cashier.authenticateCashier(wrong))).toEqual({ code: 'CASHIER-TOKEN-INVALID' });
    }
    clock.advance(60 * MINUTE - 1);
    expect((await ctx()).token.address).toBe(user.subs[0]);
    clock.advance(1);
    expect(await failureOf(ctx())).toEqual({ code: 'CASHIER-TOKEN-INVALID' });
  });

  it('a disabled token is invalid', async () => {
    const [listed] = (await core.app.cashierTokens.list(user.userId, {})).data;
    await core.app.cashierTokens.disable(user.userId, listed!.token_no, {});
    expect(await failureOf(ctx())).toEqual({ code: 'CASHIER-TOKEN-INVALID' });
  });

  it('session shows the address, minimums as strings and no task; each successful call slides the expiry', async () => {
    const { app, clock } = core;
    await app.subscriptions.putConfig(user.userId, { service_code: 'developer', config: { min_collect_amounts: { USDT: '1000000' } } });
    clock.advance(30 * MINUTE);
    const session = await app.cashier.session(await ctx());
    expect(session).toEqual({
      token_no: expect.any(String), expires_at: iso(90), min_collect_amounts: { USDT: '1000000' },
      address: { wallet_address_id: expect.any(Number), address: user.subs[0]!, network_code: 'TRON', address_label: null },
      active_task: null,
    });
    clock.advance(59 * MINUTE);
    expect((await app.cashier.balance(await ctx())).address).toBe(user.subs[0]);
    clock.advance(59 * MINUTE);
    expect(await app.cashier.task(await ctx())).toBeNull();
    expect((await ctx()).token.expiresAt).toBe(Date.parse(iso(148 + 60)));
    clock.advance(60 * MINUTE);
    expect(await failureOf(ctx())).toEqual({ code: 'CASHIER-TOKEN-INVALID' });
  });

  it('a failed call leaves the expiry where it was', async () => {
    const { app, clock } = core;
    clock.advance(30 * MINUTE);
    expect(await failureOf(app.cashier.collect(await ctx(), { asset_symbol: 'DOGE' }))).toEqual({ code: 'BIZ-ASSET-NOT-FOUND' });
    clock.advance(30 * MINUTE);
    expect(await failureOf(ctx())).toEqual({ code: 'CASHIER-TOKEN-INVALID' });
  });

  it('balance: cached values with ISO timestamps, the running collection held as balance_locked', async () => {
    const { app } = core;
    devnet.fundToken(user.subs[0]!, 3_000_000n);
    await app.wallets.refresh(user.userId, user.subs[0]!, {});
    const before = await app.cashier.balance(await ctx());
    expect(before.items).toEqual([
      { symbol: 'TRX', balance_available: '0', balance_locked: '0', balance_updated_at: iso(0) },
      { symbol: 'USDT', balance_available: '3000000', balance_locked: '0', balance_updated_at: iso(0) },
    ]);
    expect(before.balance_updated_at).toBe(iso(0));
    await app.cashier.collect(await ctx(), { asset_symbol: 'USDT' });
    const during = await app.cashier.balance(await ctx());
    expect(during.items.find((i) => i.symbol === 'USDT')).toMatchObject({ balance_available: '0', balance_locked: '3000000' });
    // The payer's view of the same: nothing to offer while the collection holds it.
    const offered = await app.cashier.collectable(await ctx());
    expect(offered).toEqual({ ...during, items: during.items.map((i) => ({ ...i, balance_collectable: '0' })) });
  });

  it('collectable (extension, issue #24 item 5): the balance with what a collection would move; dust is 0; the expiry slides', async () => {
    const { app, clock, stores } = core;
    const shown = async () => (await app.cashier.collectable(await ctx())).items.map((i) => [i.symbol, i.balance_available, i.balance_collectable]);
    const cache = async (amounts: { TRX?: bigint; USDT?: bigint }) => {
      clock.advance(1_000);
      await cacheBalances({ balances: stores.balances, clock }, user.subs[0]!, amounts);
    };
    await cache({ TRX: 1n });
    expect(await shown()).toEqual([['TRX', '1', '0'], ['USDT', '0', '0']]);
    await cache({ TRX: 99_999n, USDT: 1n });
    expect(await shown()).toEqual([['TRX', '99999', '0'], ['USDT', '1', '1']]);
    await cache({ TRX: 100_000n, USDT: 10_500_000n });
    expect(await shown()).toEqual([['TRX', '100000', '100000'], ['USDT', '10500000', '10500000']]);
    // Read through the developer's list, which does not slide: the last collectable read did.
    const [listed] = (await app.cashierTokens.list(user.userId, {})).data;
    expect(listed!.expires_at).toBe(new Date(clock.now() + 60 * MINUTE).toISOString().replace('.000Z', '+00:00'));
  });

  /** A real deposit on the devnet, then the cached balance refreshed (what the scanner does a block later). */
  const deposit = async (symbol: 'TRX' | 'USDT', amount: bigint): Promise<void> => {
    if (symbol === 'TRX') devnet.fund(user.subs[0]!, amount);
    else devnet.fundToken(user.subs[0]!, amount);
    await core.app.wallets.refresh(user.userId, user.subs[0]!, { force: true });
  };

  it('collect: 201 task (ISO times, no error_code); while it runs the session has an active_task and another collect is 409', async () => {
    const { app, clock } = core;
    await deposit('TRX', 5_000_000n);
    clock.advance(MINUTE);
    const task = await app.cashier.collect(await ctx(), { asset_symbol: 'TRX' });
    expect(task).toEqual({
      task_no: expect.any(String), command_no: expect.any(String), status: 1, last_error: null, started_at: iso(1), finished_at: null,
    });
    expect((await app.cashier.session(await ctx())).active_task).toEqual(task);
    expect(await app.cashier.task(await ctx())).toEqual(task);
    expect(await failureOf(app.cashier.collect(await ctx(), { asset_symbol: 'TRX' }))).toEqual({ code: 'BIZ-COMMAND-LOCKED' });
    expect(await failureOf(app.cashier.collect(await ctx(), { asset_symbol: 'USDT' }))).toEqual({ code: 'BIZ-COMMAND-LOCKED' });
    expect(await app.collections.get(user.userId, task.task_no)).toMatchObject({ task_no: task.task_no, status: 1 });
  });

  it('once the latest task is terminal the payer may collect again; active_task shows the latest task (docs/decisions.md 44)', async () => {
    const { app, clock } = core;
    await deposit('TRX', 5_000_000n);
    const first = await app.cashier.collect(await ctx(), { asset_symbol: 'TRX' });
    await app.admin.cancelCommand(first.command_no);
    expect((await app.cashier.session(await ctx())).active_task).toMatchObject({ task_no: first.task_no, status: 12 });
    clock.advance(MINUTE);
    const second = await app.cashier.collect(await ctx(), { asset_symbol: 'TRX' });
    expect(second.task_no).not.toBe(first.task_no);
    expect((await app.cashier.session(await ctx())).active_task).toEqual(second);
    expect(await app.cashier.task(await ctx())).toEqual(second);
    expect(await failureOf(app.cashier.collect(await ctx(), { asset_symbol: 'TRX' }))).toEqual({ code: 'BIZ-COMMAND-LOCKED' });
  });

  it('a zero balance is 422 BIZ-AMOUNT-BELOW-MINIMUM with no minimum configured, and no task or command is made', async () => {
    const { app } = core;
    for (const symbol of ['TRX', 'USDT']) {
      expect(await failureOf(app.cashier.collect(await ctx(), { asset_symbol: symbol }))).toEqual({ code: 'BIZ-AMOUNT-BELOW-MINIMUM' });
    }
    // A balance of the other asset does not count.
    await deposit('TRX', 1_000_000n);
    expect(await failureOf(app.cashier.collect(await ctx(), { asset_symbol: 'USDT' }))).toEqual({ code: 'BIZ-AMOUNT-BELOW-MINIMUM' });
    expect(core.stores.store.tasks.size).toBe(0);
    expect(await app.cashier.task(await ctx())).toBeNull();
    expect((await app.cashier.collect(await ctx(), { asset_symbol: 'TRX' })).status).toBe(1);
  });

  it('a collection started by the wallet API on the address is a 409 for the payer too', async () => {
    const { app } = core;
    await deposit('USDT', 1_000_000n);
    await app.collections.create(user.userId, { address: user.subs[0]!, asset_symbol: 'USDT' });
    expect(await failureOf(app.cashier.collect(await ctx(), { asset_symbol: 'USDT' }))).toEqual({ code: 'BIZ-COMMAND-LOCKED' });
  });

  it('dust is 422 BIZ-AMOUNT-BELOW-MINIMUM whatever the merchant minimum: it counts toward no threshold', async () => {
    const { app, clock, stores } = core;
    // A merchant minimum under what a TRX sweep must net does not let dust through.
    await app.subscriptions.putConfig(user.userId, { service_code: 'developer', config: { min_collect_amounts: { TRX: '50000' } } });
    for (const trx of [1n, 60_000n, 99_999n]) {
      clock.advance(1_000);
      await cacheBalances({ balances: stores.balances, clock }, user.subs[0]!, { TRX: trx });
      expect(await rejectionOf(app.cashier.collect(await ctx(), { asset_symbol: 'TRX' })))
        .toMatchObject({ code: 'BIZ-AMOUNT-BELOW-MINIMUM', message: expect.stringContaining(`the address holds ${trx}`) });
    }
    expect(stores.store.tasks.size).toBe(0);
    expect((await app.commands.list(user.userId, {})).pagination.total).toBe(0);
    expect(await app.cashier.task(await ctx())).toBeNull();
    clock.advance(1_000);
    await cacheBalances({ balances: stores.balances, clock }, user.subs[0]!, { TRX: 100_000n });
    expect((await app.cashier.collect(await ctx(), { asset_symbol: 'TRX' })).status).toBe(1);
  });

  it('below the merchant minimum is 422 BIZ-AMOUNT-BELOW-MINIMUM; at the minimum it starts', async () => {
    const { app } = core;
    await app.subscriptions.putConfig(user.userId, { service_code: 'developer', config: { min_collect_amounts: { USDT: '2000000' } } });
    devnet.fundToken(user.subs[0]!, 1_999_999n);
    await app.wallets.refresh(user.userId, user.subs[0]!, {});
    expect(await failureOf(app.cashier.collect(await ctx(), { asset_symbol: 'USDT' }))).toEqual({ code: 'BIZ-AMOUNT-BELOW-MINIMUM' });
    devnet.fundToken(user.subs[0]!, 1n);
    await app.wallets.refresh(user.userId, user.subs[0]!, { force: true });
    expect((await app.cashier.collect(await ctx(), { asset_symbol: 'USDT' })).status).toBe(1);
  });

  it('a deny-listed address is 403 RISK-REVIEW-BLOCKED for the payer (before the balance is looked at)', async () => {
    await core.app.admin.denyRisk({ kind: 'address', value: user.subs[0]! });
    expect(await failureOf(core.app.cashier.collect(await ctx(), { asset_symbol: 'TRX' }))).toEqual({ code: 'RISK-REVIEW-BLOCKED' });
  });

  it('parallel collects with one token start exactly one task', async () => {
    await deposit('TRX', 5_000_000n);
    const context = await ctx();
    const results = await Promise.allSettled(Array.from({ length: 10 }, () => core.app.cashier.collect(context, { asset_symbol: 'TRX' })));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const r of results) if (r.status === 'rejected') expect(r.reason).toMatchObject({ code: 'BIZ-COMMAND-LOCKED' });
    expect(core.stores.store.tasks.size).toBe(1);
  });
});
