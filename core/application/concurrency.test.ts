import { runs } from '../../contracts-tests/support/depth.js';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestCore, startTestDevnet } from '../../adapters/memory/testing/memory-test-core.js';
import type { Devnet } from '../../adapters/tron-devnet/index.js';
import { cacheBalances } from './testing/cached-balances.js';
import { signUp, subscribeAll } from './testing/user-journeys.js';

let devnet: Devnet;
beforeAll(async () => { devnet = await startTestDevnet(); });
afterAll(async () => { await devnet.close(); });

const SUB = { network_code: 'TRON', address_type: 2 } as const;

/** Codes of the rejected calls, sorted; the fulfilled count separately. */
function tally(results: readonly PromiseSettledResult<unknown>[]): { ok: number; codes: string[] } {
  const codes = results.flatMap((r) => (r.status === 'rejected' ? [String((r.reason as { code?: unknown }).code)] : []));
  return { ok: results.length - codes.length, codes: codes.sort() };
}

// Check-then-create races through the use cases: whatever the interleaving, the store's atomic rules hold.
describe('use cases under parallel requests', () => {
  it('N parallel sub-address creations create exactly min(N, quota - existing), the rest quota-exceeded', async () => {
    await fc.assert(fc.asyncProperty(
      fc.integer({ min: -1, max: 5 }), fc.nat(3), fc.integer({ min: 1, max: 12 }),
      async (quota, existing, parallel) => {
        const core = buildTestCore(devnet);
        const { app } = core;
        const user = await signUp(app, core.readCode, 'quota@example.com');
        await subscribeAll(app, user.userId, 'unlimited');
        await app.wallets.create(user.userId, { network_code: 'TRON', address_type: 1 });
        for (let i = 0; i < existing; i++) await app.wallets.create(user.userId, SUB);
        await app.admin.setQuota(String(user.userId), { max_sub_addresses: quota });
        const results = await Promise.allSettled(Array.from({ length: parallel }, () => app.wallets.create(user.userId, SUB)));
        const room = quota === -1 ? parallel : Math.max(0, Math.min(parallel, quota - existing));
        const { ok, codes } = tally(results);
        expect(ok).toBe(room);
        expect(codes).toEqual(Array(parallel - room).fill('BIZ-SUB-ADDRESS-QUOTA-EXCEEDED'));
        expect((await app.wallets.list(user.userId, { type: '2' })).pagination.total).toBe(existing + room);
      },
    ), { numRuns: 15 });
  });

  it('a mix of parallel collections, withdrawals and cashier collects on one address starts exactly one command', async () => {
    await fc.assert(fc.asyncProperty(
      fc.array(fc.constantFrom('collection', 'withdrawal', 'cashier', 'stake'), { minLength: 2, maxLength: 10 }),
      async (kinds) => {
        const core = buildTestCore(devnet);
        const { app } = core;
        const user = await signUp(app, core.readCode, 'mix@example.com');
        await subscribeAll(app, user.userId);
        await app.wallets.create(user.userId, { network_code: 'TRON', address_type: 1 });
        const sub = (await app.wallets.create(user.userId, SUB)).address;
        // The payer may collect only a balance the cache shows (docs/decisions.md 44); written as the scanner would,
        // since a manual refresh is a QUERY command and this test counts commands.
        await core.stores.balances.put({
          address: sub, refreshSource: 1, updatedAt: 0,
          items: [{ symbol: 'TRX', available: 5_000_000n, updatedAt: 0 }, { symbol: 'USDT', available: 5_000_000n, updatedAt: 0 }],
        });
        const { token } = await app.cashierTokens.create(user.userId, { address: sub });
        const ctx = await app.cashier.authenticateCashier(token);
        const to = (await core.chain.createAccount()).address;
        const results = await Promise.allSettled(kinds.map((kind) => {
          switch (kind) {
            case 'collection': return app.collections.create(user.userId, { address: sub, asset_symbol: 'USDT' });
            case 'withdrawal': return app.transfers.create(user.userId, { from_address: sub, to_address: to, asset_symbol: 'TRX', amount: '1' });
            case 'cashier': return app.cashier.collect(ctx, { asset_symbol: 'TRX' });
            default: return app.staking.stake(user.userId, sub, { resource: 'ENERGY', amount: '1000000' });
          }
        }));
        const { ok, codes } = tally(results);
        expect(ok).toBe(1);
        expect(codes).toEqual(Array(kinds.length - 1).fill('BIZ-COMMAND-LOCKED'));
        const active = await core.stores.commands.findActiveByAddress(sub);
        expect(active).not.toBeNull();
        expect((await app.commands.list(user.userId, {})).pagination.total).toBe(1);
      },
    ), { numRuns: runs(20) });
  });

  it('parallel main-address creations on several users: each user gets exactly one', async () => {
    const core = buildTestCore(devnet);
    const { app } = core;
    const users = await Promise.all(['a', 'b', 'c'].map((n) => signUp(app, core.readCode, `${n}@example.com`)));
    const results = await Promise.allSettled(users.flatMap((u) => Array.from({ length: 5 }, () =>
      app.wallets.create(u.userId, { network_code: 'TRON', address_type: 1 }))));
    expect(tally(results)).toEqual({ ok: 3, codes: Array(12).fill('BIZ-MAIN-ADDRESS-ALREADY-EXISTS') });
    for (const u of users) expect((await app.wallets.list(u.userId, {})).pagination.total).toBe(1);
  });

  it('parallel state transitions happen once: disable a token, approve a webhook, cancel a collection', async () => {
    const core = buildTestCore(devnet);
    const { app, stores } = core;
    const user = await signUp(app, core.readCode, 'transitions@example.com');
    await subscribeAll(app, user.userId);
    await app.wallets.create(user.userId, { network_code: 'TRON', address_type: 1 });
    const sub = (await app.wallets.create(user.userId, SUB)).address;
    const token = await app.cashierTokens.create(user.userId, { address: sub });
    expect(tally(await Promise.allSettled(Array.from({ length: 6 }, () => app.cashierTokens.disable(user.userId, token.token_no, {})))))
      .toEqual({ ok: 1, codes: Array(5).fill('CASHIER-TOKEN-ALREADY-DISABLED') });
    await app.subscriptions.putConfig(user.userId, { service_code: 'developer', config: { webhook_url: 'https://hooks.example.com/a', webhook_secret: 's3cret' } });
    expect(tally(await Promise.allSettled(Array.from({ length: 6 }, () => app.admin.approveWebhook(String(user.userId), { url: 'https://hooks.example.com/a' })))))
      .toEqual({ ok: 1, codes: Array(5).fill('BIZ-WEBHOOK-NOT-PENDING') });
    await cacheBalances({ balances: stores.balances, clock: core.clock }, sub);
    const task = await app.collections.create(user.userId, { address: sub, asset_symbol: 'USDT' });
    expect(tally(await Promise.allSettled(Array.from({ length: 6 }, () => app.admin.cancelCommand(task.command_no)))))
      .toEqual({ ok: 1, codes: Array(5).fill('BIZ-COMMAND-NOT-CANCELLABLE') });
    expect([...stores.store.events.values()].map((e) => e.eventType)).toEqual(['collection.failed']);
  });
});

