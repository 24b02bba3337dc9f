import { runs } from '../../contracts-tests/support/depth.js';
import fc from 'fast-check';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildTestCore, startTestDevnet, type TestCore } from '../../adapters/memory/testing/memory-test-core.js';
import type { Devnet } from '../../adapters/tron-devnet/index.js';
import { verifyAuditChain } from '../domain/audit-chain.js';
import { fromOrigin } from './acting-member.js';
import { failureOf, TEST_PASSWORD, userWithWallets, type UserWithWallets } from './testing/user-journeys.js';

let devnet: Devnet;
/** What signing up leaves in the log: the first login, both services activated, the main address created (issue #35 item 8). */
const JOINED = ['auth.login', 'subscription.activated', 'subscription.activated', 'wallet.created'];
beforeAll(async () => { devnet = await startTestDevnet(); });
afterAll(async () => { await devnet.close(); });

describe('audit trail: what the use cases record (issue #26 item 5)', () => {
  let core: TestCore;
  let user: UserWithWallets;
  const actions = async (userId = user.userId) => (await core.app.audit.list(userId, { per_page: '100' })).items.map((e) => e.action).reverse();

  beforeEach(async () => {
    core = buildTestCore(devnet);
    user = await userWithWallets(core.app, core.readCode, 'audited@example.com', 0);
  });

  it('logins and failed logins of a registered e-mail; an unknown e-mail records nothing', async () => {
    const { app } = core;
    expect(await actions()).toEqual(JOINED);
    await failureOf(app.accounts.login({ email: user.email, password: 'wrong password!' }));
    await failureOf(app.accounts.login({ email: 'nobody@example.com', password: TEST_PASSWORD }));
    await app.accounts.login({ email: user.email, password: TEST_PASSWORD });
    expect(await actions()).toEqual([...JOINED, 'auth.login_failed', 'auth.login']);
    const [, failed] = (await app.audit.list(user.userId, {})).items;
    expect(failed).toMatchObject({ seq: 5, action: 'auth.login_failed', actor: { kind: 'user', id: null }, detail: { reason: 'password' } });
    expect(await core.stores.auditLog.listAccounts(0, 10)).toEqual([user.userId]);
  });

  it('an unverified account\'s login with the right password is recorded as not_verified', async () => {
    const { app } = core;
    const registered = await app.accounts.register({ email: 'late@example.com', password: TEST_PASSWORD });
    expect(await failureOf(app.accounts.login({ email: 'late@example.com', password: TEST_PASSWORD }))).toEqual({ code: 'AUTH-NOT-VERIFIED' });
    expect((await app.audit.list(registered.user_id, {})).items.map((e) => [e.action, e.detail])).toEqual([['auth.login_failed', { reason: 'not_verified' }]]);
  });

  it('API tokens created and revoked, webhook URL and secret changes, withdrawals requested; never a secret', async () => {
    const { app } = core;
    const token = await app.apiTokens.create(user.userId, { name: 'ci' });
    await app.apiTokens.revoke(user.userId, String(token.id));
    await app.subscriptions.putConfig(user.userId, { service_code: 'developer', config: { webhook_url: 'https://hooks.example.com/custody?k=1', webhook_secret: 'whsec-0123456789abcdef' } });
    await app.subscriptions.putConfig(user.userId, { service_code: 'developer', config: { webhook_secret: 'whsec-fedcba9876543210' } });
    await app.subscriptions.putConfig(user.userId, { service_code: 'developer', config: { min_collect_amounts: {} } });
    const recipient = (await core.chain.createAccount()).address;
    const accepted = await app.transfers.create(user.userId, { from_address: user.main, to_address: recipient, asset_symbol: 'USDT', amount: '1500000' });
    expect(await actions()).toEqual([
      ...JOINED, 'api_token.created', 'api_token.revoked', 'webhook.url_changed', 'webhook.secret_changed', 'webhook.secret_changed',
      'config.changed', 'withdrawal.requested',
    ]);
    const entries = (await app.audit.list(user.userId, { per_page: '100' })).items;
    expect(entries.find((e) => e.action === 'api_token.created')!.detail).toEqual({ token_id: token.id, name: 'ci', expires_at: null });
    expect(entries.find((e) => e.action === 'webhook.url_changed')!.detail).toEqual({ url: 'https://hooks.example.com/custody?k=1', host: 'hooks.example.com' });
    expect(entries.find((e) => e.action === 'withdrawal.requested')!.detail).toMatchObject({
      command_no: accepted.command_no, from_address: user.main, to_address: recipient, asset_symbol: 'USDT', amount: '1500000',
    });
    const text = JSON.stringify(entries);
    for (const secret of [token.token, 'whsec-0123456789abcdef', 'whsec-fedcba9876543210', TEST_PASSWORD, user.sessionToken]) {
      expect(text).not.toContain(secret);
    }
  });

  it('issue #35 item 8: config changes, plan switches and staking requests, each with the caller, client address and user agent; never a secret', async () => {
    const { app } = core;
    const origin = { clientAddress: '203.0.113.7', userAgent: 'custody-cli/2.1', actor: { kind: 'user' as const, id: String(user.userId) } };
    const stakeFrom = user.main;
    const staked = await fromOrigin(origin, async () => {
      await app.subscriptions.activate(user.userId, { service_code: 'sub_address', plan_code: 'pro' });
      await app.subscriptions.activate(user.userId, { service_code: 'sub_address', plan_code: 'pro' }); // no switch: no entry
      await app.subscriptions.putConfig(user.userId, { service_code: 'developer', config: {
        webhook_url: 'https://hooks.example.com/x', webhook_secret: 'whsec-0123456789abcdef',
        auto_collect: { USDT: { min_amount: '5000000', max_fee_sun: '30000000' } }, event_types: ['deposit.confirmed'],
        display_name: 'Shop', min_collect_amounts: { USDT: '1000000' },
      } });
      await app.subscriptions.putConfig(user.userId, { service_code: 'developer', config: { display_name: null } });
      await app.subscriptions.putConfig(user.userId, { service_code: 'developer', config: { webhook_secret: 'whsec-fedcba9876543210' } }); // no config.changed
      return app.staking.stake(user.userId, stakeFrom, { resource: 'ENERGY', amount: '1000000' });
    });
    const entries = (await app.audit.list(user.userId, { per_page: '100' })).items.slice().reverse().slice(JOINED.length);
    expect(entries.map((e) => e.action)).toEqual([
      'subscription.activated', 'webhook.url_changed', 'webhook.secret_changed', 'config.changed', 'config.changed', 'webhook.secret_changed',
      'staking.requested',
    ]);
    for (const entry of entries) {
      expect(entry.actor, entry.action).toEqual({ kind: 'user', id: String(user.userId) });
      expect(entry.detail, entry.action).toMatchObject({ client_address: '203.0.113.7', user_agent: 'custody-cli/2.1' });
    }
    const [switched, , , changed, cleared, , stake] = entries;
    expect(switched!.detail).toMatchObject({ service_code: 'sub_address', plan_code: 'pro', previous_plan_code: 'starter', previous_status: 'active' });
    expect(changed!.detail).toMatchObject({
      keys: 'auto_collect,event_types,display_name,min_collect_amounts', display_name: 'Shop', event_types: '["deposit.confirmed"]',
      min_collect_amounts: '{"USDT":"1000000"}', auto_collect: '{"USDT":{"min_amount":"5000000","max_fee_sun":"30000000"}}',
    });
    expect(cleared!.detail).toMatchObject({ keys: 'display_name', display_name: null });
    expect(stake!.detail).toMatchObject({ command_no: staked.command_no, type: 'stake', address: stakeFrom, resource: 'ENERGY', amount: '1000000' });
    const text = JSON.stringify(entries);
    for (const secret of ['whsec-0123456789abcdef', 'whsec-fedcba9876543210', TEST_PASSWORD, user.sessionToken]) expect(text).not.toContain(secret);
    expect((await app.audit.verify(user.userId)).valid).toBe(true);
  });

  it('property: any PUT /subscriptions/config records config.changed with exactly the audited keys it set, in order, never the secret; a refused one records nothing', async () => {
    const { app } = core;
    const values = {
      auto_collect: fc.constantFrom(null, {}, { USDT: { min_amount: '5', max_fee_sun: '7' } }),
      event_types: fc.constantFrom([], ['deposit.confirmed', 'payment.paid']),
      display_name: fc.constantFrom(null, 'Shop', 'Ünïcode ☕'),
      min_collect_amounts: fc.constantFrom(null, {}, { TRX: '1000000' }),
    };
    const order = ['auto_collect', 'event_types', 'display_name', 'min_collect_amounts'];
    await fc.assert(fc.asyncProperty(
      fc.record(values, { requiredKeys: [] }), fc.boolean(), fc.boolean(),
      async (config, withSecret, refused) => {
        const headBefore = (await app.audit.verify(user.userId)).head_seq!;
        const secret = `whsec-${headBefore}-0123456789abcdef`;
        const body = { ...config, ...(withSecret ? { webhook_secret: secret } : {}), ...(refused ? { display_name: 7 } : {}) };
        const result = await app.subscriptions.putConfig(user.userId, { service_code: 'developer', config: body }).then(() => 'ok', () => 'refused');
        expect(result).toBe(refused ? 'refused' : 'ok');
        const added = (await app.audit.list(user.userId, { per_page: '100' })).items.filter((e) => e.seq > headBefore).reverse();
        const set = order.filter((key) => key in config || (refused && key === 'display_name'));
        const expected = refused ? [] : [...(withSecret ? ['webhook.secret_changed'] : []), ...(set.length === 0 ? [] : ['config.changed'])];
        expect(added.map((e) => e.action)).toEqual(expected);
        const changed = added.find((e) => e.action === 'config.changed');
        if (changed !== undefined) {
          expect(changed.detail['keys']).toBe(set.join(','));
          for (const key of set) {
            const value = (config as Record<string, unknown>)[key];
            expect(changed.detail[key]).toBe(value === null ? null : typeof value === 'string' ? value : JSON.stringify(value));
          }
        }
        expect(JSON.stringify(added)).not.toContain(secret);
      },
    ), { numRuns: runs(40) });
    expect((await app.audit.verify(user.userId)).valid).toBe(true);
  });

  it('issue #35 item 8: every staking command is recorded with its operation; a refused one (address busy) records nothing', async () => {
    const { app, chain } = core;
    const witness = (await chain.createAccount()).address;
    const sub = async () => (await app.wallets.create(user.userId, { network_code: 'TRON', address_type: 2 })).address;
    const [a, b, c] = [await sub(), await sub(), await sub()];
    await app.staking.unstake(user.userId, user.main, { resource: 'BANDWIDTH', amount: '2000000' });
    await app.staking.withdrawUnstaked(user.userId, a);
    await app.staking.vote(user.userId, b, { votes: [{ witness, count: 3 }] });
    await app.staking.withdrawReward(user.userId, c);
    expect(await failureOf(app.staking.vote(user.userId, user.main, { votes: [{ witness, count: 3 }] }))).toEqual({ code: 'BIZ-COMMAND-LOCKED' });
    const entries = (await app.audit.list(user.userId, { per_page: '100' })).items.slice().reverse().slice(JOINED.length)
      .filter((e) => e.action !== 'wallet.created');
    expect(entries.map((e) => [e.action, e.detail['type'], e.detail['address']])).toEqual([
      ['staking.requested', 'unstake', user.main], ['staking.requested', 'withdraw-unstaked', a],
      ['staking.requested', 'vote', b], ['staking.requested', 'withdraw-reward', c],
    ]);
    expect(entries[2]!.detail['votes']).toBe(JSON.stringify([{ witness, count: 3 }]));
    // Outside a request (a direct call) the entry is the account's own, with no origin.
    expect(entries[0]!.actor).toEqual({ kind: 'user', id: null });
    expect(entries[0]!.detail['client_address']).toBeUndefined();
  });

  it('the admin\'s review of a webhook URL is recorded with the admin as actor', async () => {
    const { app } = core;
    await app.subscriptions.putConfig(user.userId, { service_code: 'developer', config: { webhook_url: 'https://hooks.example.com/a', webhook_secret: 'whsec-0123456789abcdef' } });
    await app.admin.rejectWebhook(String(user.userId), { note: 'answers 404' });
    await app.subscriptions.putConfig(user.userId, { service_code: 'developer', config: { webhook_url: 'https://hooks.example.com/b' } });
    await app.admin.approveWebhook(String(user.userId), { url: 'https://hooks.example.com/b' });
    const entries = (await app.audit.list(user.userId, { per_page: '100' })).items.filter((e) => e.action === 'webhook.url_reviewed');
    expect(entries.map((e) => [e.actor, e.detail])).toEqual([
      [{ kind: 'admin', id: null }, { decision: 'approved', url: 'https://hooks.example.com/b' }],
      [{ kind: 'admin', id: null }, { decision: 'rejected', url: 'https://hooks.example.com/a' }],
    ]);
    expect((await app.audit.verify(user.userId)).valid).toBe(true);
  });

  it('GET /audit-log pages newest first like /commands and validates the page', async () => {
    const { app, clock } = core;
    for (let i = 0; i < 4; i += 1) {
      clock.advance(1000);
      await app.accounts.login({ email: user.email, password: TEST_PASSWORD });
    }
    const page = await app.audit.list(user.userId, { per_page: '2', page: '2' });
    expect(page.pagination).toEqual({ page: 2, per_page: 2, total: 8, pages: 4 });
    expect(page.items.map((e) => e.seq)).toEqual([6, 5]);
    expect(page.items[0]).toEqual({
      seq: 6, at: '2026-01-01T00:00:02+00:00', action: 'auth.login', actor: { kind: 'user', id: String(user.userId) }, detail: {},
      prev_hash: page.items[1]!.hash, hash: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    for (const query of [{ per_page: '0' }, { page: 'x' }, { per_page: '101' }]) {
      expect(await failureOf(app.audit.list(user.userId, query))).toEqual({ code: 'VALIDATION-ERROR' });
    }
  });

  it('verify reports the head of a sound chain, and the first broken entry of a tampered one', async () => {
    const { app, stores } = core;
    await app.accounts.login({ email: user.email, password: TEST_PASSWORD });
    await app.accounts.login({ email: user.email, password: TEST_PASSWORD });
    const chain = stores.store.auditChains.get(user.userId)!;
    expect(await app.audit.verify(user.userId)).toEqual({
      valid: true, entries: 6, head_seq: 6, head_hash: chain[5]!.hash, broken_at: null, reason: null,
    });
    expect(verifyAuditChain(user.userId, chain).ok).toBe(true);
    chain[1] = { ...chain[1]!, detail: { reason: 'forged' } };
    expect(await app.audit.verify(user.userId)).toEqual({
      valid: false, entries: 1, head_seq: null, head_hash: null, broken_at: 2, reason: 'hash-mismatch',
    });
  });

  it('the admin reads and checks any account\'s log; an unknown account is BIZ-USER-NOT-FOUND', async () => {
    const { app } = core;
    expect((await app.audit.listOfUser(String(user.userId), {})).items.map((e) => e.action).reverse()).toEqual(JOINED);
    expect(await app.audit.verifyOfUser(String(user.userId))).toMatchObject({ valid: true, entries: 4 });
    expect(await failureOf(app.audit.listOfUser('9999', {}))).toEqual({ code: 'BIZ-USER-NOT-FOUND' });
    expect(await failureOf(app.audit.verifyOfUser('abc'))).toEqual({ code: 'BIZ-USER-NOT-FOUND' });
  });
});
