import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildTestCore, startTestDevnet, type TestCore } from '../../adapters/memory/testing/memory-test-core.js';
import type { Devnet } from '../../adapters/tron-devnet/index.js';
import { failureOf, signUp, type SignedUpUser } from './testing/user-journeys.js';

let devnet: Devnet;
beforeAll(async () => { devnet = await startTestDevnet(); });
afterAll(async () => { await devnet.close(); });

const HOOK = 'https://hooks.example.com/custody';
const OTHER_HOOK = 'https://hooks.example.com/other';
const SECRET = 'whsec-0123456789abcdef';

describe('subscriptions, developer configuration and webhook review (spec §3)', () => {
  let core: TestCore;
  let user: SignedUpUser;
  const put = (config: Record<string, unknown>) => core.app.subscriptions.putConfig(user.userId, { service_code: 'developer', config });

  beforeEach(async () => {
    core = buildTestCore(devnet);
    user = await signUp(core.app, core.readCode, 'dev@example.com');
  });

  it('activates the default plans with their quotas; re-activating the same plan changes nothing', async () => {
    const { app, clock } = core;
    const developer = await app.subscriptions.activate(user.userId, { service_code: 'developer' });
    expect(developer).toEqual({
      service_code: 'developer', plan_code: 'standard', status: 'active', meta: {}, activated_at: '2026-01-01T00:00:00+00:00',
    });
    expect(await app.subscriptions.activate(user.userId, { service_code: 'sub_address' }))
      .toMatchObject({ plan_code: 'starter', status: 'active', meta: { max_sub_addresses: 10 } });
    clock.advance(60_000);
    expect(await app.subscriptions.activate(user.userId, { service_code: 'sub_address', plan_code: 'starter' }))
      .toMatchObject({ activated_at: '2026-01-01T00:00:00+00:00' });
    expect(await app.subscriptions.activate(user.userId, { service_code: 'sub_address', plan_code: 'unlimited' }))
      .toMatchObject({ plan_code: 'unlimited', meta: { max_sub_addresses: -1 }, activated_at: '2026-01-01T00:01:00+00:00' });
  });

  it('an activation without plan_code takes the configured default sub_address plan (DEFAULT_SUB_ADDRESS_PLAN)', async () => {
    const unlimited = buildTestCore(devnet, { settings: { defaultSubAddressPlan: 'unlimited' } });
    const owner = await signUp(unlimited.app, unlimited.readCode, 'self-hosted@example.com');
    expect(await unlimited.app.subscriptions.activate(owner.userId, { service_code: 'sub_address' }))
      .toMatchObject({ plan_code: 'unlimited', meta: { max_sub_addresses: -1 } });
    // A plan named in the request still wins, and the developer service keeps its own default.
    expect(await unlimited.app.subscriptions.activate(owner.userId, { service_code: 'sub_address', plan_code: 'pro' }))
      .toMatchObject({ plan_code: 'pro', meta: { max_sub_addresses: 1000 } });
    expect(await unlimited.app.subscriptions.activate(owner.userId, { service_code: 'developer' })).toMatchObject({ plan_code: 'standard' });
  });

  it('unknown services and plans are refused with their codes', async () => {
    const { app } = core;
    expect(await failureOf(app.subscriptions.activate(user.userId, { service_code: 'gold' }))).toEqual({ code: 'BIZ-SERVICE-NOT-FOUND' });
    expect(await failureOf(app.subscriptions.activate(user.userId, { service_code: 'sub_address', plan_code: 'mega' })))
      .toEqual({ code: 'BIZ-PLAN-NOT-FOUND' });
  });

  it('the configuration needs a developer subscription', async () => {
    expect(await failureOf(put({ webhook_url: HOOK, webhook_secret: SECRET })))
      .toEqual({ code: 'BIZ-DEVELOPER-SUBSCRIPTION-REQUIRED' });
  });

  describe('with a developer subscription', () => {
    beforeEach(async () => { await core.app.subscriptions.activate(user.userId, { service_code: 'developer' }); });

    it('starts unconfigured', async () => {
      const view = await core.app.subscriptions.getDeveloperConfig(user.userId);
      expect(view).toEqual({
        service_code: 'developer', plan_code: 'standard', status: 'active',
        config: {
          webhook_url: null, webhook_secret_set: false, previous_secret_valid_until: null, min_collect_amounts: {},
          event_types: ['withdrawal.completed', 'withdrawal.failed', 'collection.completed', 'collection.failed'],
          auto_collect: {}, display_name: null,
        },
        webhook: { status: 'unconfigured', url: null, pending_url: null, pending_since: null, verified_at: null, review_note: null },
      });
    });

    it('config.display_name (issue #25): set trimmed, kept when absent, cleared by null or blank; too long or not a string is refused', async () => {
      const put = (config: Record<string, unknown>) => core.app.subscriptions.putConfig(user.userId, { service_code: 'developer', config });
      expect((await put({ display_name: '  Acme Store ' })).config.display_name).toBe('Acme Store');
      expect((await put({ min_collect_amounts: {} })).config.display_name).toBe('Acme Store');
      expect((await put({ display_name: null })).config.display_name).toBeNull();
      await put({ display_name: 'Acme' });
      expect((await put({ display_name: '   ' })).config.display_name).toBeNull();
      await expect(put({ display_name: 'x'.repeat(81) })).rejects.toMatchObject({ code: 'VALIDATION-ERROR' });
      await expect(put({ display_name: 42 })).rejects.toMatchObject({ code: 'VALIDATION-ERROR' });
      expect((await put({ event_types: ['payment.paid', 'payment.paid_late'] })).config.event_types)
        .toEqual(['withdrawal.completed', 'withdrawal.failed', 'collection.completed', 'collection.failed', 'payment.paid', 'payment.paid_late']);
    });

    it('event_types: the spec\'s four by default and always; deposit.* are added and removed by a PUT, anything else is refused', async () => {
      const SPEC = ['withdrawal.completed', 'withdrawal.failed', 'collection.completed', 'collection.failed'];
      const opted = await put({ event_types: ['deposit.reverted', 'deposit.confirmed', 'collection.failed', 'deposit.confirmed'] });
      expect(opted.config.event_types).toEqual([...SPEC, 'deposit.confirmed', 'deposit.reverted']);
      expect((await core.stores.developerConfigs.get(user.userId))!.optInEventTypes).toEqual(['deposit.confirmed', 'deposit.reverted']);
      // Other fields leave the list as it is; an empty list opts out again, and the spec's four stay.
      expect((await put({ min_collect_amounts: { USDT: '5' } })).config.event_types).toEqual([...SPEC, 'deposit.confirmed', 'deposit.reverted']);
      expect((await put({ event_types: [] })).config.event_types).toEqual(SPEC);
      for (const bad of [['deposit.created'], ['webhook.test'], [7], 'deposit.confirmed', null]) {
        expect(await failureOf(put({ event_types: bad })), JSON.stringify(bad)).toEqual({ code: 'VALIDATION-ERROR' });
      }
      expect((await core.app.subscriptions.getDeveloperConfig(user.userId)).config.event_types).toEqual(SPEC);
    });

    it('auto_collect: per asset symbol, integer strings, stored and shown back; null clears it; anything malformed is refused', async () => {
      const rule = { USDT: { min_amount: '10000000', max_fee_sun: '3000000' }, TRX: { min_amount: '0', max_fee_sun: '0' } };
      expect((await put({ auto_collect: rule })).config.auto_collect).toEqual(rule);
      expect((await core.stores.developerConfigs.get(user.userId))!.autoCollect)
        .toEqual({ USDT: { minAmount: 10_000_000n, maxFeeSun: 3_000_000n }, TRX: { minAmount: 0n, maxFeeSun: 0n } });
      // Other fields leave it as it is.
      expect((await put({ event_types: ['deposit.confirmed'] })).config.auto_collect).toEqual(rule);
      for (const bad of [
        { DOGE: { min_amount: '1', max_fee_sun: '1' } }, { USDT: { min_amount: '-1', max_fee_sun: '1' } },
        { USDT: { min_amount: '1.5', max_fee_sun: '1' } }, { USDT: { min_amount: 10, max_fee_sun: '1' } },
        { USDT: { min_amount: '1', max_fee_sun: '-3' } }, { USDT: { min_amount: '01', max_fee_sun: '1' } },
        { USDT: { min_amount: '1' } }, { USDT: { min_amount: '1', max_fee_sun: '1', extra: '1' } }, { USDT: '1' }, ['USDT'], 'USDT',
      ]) {
        expect(await failureOf(put({ auto_collect: bad })), JSON.stringify(bad)).toEqual({ code: 'VALIDATION-ERROR' });
      }
      expect((await core.app.subscriptions.getDeveloperConfig(user.userId)).config.auto_collect).toEqual(rule);
      expect((await put({ auto_collect: null })).config.auto_collect).toEqual({});
    });

    it('unconfigured → PUT a valid URL → pending; the secret is never shown', async () => {
      const view = await put({ webhook_url: HOOK, webhook_secret: SECRET });
      expect(view.webhook).toEqual({
        status: 'pending', url: null, pending_url: HOOK, pending_since: '2026-01-01T00:00:00+00:00', verified_at: null, review_note: null,
      });
      expect(view.config.webhook_secret_set).toBe(true);
      expect(JSON.stringify(view)).not.toContain(SECRET);
      expect(JSON.stringify(await core.app.subscriptions.getDeveloperConfig(user.userId))).not.toContain(SECRET);
    });

    it('the first URL needs a secret', async () => {
      expect(await failureOf(put({ webhook_url: HOOK }))).toEqual({ code: 'VALIDATION-ERROR' });
    });

    it('pending → approve → verified; approving again is 409 BIZ-WEBHOOK-NOT-PENDING', async () => {
      const { app, clock } = core;
      await put({ webhook_url: HOOK, webhook_secret: SECRET });
      expect(await app.admin.listPendingWebhooks()).toEqual([
        { user_id: user.userId, pending_url: HOOK, pending_since: '2026-01-01T00:00:00+00:00', url: null },
      ]);
      clock.advance(1_000);
      expect(await app.admin.approveWebhook(String(user.userId), { url: HOOK })).toEqual({
        status: 'verified', url: HOOK, pending_url: null, pending_since: null, verified_at: '2026-01-01T00:00:01+00:00', review_note: null,
      });
      expect(await app.admin.listPendingWebhooks()).toEqual([]);
      expect(await failureOf(app.admin.approveWebhook(String(user.userId), { url: HOOK }))).toEqual({ code: 'BIZ-WEBHOOK-NOT-PENDING' });
    });

    it('pending → reject → pending_url cleared, review_note set', async () => {
      await put({ webhook_url: HOOK, webhook_secret: SECRET });
      const view = await core.app.admin.rejectWebhook(String(user.userId), { note: 'not reachable' });
      expect(view).toMatchObject({ pending_url: null, pending_since: null, review_note: 'not reachable', url: null });
      expect(view.status).toBe('unconfigured');
      expect(await failureOf(core.app.admin.rejectWebhook(String(user.userId), { note: 'again' })))
        .toEqual({ code: 'BIZ-WEBHOOK-NOT-PENDING' });
    });

    it('verified → PUT a different URL → pending; url keeps the approved one until approval', async () => {
      const { app } = core;
      await put({ webhook_url: HOOK, webhook_secret: SECRET });
      await app.admin.approveWebhook(String(user.userId), { url: HOOK });
      const view = await put({ webhook_url: OTHER_HOOK });
      expect(view.webhook).toMatchObject({ status: 'pending', url: HOOK, pending_url: OTHER_HOOK });
      expect((await app.admin.approveWebhook(String(user.userId), { url: OTHER_HOOK })).url).toBe(OTHER_HOOK);
    });

    it('verified with a pending change → PUT the live URL again → the pending change is cancelled', async () => {
      await put({ webhook_url: HOOK, webhook_secret: SECRET });
      await core.app.admin.approveWebhook(String(user.userId), { url: HOOK });
      await put({ webhook_url: OTHER_HOOK });
      const view = await put({ webhook_url: HOOK });
      expect(view.webhook).toMatchObject({ status: 'verified', url: HOOK, pending_url: null, pending_since: null });
      expect(await failureOf(core.app.admin.approveWebhook(String(user.userId), { url: HOOK }))).toEqual({ code: 'BIZ-WEBHOOK-NOT-PENDING' });
    });

    it('verified with a pending change → reject → the approved URL stays live, the note is set', async () => {
      const { app } = core;
      await put({ webhook_url: HOOK, webhook_secret: SECRET });
      await app.admin.approveWebhook(String(user.userId), { url: HOOK });
      await put({ webhook_url: OTHER_HOOK });
      const view = await app.admin.rejectWebhook(String(user.userId), { note: 'wrong host' });
      expect(view).toMatchObject({ status: 'verified', url: HOOK, pending_url: null, review_note: 'wrong host' });
    });

    it('review of an unknown user is 404 BIZ-USER-NOT-FOUND; of a user with nothing pending 409; a note is required', async () => {
      const { app } = core;
      expect(await failureOf(app.admin.approveWebhook('987654', { url: HOOK }))).toEqual({ code: 'BIZ-USER-NOT-FOUND' });
      expect(await failureOf(app.admin.approveWebhook('not-a-number', { url: HOOK }))).toEqual({ code: 'BIZ-USER-NOT-FOUND' });
      expect(await failureOf(app.admin.approveWebhook(String(user.userId), { url: HOOK }))).toEqual({ code: 'BIZ-WEBHOOK-NOT-PENDING' });
      await put({ webhook_url: HOOK, webhook_secret: SECRET });
      expect(await failureOf(app.admin.rejectWebhook(String(user.userId), {}))).toEqual({ code: 'VALIDATION-ERROR' });
      expect((await app.subscriptions.getDeveloperConfig(user.userId)).webhook.status).toBe('pending');
    });

    it('any → PUT an empty URL → unconfigured, secret removed', async () => {
      await put({ webhook_url: HOOK, webhook_secret: SECRET });
      await core.app.admin.approveWebhook(String(user.userId), { url: HOOK });
      const view = await put({ webhook_url: '' });
      expect(view.webhook).toEqual({ status: 'unconfigured', url: null, pending_url: null, pending_since: null, verified_at: null, review_note: null });
      expect(view.config).toMatchObject({ webhook_url: null, webhook_secret_set: false });
    });

    it('URLs resolving to private addresses, plain http and unresolvable hosts are refused', async () => {
      expect(await failureOf(put({ webhook_url: 'https://intranet.example.com/h', webhook_secret: SECRET })))
        .toEqual({ code: 'BIZ-WEBHOOK-URL-BLOCKED' });
      expect(await failureOf(put({ webhook_url: 'https://127.0.0.1/h', webhook_secret: SECRET })))
        .toEqual({ code: 'BIZ-WEBHOOK-URL-BLOCKED' });
      for (const bad of ['http://hooks.example.com/h', 'https://hooks.example.com:8443/h', 'ftp://hooks.example.com/h']) {
        expect(await failureOf(put({ webhook_url: bad, webhook_secret: SECRET }))).toEqual({ code: 'VALIDATION-ERROR' });
      }
      for (const blocked of ['https://169.254.169.254/latest', 'https://[::1]/h', 'https://192.168.1.5/h']) {
        expect(await failureOf(put({ webhook_url: blocked, webhook_secret: SECRET }))).toEqual({ code: 'BIZ-WEBHOOK-URL-BLOCKED' });
      }
      expect(await failureOf(put({ webhook_url: 'https://nowhere.example.com/h', webhook_secret: SECRET })))
        .toEqual({ code: 'VALIDATION-ERROR' });
      expect((await core.app.subscriptions.getDeveloperConfig(user.userId)).webhook.status).toBe('unconfigured');
    });

    it('min_collect_amounts replaces the map, as integer strings; unknown assets and bad amounts are refused', async () => {
      const view = await put({ min_collect_amounts: { USDT: '1000000', TRX: '5' } });
      expect(view.config.min_collect_amounts).toEqual({ USDT: '1000000', TRX: '5' });
      expect((await put({ min_collect_amounts: { TRX: '7' } })).config.min_collect_amounts).toEqual({ TRX: '7' });
      expect(await failureOf(put({ min_collect_amounts: { DOGE: '1' } }))).toEqual({ code: 'BIZ-ASSET-NOT-FOUND' });
      expect(await failureOf(put({ min_collect_amounts: { USDT: '-1' } }))).toEqual({ code: 'VALIDATION-ERROR' });
      expect(await failureOf(put({ min_collect_amounts: { USDT: 1.5 } }))).toEqual({ code: 'VALIDATION-ERROR' });
    });

    it('the stored secret is encrypted, not plain', async () => {
      await put({ webhook_url: HOOK, webhook_secret: SECRET });
      const stored = await core.stores.developerConfigs.get(user.userId);
      expect(stored?.secret).not.toBeNull();
      expect(JSON.stringify(stored)).not.toContain(SECRET);
    });
  });
});

describe('API tokens', () => {
  let core: TestCore;
  let user: SignedUpUser;
  beforeEach(async () => {
    core = buildTestCore(devnet);
    user = await signUp(core.app, core.readCode, 'tokens@example.com');
  });

  it('needs a developer subscription', async () => {
    expect(await failureOf(core.app.apiTokens.create(user.userId, { name: 'ci' })))
      .toEqual({ code: 'BIZ-DEVELOPER-SUBSCRIPTION-REQUIRED' });
  });

  it('create → authenticates with ability api:access → revoke → no longer authenticates', async () => {
    const { app } = core;
    await app.subscriptions.activate(user.userId, { service_code: 'developer' });
    const created = await app.apiTokens.create(user.userId, { name: 'ci' });
    expect(created).toMatchObject({ name: 'ci', abilities: ['api:access'], created_at: '2026-01-01T00:00:00+00:00' });
    expect(created.token).toMatch(/^dk_.{40,}$/);
    expect(await app.apiTokens.authenticateApiToken(created.token))
      .toEqual({ userId: user.userId, tokenId: created.id, abilities: ['api:access'] });
    expect(await app.apiTokens.authenticateApiToken(created.token.slice(0, -1) + 'x')).toBeNull();
    expect(await app.apiTokens.authenticateApiToken(user.sessionToken)).toBeNull();
    core.clock.advance(5_000);
    expect(await app.apiTokens.revoke(user.userId, String(created.id))).toEqual({ id: created.id, revoked_at: '2026-01-01T00:00:05+00:00' });
    expect(await app.apiTokens.authenticateApiToken(created.token)).toBeNull();
    core.clock.advance(5_000);
    expect(await app.apiTokens.revoke(user.userId, String(created.id))).toEqual({ id: created.id, revoked_at: '2026-01-01T00:00:05+00:00' });
  });

  it('another user\'s token, an unknown id and a malformed id are all API-TOKEN-NOT-FOUND', async () => {
    const { app, readCode } = core;
    await app.subscriptions.activate(user.userId, { service_code: 'developer' });
    const created = await app.apiTokens.create(user.userId, { name: 'ci' });
    const mallory = await signUp(app, readCode, 'mallory@example.com');
    for (const id of [String(created.id), '999', 'abc']) {
      expect(await failureOf(app.apiTokens.revoke(mallory.userId, id))).toEqual({ code: 'API-TOKEN-NOT-FOUND' });
    }
    expect(await app.apiTokens.authenticateApiToken(created.token)).not.toBeNull();
  });

  it('tokens are never a session token and stored only as a hash', async () => {
    const { app } = core;
    await app.subscriptions.activate(user.userId, { service_code: 'developer' });
    const created = await app.apiTokens.create(user.userId, { name: 'ci' });
    expect(await app.accounts.authenticateSession(created.token)).toBeNull();
    expect(JSON.stringify(await core.stores.apiTokens.findById(created.id))).not.toContain(created.token);
  });
});
