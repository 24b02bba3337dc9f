import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildTestCore, startTestDevnet, type TestCore } from '../../adapters/memory/testing/memory-test-core.js';
import type { Devnet } from '../../adapters/tron-devnet/index.js';
import { failureOf, signUp, subscribeAll, type SignedUpUser } from './testing/user-journeys.js';

let devnet: Devnet;
beforeAll(async () => { devnet = await startTestDevnet(); });
afterAll(async () => { await devnet.close(); });

const MAIN = { network_code: 'TRON', address_type: 1 } as const;
const SUB = { network_code: 'TRON', address_type: 2 } as const;

describe('wallets: creation rules (spec §4 POST /wallets)', () => {
  let core: TestCore;
  let user: SignedUpUser;
  beforeEach(async () => {
    core = buildTestCore(devnet);
    user = await signUp(core.app, core.readCode, 'wallets@example.com');
  });

  it('creates a main address (201 view) whose key is stored encrypted', async () => {
    const { app, stores } = core;
    const created = await app.wallets.create(user.userId, { ...MAIN, address_label: 'treasury' });
    expect(created).toEqual({ wallet_address_id: expect.any(Number), network_code: 'TRON', address: expect.stringMatching(/^T[1-9A-HJ-NP-Za-km-z]{33}$/), address_type: 1, status: 1 });
    expect(await app.wallets.get(user.userId, created.address)).toEqual({
      wallet_address_id: created.wallet_address_id, network_code: 'TRON', address: created.address, address_type: 1,
      address_label: 'treasury', status: 1, created_at: expect.any(String),
    });
    const stored = await stores.wallets.findByAddress(created.address);
    expect(stored?.encryptedKey.ciphertext).not.toMatch(/^[0-9a-f]{64}$/);
  });

  it('one main address per network: the second is 409 BIZ-MAIN-ADDRESS-ALREADY-EXISTS', async () => {
    await core.app.wallets.create(user.userId, MAIN);
    expect(await failureOf(core.app.wallets.create(user.userId, MAIN))).toEqual({ code: 'BIZ-MAIN-ADDRESS-ALREADY-EXISTS' });
  });

  it('refuses unknown networks, address types and invalid labels with their codes', async () => {
    const { app } = core;
    expect(await failureOf(app.wallets.create(user.userId, { network_code: 'BTC', address_type: 1 }))).toEqual({ code: 'BIZ-NETWORK-NOT-FOUND' });
    expect(await failureOf(app.wallets.create(user.userId, { network_code: 'TRON', address_type: 3 }))).toEqual({ code: 'BIZ-ADDRESS-TYPE-NOT-ALLOWED' });
    expect(await failureOf(app.wallets.create(user.userId, { network_code: 'TRON' }))).toEqual({ code: 'VALIDATION-ERROR' });
    expect(await failureOf(app.wallets.create(user.userId, { ...MAIN, address_label: 'x'.repeat(121) }))).toEqual({ code: 'VALIDATION-ERROR' });
    expect((await app.wallets.list(user.userId, {})).items).toEqual([]);
  });

  it('a sub-address needs a subscription, then a main address', async () => {
    const { app } = core;
    expect(await failureOf(app.wallets.create(user.userId, SUB))).toEqual({ code: 'BIZ-MAIN-ADDRESS-REQUIRED' });
    await app.wallets.create(user.userId, MAIN);
    expect(await failureOf(app.wallets.create(user.userId, SUB))).toEqual({ code: 'BIZ-SUB-ADDRESS-SUBSCRIPTION-REQUIRED' });
    await app.subscriptions.activate(user.userId, { service_code: 'sub_address' });
    expect((await app.wallets.create(user.userId, SUB)).address_type).toBe(2);
  });

  it('the quota counts sub-addresses: the admin quota override applies, 0 allows none, -1 is unlimited', async () => {
    const { app } = core;
    await subscribeAll(app, user.userId);
    await app.wallets.create(user.userId, MAIN);
    await app.admin.setQuota(String(user.userId), { max_sub_addresses: 2 });
    await app.wallets.create(user.userId, SUB);
    await app.wallets.create(user.userId, SUB);
    expect(await failureOf(app.wallets.create(user.userId, SUB))).toEqual({ code: 'BIZ-SUB-ADDRESS-QUOTA-EXCEEDED' });
    expect(await app.admin.setQuota(String(user.userId), { max_sub_addresses: -1 })).toEqual({ user_id: user.userId, max_sub_addresses: -1 });
    for (let i = 0; i < 3; i++) await app.wallets.create(user.userId, SUB);
    expect((await app.wallets.list(user.userId, { type: '2' })).pagination.total).toBe(5);
    await app.admin.setQuota(String(user.userId), { max_sub_addresses: 0 });
    expect(await failureOf(app.wallets.create(user.userId, SUB))).toEqual({ code: 'BIZ-SUB-ADDRESS-QUOTA-EXCEEDED' });
  });

  it('admin quota: unknown user 404, no subscription 422, below -1 refused', async () => {
    const { app } = core;
    expect(await failureOf(app.admin.setQuota('999', { max_sub_addresses: 5 }))).toEqual({ code: 'BIZ-USER-NOT-FOUND' });
    expect(await failureOf(app.admin.setQuota(String(user.userId), { max_sub_addresses: 5 })))
      .toEqual({ code: 'BIZ-SUB-ADDRESS-SUBSCRIPTION-REQUIRED' });
    expect(await failureOf(app.admin.setQuota(String(user.userId), { max_sub_addresses: -2 }))).toEqual({ code: 'VALIDATION-ERROR' });
  });

  it('lists the caller\'s addresses by type with pagination', async () => {
    const { app } = core;
    await subscribeAll(app, user.userId);
    const main = await app.wallets.create(user.userId, MAIN);
    const subs = [await app.wallets.create(user.userId, SUB), await app.wallets.create(user.userId, SUB)];
    const all = await app.wallets.list(user.userId, {});
    expect(all.items.map((w) => w.address)).toEqual([main.address, ...subs.map((s) => s.address)]);
    expect(all.pagination).toEqual({ page: 1, per_page: 20, total: 3, pages: 1 });
    const page2 = await app.wallets.list(user.userId, { type: '2', page: '2', per_page: '1' });
    expect(page2.items.map((w) => w.address)).toEqual([subs[1]!.address]);
    expect(page2.pagination).toEqual({ page: 2, per_page: 1, total: 2, pages: 2 });
    expect(await failureOf(app.wallets.list(user.userId, { per_page: '101' }))).toEqual({ code: 'VALIDATION-ERROR' });
  });
});

describe('wallets: another user\'s address behaves as nonexistent', () => {
  it('get, balances, refresh and resources are 404 BIZ-WALLET-ADDRESS-NOT-FOUND; lists do not show it', async () => {
    const core = buildTestCore(devnet);
    const { app, readCode } = core;
    const alice = await signUp(app, readCode, 'alice@example.com');
    const mallory = await signUp(app, readCode, 'mallory@example.com');
    const { address } = await app.wallets.create(alice.userId, MAIN);
    const notFound = { code: 'BIZ-WALLET-ADDRESS-NOT-FOUND' };
    for (const target of [address, 'TNotAnAddressAtAll']) {
      expect(await failureOf(app.wallets.get(mallory.userId, target))).toEqual(notFound);
      expect(await failureOf(app.wallets.balances(mallory.userId, target))).toEqual(notFound);
      expect(await failureOf(app.wallets.refresh(mallory.userId, target, {}))).toEqual(notFound);
      expect(await failureOf(app.wallets.resources(mallory.userId, target))).toEqual(notFound);
    }
    expect((await app.wallets.list(mallory.userId, {})).items).toEqual([]);
  });
});

describe('wallets: balances and refresh', () => {
  let core: TestCore;
  let user: SignedUpUser;
  let address: string;
  beforeEach(async () => {
    core = buildTestCore(devnet, { settings: { refreshCooldownMs: 30_000 } });
    user = await signUp(core.app, core.readCode, 'balances@example.com');
    address = (await core.app.wallets.create(user.userId, MAIN)).address;
  });

  const amounts = (view: { items: readonly { symbol: string; balance_available: string; balance_locked: string }[] }) =>
    Object.fromEntries(view.items.map((i) => [i.symbol, [i.balance_available, i.balance_locked]]));

  it('a never-refreshed address shows every asset at 0 (no chain query)', async () => {
    devnet.fund(address, 5_000_000n);
    const view = await core.app.wallets.balances(user.userId, address);
    expect(view.address).toBe(address);
    expect(amounts(view)).toEqual({ TRX: ['0', '0'], USDT: ['0', '0'] });
  });

  it('refresh reads the chain (refresh_source 2), records a QUERY command, and the cached view then shows it', async () => {
    const { app, clock } = core;
    devnet.fund(address, 7_000_000n);
    devnet.fundToken(address, 2n ** 64n);
    const { balance: refreshed, cooldown } = await app.wallets.refresh(user.userId, address, {});
    expect(cooldown).toBeNull();
    expect(refreshed.refresh_source).toBe(2);
    expect(amounts(refreshed)).toEqual({ TRX: ['7000000', '0'], USDT: [(2n ** 64n).toString(), '0'] });
    clock.advance(1_000);
    expect(amounts(await app.wallets.balances(user.userId, address))).toEqual(amounts(refreshed));
    const commands = await app.commands.list(user.userId, {});
    expect(commands.items).toHaveLength(1);
    expect(commands.items[0]).toMatchObject({ type: 1, status: 3 });
  });

  it('each read shows its own snapshot time, whatever was read before (the time formatting is memoized)', async () => {
    const { app, clock } = core;
    await subscribeAll(app, user.userId);
    const other = (await app.wallets.create(user.userId, SUB)).address;
    await app.wallets.refresh(user.userId, address, {});
    clock.advance(61_000);
    await app.wallets.refresh(user.userId, other, {});
    const first = await app.wallets.balances(user.userId, address);
    const second = await app.wallets.balances(user.userId, other);
    expect(new Date(`${second.balance_updated_at}Z`).getTime() - new Date(`${first.balance_updated_at}Z`).getTime()).toBe(61_000);
    for (let i = 0; i < 2; i++) {
      expect(await app.wallets.balances(user.userId, address)).toEqual(first);
      expect(await app.wallets.balances(user.userId, other)).toEqual(second);
    }
    expect(first.items.map((item) => item.balance_updated_at)).toEqual([first.balance_updated_at, first.balance_updated_at]);
  });

  it('within the cooldown the cached snapshot is answered and says so; force or the end of the cooldown query the chain', async () => {
    const { app, clock } = core;
    const refresh = async (body: object): Promise<{ TRX: string[] | undefined; cooldown: number | null }> => {
      const { balance, cooldown } = await app.wallets.refresh(user.userId, address, body);
      return { TRX: amounts(balance).TRX, cooldown: cooldown?.remainingMs ?? null };
    };
    devnet.fund(address, 1_000_000n);
    expect(await refresh({})).toEqual({ TRX: ['1000000', '0'], cooldown: null });
    devnet.fund(address, 1_000_000n);
    clock.advance(29_999);
    expect(await refresh({})).toEqual({ TRX: ['1000000', '0'], cooldown: 1 });
    expect(await refresh({ force: true })).toEqual({ TRX: ['2000000', '0'], cooldown: null });
    devnet.fund(address, 1_000_000n);
    clock.advance(20_000);
    expect(await refresh({})).toEqual({ TRX: ['2000000', '0'], cooldown: 10_000 });
    clock.advance(9_999);
    expect(await refresh({})).toEqual({ TRX: ['2000000', '0'], cooldown: 1 });
    clock.advance(1);
    expect(await refresh({})).toEqual({ TRX: ['3000000', '0'], cooldown: null });
    expect((await app.commands.list(user.userId, {})).pagination.total).toBe(3);
    expect(await failureOf(app.wallets.refresh(user.userId, address, { force: 'yes' }))).toEqual({ code: 'VALIDATION-ERROR' });
  });

  it('a node failure is 502 CHAIN-BALANCE-QUERY-FAILED, recorded as a FAILED QUERY command; the cache is kept', async () => {
    const { app } = core;
    devnet.setFaults({ node_down: true });
    try {
      const error = await app.wallets.refresh(user.userId, address, { force: true }).then(() => null, (e: unknown) => e);
      expect(error).toMatchObject({ code: 'CHAIN-BALANCE-QUERY-FAILED' });
    } finally {
      devnet.setFaults({ node_down: false });
    }
    const [command] = (await app.commands.list(user.userId, {})).items;
    expect(command).toMatchObject({ type: 1, status: 4, error_code: 'CHAIN-BALANCE-QUERY-FAILED' });
    expect(amounts(await app.wallets.balances(user.userId, address))).toEqual({ TRX: ['0', '0'], USDT: ['0', '0'] });
  });

  it('resources of a fresh funded TRON address come from the chain (free bandwidth only)', async () => {
    devnet.fund(address, 1_000_000n);
    const view = await core.app.wallets.resources(user.userId, address);
    expect(view).toMatchObject({
      energy: { available: 0, used: 0, limit: 0, staked_sun: '0' },
      bandwidth: { free_limit: 600, free_available: 600, free_used: 0 },
      withdrawable_sun: '0', delegated_to: [], received_from: [],
    });
  });
});

describe('wallets: concurrency', () => {
  it('parallel main-address creations make exactly one; the rest are 409', async () => {
    const core = buildTestCore(devnet);
    const user = await signUp(core.app, core.readCode, 'race-main@example.com');
    const results = await Promise.allSettled(Array.from({ length: 12 }, () => core.app.wallets.create(user.userId, MAIN)));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const r of results) {
      if (r.status === 'rejected') expect(r.reason).toMatchObject({ code: 'BIZ-MAIN-ADDRESS-ALREADY-EXISTS' });
    }
    expect((await core.app.wallets.list(user.userId, {})).pagination.total).toBe(1);
  });

  it('parallel sub-address creations never exceed the quota', async () => {
    const core = buildTestCore(devnet);
    const { app } = core;
    const user = await signUp(app, core.readCode, 'race-sub@example.com');
    await subscribeAll(app, user.userId);
    await app.wallets.create(user.userId, MAIN);
    await app.admin.setQuota(String(user.userId), { max_sub_addresses: 3 });
    await app.wallets.create(user.userId, SUB);
    const results = await Promise.allSettled(Array.from({ length: 15 }, () => app.wallets.create(user.userId, SUB)));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(2);
    for (const r of results) {
      if (r.status === 'rejected') expect(r.reason).toMatchObject({ code: 'BIZ-SUB-ADDRESS-QUOTA-EXCEEDED' });
    }
    expect((await app.wallets.list(user.userId, { type: '2' })).pagination.total).toBe(3);
  });
});
