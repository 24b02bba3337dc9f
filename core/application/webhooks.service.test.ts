import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildTestCore, startTestDevnet, type TestCore } from '../../adapters/memory/testing/memory-test-core.js';
import type { Devnet } from '../../adapters/tron-devnet/index.js';
import { aDelivery, anEvent } from '../../contracts-tests/support/fixtures.js';
import { DELIVERY_STATUS } from '../domain/model/webhook.js';
import { verifySignature } from '../domain/signature.js';
import { verifyStandardWebhook } from '../../packages/client/src/webhooks.js';
import { failureOf, signUp, type SignedUpUser } from './testing/user-journeys.js';

let devnet: Devnet;
beforeAll(async () => { devnet = await startTestDevnet(); });
afterAll(async () => { await devnet.close(); });

const eventId = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const HOOK = 'https://hooks.example.com/custody';
const SECRET = 'whsec-test-0123456789';

describe('webhooks: test call and delivery log', () => {
  let core: TestCore;
  let user: SignedUpUser;
  beforeEach(async () => {
    core = buildTestCore(devnet);
    user = await signUp(core.app, core.readCode, 'hooks@example.com');
    await core.app.subscriptions.activate(user.userId, { service_code: 'developer' });
  });

  it('422 BIZ-WEBHOOK-URL-UNVERIFIED without a URL and while it is only pending; nothing is sent', async () => {
    const { app, transport } = core;
    expect(await failureOf(app.webhooks.test(user.userId))).toEqual({ code: 'BIZ-WEBHOOK-URL-UNVERIFIED' });
    await app.subscriptions.putConfig(user.userId, { service_code: 'developer', config: { webhook_url: HOOK, webhook_secret: SECRET } });
    expect(await failureOf(app.webhooks.test(user.userId))).toEqual({ code: 'BIZ-WEBHOOK-URL-UNVERIFIED' });
    expect(transport.sent).toEqual([]);
  });

  it('after approval sends one signed webhook.test to the approved URL and reports the outcome', async () => {
    const { app, transport } = core;
    await app.subscriptions.putConfig(user.userId, { service_code: 'developer', config: { webhook_url: HOOK, webhook_secret: SECRET } });
    await app.admin.approveWebhook(String(user.userId), { url: HOOK });
    const result = await app.webhooks.test(user.userId);
    expect(result).toEqual({ event_id: expect.any(String), url: HOOK, delivered: true, http_status: 200, error: null, duration_ms: 1, response: null });
    expect(transport.sent).toHaveLength(1);
    const [request] = transport.sent;
    const payload = JSON.parse(request!.body);
    expect(payload).toEqual({ event_id: result.event_id, event_type: 'webhook.test', occurred_at: '2026-01-01T00:00:00+00:00' });
    expect(request!.url).toBe(HOOK);
    expect(request!.headers).toMatchObject({ 'X-Event-Id': result.event_id, 'X-Event-Type': 'webhook.test' });
    expect(verifySignature(payload, SECRET, request!.headers['X-Webhook-Signature']!)).toBe(true);
    expect(verifySignature(payload, 'another secret', request!.headers['X-Webhook-Signature']!)).toBe(false);
    transport.answerWith(500);
    expect(await app.webhooks.test(user.userId)).toMatchObject({ delivered: false, http_status: 500, error: 'HTTP 500' });
  });

  it('a pending change keeps testing the approved URL', async () => {
    const { app, transport } = core;
    await app.subscriptions.putConfig(user.userId, { service_code: 'developer', config: { webhook_url: HOOK, webhook_secret: SECRET } });
    await app.admin.approveWebhook(String(user.userId), { url: HOOK });
    await app.subscriptions.putConfig(user.userId, { service_code: 'developer', config: { webhook_url: 'https://hooks.example.com/next' } });
    expect((await app.webhooks.test(user.userId)).url).toBe(HOOK);
    expect(transport.sent.map((r) => r.url)).toEqual([HOOK]);
  });

  it('lists the caller\'s deliveries newest first, DEAD and SKIPPED included, with pagination', async () => {
    const { app, stores } = core;
    const { DEAD, SKIPPED, SUCCEEDED } = DELIVERY_STATUS;
    await stores.deliveries.insert(aDelivery({ deliveryId: 'D1', eventId: eventId(1), userId: user.userId, status: SUCCEEDED, createdAt: 1_000, nextAttemptAt: null }));
    await stores.deliveries.insert(aDelivery({ deliveryId: 'D2', eventId: eventId(2), userId: user.userId, status: DEAD, createdAt: 2_000, nextAttemptAt: null,
      attempts: [{ at: 2_000, httpStatus: 500, error: 'HTTP 500', durationMs: 12, response: null, redelivery: false, url: null }] }));
    await stores.deliveries.insert(aDelivery({ deliveryId: 'D3', eventId: eventId(3), userId: user.userId, status: SKIPPED, url: null, createdAt: 3_000, nextAttemptAt: null }));
    await stores.deliveries.insert(aDelivery({ deliveryId: 'D4', eventId: eventId(4), userId: user.userId + 1, createdAt: 4_000 }));
    const page = await app.webhooks.deliveries(user.userId, {});
    expect(page.items.map((d) => [d.delivery_id, d.status])).toEqual([['D3', SKIPPED], ['D2', DEAD], ['D1', SUCCEEDED]]);
    expect(page.items[1]).toEqual({
      delivery_id: 'D2', event_id: eventId(2), event_type: 'collection.completed', status: DEAD, url: 'https://hooks.example.com/in',
      attempts: [{ at: '1970-01-01T00:00:02+00:00', http_status: 500, error: 'HTTP 500', duration_ms: 12, response: null, redelivery: false, url: null }],
      next_attempt_at: null, created_at: '1970-01-01T00:00:02+00:00', payload: null,
    });
    expect(page.pagination).toEqual({ page: 1, per_page: 20, total: 3, pages: 1 });
    expect((await app.webhooks.deliveries(user.userId, { page: '2', per_page: '2' })).items.map((d) => d.delivery_id)).toEqual(['D1']);
  });

  it('filters by status and shows each delivery\'s payload and attempts with the start of the response', async () => {
    const { app, stores } = core;
    const { DEAD, SUCCEEDED } = DELIVERY_STATUS;
    const event = anEvent({ eventId: eventId(7), userId: user.userId });
    await stores.uow.commit({ events: [event] });
    await stores.deliveries.insert(aDelivery({ deliveryId: 'D7', eventId: eventId(7), userId: user.userId, status: DEAD, nextAttemptAt: null,
      attempts: [{ at: 0, httpStatus: 500, error: 'HTTP 500', durationMs: 3, response: 'oops', redelivery: false, url: null }] }));
    await stores.deliveries.insert(aDelivery({ deliveryId: 'D8', eventId: eventId(8), userId: user.userId, status: SUCCEEDED, nextAttemptAt: null }));
    const dead = await app.webhooks.deliveries(user.userId, { status: '5' });
    expect(dead.items.map((d) => d.delivery_id)).toEqual(['D7']);
    expect(dead.pagination.total).toBe(1);
    expect(dead.items[0]!.payload).toEqual(event.payload);
    expect(dead.items[0]!.attempts[0]).toMatchObject({ response: 'oops', redelivery: false, url: null });
    expect((await app.webhooks.deliveries(user.userId, { status: 3 })).items.map((d) => d.delivery_id)).toEqual(['D8']);
    expect(await failureOf(app.webhooks.deliveries(user.userId, { status: '9' }))).toEqual({ code: 'VALIDATION-ERROR' });
  });
});

describe('webhooks: redelivery and secret rotation', () => {
  let core: TestCore;
  let user: SignedUpUser;
  const NEXT = 'https://hooks.example.com/next';
  beforeEach(async () => {
    core = buildTestCore(devnet);
    user = await signUp(core.app, core.readCode, 'redeliver@example.com');
    await core.app.subscriptions.activate(user.userId, { service_code: 'developer' });
    await core.app.subscriptions.putConfig(user.userId, { service_code: 'developer', config: { webhook_url: HOOK, webhook_secret: SECRET } });
    await core.app.admin.approveWebhook(String(user.userId), { url: HOOK });
  });

  async function deadDelivery(id: string, n: number, overrides: Parameters<typeof aDelivery>[0] = {}): Promise<void> {
    await core.stores.uow.commit({ events: [anEvent({ eventId: eventId(n), userId: user.userId })] });
    await core.stores.deliveries.insert(aDelivery({
      deliveryId: id, eventId: eventId(n), userId: user.userId, status: DELIVERY_STATUS.DEAD, nextAttemptAt: null, url: 'https://hooks.example.com/old',
      attempts: [1, 2, 3].map((k) => ({ at: k, httpStatus: 500, error: 'HTTP 500', durationMs: 1, response: null, redelivery: false, url: null })), ...overrides,
    }));
  }

  it('redelivers a DEAD event to the current approved URL with the same event_id as a new recorded attempt', async () => {
    const { app, transport, clock } = core;
    await deadDelivery('D1', 1);
    const result = await app.webhooks.redeliver(user.userId, 'D1');
    expect(result.delivered).toBe(true);
    expect(result.attempt).toMatchObject({ http_status: 200, error: null, redelivery: true, url: HOOK });
    // The delivery keeps the URL it was created for; the attempt says where it went.
    expect(result.delivery.url).toBe('https://hooks.example.com/old');
    expect(result.delivery).toMatchObject({ delivery_id: 'D1', status: DELIVERY_STATUS.SUCCEEDED, event_id: eventId(1) });
    expect(result.delivery.attempts).toHaveLength(4);
    const [request] = transport.sent;
    expect(request!.url).toBe(HOOK);
    expect(request!.headers).toMatchObject({ 'X-Event-Id': eventId(1), 'webhook-id': eventId(1), 'webhook-timestamp': String(Math.floor(clock.now() / 1000)) });
    expect(JSON.parse(request!.body)).toEqual(anEvent({ eventId: eventId(1) }).payload);
    expect(verifySignature(JSON.parse(request!.body), SECRET, request!.headers['X-Webhook-Signature']!)).toBe(true);
    expect(verifyStandardWebhook(request!.body, request!.headers, SECRET, { receivedAt: clock.now() }).ok).toBe(true);
    // A delivered event may be sent again too; a failed redelivery is recorded and leaves the status as it was.
    transport.answerWith(503);
    const again = await app.webhooks.redeliver(user.userId, 'D1');
    expect(again).toMatchObject({ delivered: false, attempt: { http_status: 503, error: 'HTTP 503', redelivery: true } });
    expect(again.delivery.status).toBe(DELIVERY_STATUS.SUCCEEDED);
    expect((await core.stores.deliveries.get('D1'))!.attempts).toHaveLength(5);
  });

  it('a failed redelivery of a DEAD delivery keeps it DEAD and starts no retry schedule', async () => {
    await deadDelivery('D1', 1);
    core.transport.answerWith(500);
    const result = await core.app.webhooks.redeliver(user.userId, 'D1');
    expect(result.delivery).toMatchObject({ status: DELIVERY_STATUS.DEAD, next_attempt_at: null });
  });

  it('refuses SKIPPED (never replayed), in-progress, another user\'s and unknown deliveries; nothing is sent', async () => {
    const { app, transport } = core;
    await deadDelivery('DS', 1, { status: DELIVERY_STATUS.SKIPPED, url: null, attempts: [] });
    await deadDelivery('DR', 2, { status: DELIVERY_STATUS.RETRYING, nextAttemptAt: 10 });
    await deadDelivery('DX', 3, { userId: user.userId + 1 });
    expect(await failureOf(app.webhooks.redeliver(user.userId, 'DS'))).toEqual({ code: 'WEBHOOK-DELIVERY-SKIPPED' });
    expect(await failureOf(app.webhooks.redeliver(user.userId, 'DR'))).toEqual({ code: 'WEBHOOK-DELIVERY-IN-PROGRESS' });
    expect(await failureOf(app.webhooks.redeliver(user.userId, 'DX'))).toEqual({ code: 'WEBHOOK-DELIVERY-NOT-FOUND' });
    expect(await failureOf(app.webhooks.redeliver(user.userId, 'nope'))).toEqual({ code: 'WEBHOOK-DELIVERY-NOT-FOUND' });
    expect(transport.sent).toEqual([]);
  });

  it('redelivery needs an approved URL; a pending change keeps using the approved one', async () => {
    const { app, transport } = core;
    await deadDelivery('D1', 1);
    await app.subscriptions.putConfig(user.userId, { service_code: 'developer', config: { webhook_url: NEXT } });
    await app.webhooks.redeliver(user.userId, 'D1');
    expect(transport.sent.map((r) => r.url)).toEqual([HOOK]);
    await app.subscriptions.putConfig(user.userId, { service_code: 'developer', config: { webhook_url: '' } });
    expect(await failureOf(app.webhooks.redeliver(user.userId, 'D1'))).toEqual({ code: 'BIZ-WEBHOOK-URL-UNVERIFIED' });
  });

  it('a new secret overlaps the old one for 24 h: both v1 entries, the spec header with the new secret only', async () => {
    const { app, transport, clock } = core;
    await app.subscriptions.putConfig(user.userId, { service_code: 'developer', config: { webhook_secret: 'new-secret-42' } });
    const view = await app.subscriptions.getDeveloperConfig(user.userId);
    expect(JSON.stringify(view)).not.toContain('new-secret-42');
    expect(JSON.stringify(view)).not.toContain(SECRET);
    expect(view.config.previous_secret_valid_until).toBe(new Date(clock.now() + 24 * 3_600_000).toISOString().replace('.000Z', '+00:00'));
    await app.webhooks.test(user.userId);
    const [during] = transport.sent;
    const body = JSON.parse(during!.body);
    expect(during!.headers['webhook-signature']!.split(' ')).toHaveLength(2);
    expect(verifySignature(body, 'new-secret-42', during!.headers['X-Webhook-Signature']!)).toBe(true);
    expect(verifySignature(body, SECRET, during!.headers['X-Webhook-Signature']!)).toBe(false);
    for (const secret of ['new-secret-42', SECRET]) {
      expect(verifyStandardWebhook(during!.body, during!.headers, secret, { receivedAt: clock.now() }).ok).toBe(true);
    }
    clock.advance(24 * 3_600_000);
    await app.webhooks.test(user.userId);
    const after = transport.sent[1]!;
    expect(after.headers['webhook-signature']!.split(' ')).toHaveLength(1);
    expect(verifyStandardWebhook(after.body, after.headers, SECRET, { receivedAt: clock.now() }).ok).toBe(false);
    expect(verifyStandardWebhook(after.body, after.headers, 'new-secret-42', { receivedAt: clock.now() }).ok).toBe(true);
    expect((await app.subscriptions.getDeveloperConfig(user.userId)).config.previous_secret_valid_until).toBeNull();
  });

  it('removing the webhook drops both secrets', async () => {
    const { app, stores } = core;
    await app.subscriptions.putConfig(user.userId, { service_code: 'developer', config: { webhook_secret: 'new-secret-42' } });
    await app.subscriptions.putConfig(user.userId, { service_code: 'developer', config: { webhook_url: '' } });
    const config = await stores.developerConfigs.get(user.userId);
    expect(config).toMatchObject({ secret: null, previousSecret: null });
  });
});
