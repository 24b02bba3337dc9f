import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildTestCore, startTestDevnet, type TestCore } from '../../adapters/memory/testing/memory-test-core.js';
import type { Devnet } from '../../adapters/tron-devnet/index.js';
import { verifyAuditChain } from '../domain/audit-chain.js';
import { failureOf, TEST_PASSWORD, userWithWallets, type UserWithWallets } from './testing/user-journeys.js';

let devnet: Devnet;
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
    expect(await actions()).toEqual(['auth.login']);
    await failureOf(app.accounts.login({ email: user.email, password: 'wrong password!' }));
    await failureOf(app.accounts.login({ email: 'nobody@example.com', password: TEST_PASSWORD }));
    await app.accounts.login({ email: user.email, password: TEST_PASSWORD });
    expect(await actions()).toEqual(['auth.login', 'auth.login_failed', 'auth.login']);
    const [, failed] = (await app.audit.list(user.userId, {})).items;
    expect(failed).toMatchObject({ seq: 2, action: 'auth.login_failed', actor: { kind: 'user', id: null }, detail: { reason: 'password' } });
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
      'auth.login', 'api_token.created', 'api_token.revoked', 'webhook.url_changed', 'webhook.secret_changed', 'webhook.secret_changed',
      'withdrawal.requested',
    ]);
    const entries = (await app.audit.list(user.userId, { per_page: '100' })).items;
    expect(entries.find((e) => e.action === 'api_token.created')!.detail).toEqual({ token_id: token.id, name: 'ci', expires_at: null });
    expect(entries.find((e) => e.action === 'webhook.url_changed')!.detail).toEqual({ host: 'hooks.example.com' });
    expect(entries.find((e) => e.action === 'withdrawal.requested')!.detail).toMatchObject({
      command_no: accepted.command_no, from_address: user.main, to_address: recipient, asset_symbol: 'USDT', amount: '1500000',
    });
    const text = JSON.stringify(entries);
    for (const secret of [token.token, 'whsec-0123456789abcdef', 'whsec-fedcba9876543210', TEST_PASSWORD, user.sessionToken]) {
      expect(text).not.toContain(secret);
    }
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
    expect(page.pagination).toEqual({ page: 2, per_page: 2, total: 5, pages: 3 });
    expect(page.items.map((e) => e.seq)).toEqual([3, 2]);
    expect(page.items[0]).toEqual({
      seq: 3, at: '2026-01-01T00:00:02+00:00', action: 'auth.login', actor: { kind: 'user', id: null }, detail: {},
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
      valid: true, entries: 3, head_seq: 3, head_hash: chain[2]!.hash, broken_at: null, reason: null,
    });
    expect(verifyAuditChain(user.userId, chain).ok).toBe(true);
    chain[1] = { ...chain[1]!, detail: { reason: 'forged' } };
    expect(await app.audit.verify(user.userId)).toEqual({
      valid: false, entries: 1, head_seq: null, head_hash: null, broken_at: 2, reason: 'hash-mismatch',
    });
  });

  it('the admin reads and checks any account\'s log; an unknown account is BIZ-USER-NOT-FOUND', async () => {
    const { app } = core;
    expect((await app.audit.listOfUser(String(user.userId), {})).items.map((e) => e.action)).toEqual(['auth.login']);
    expect(await app.audit.verifyOfUser(String(user.userId))).toMatchObject({ valid: true, entries: 1 });
    expect(await failureOf(app.audit.listOfUser('9999', {}))).toEqual({ code: 'BIZ-USER-NOT-FOUND' });
    expect(await failureOf(app.audit.verifyOfUser('abc'))).toEqual({ code: 'BIZ-USER-NOT-FOUND' });
  });
});
