import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildTestCore, startTestDevnet, type TestCore } from '../../adapters/memory/testing/memory-test-core.js';
import type { Devnet } from '../../adapters/tron-devnet/index.js';
import { aDelivery } from '../../contracts-tests/support/fixtures.js';
import { DELIVERY_STATUS } from '../domain/model/webhook.js';
import { verifySignature } from '../domain/signature.js';
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
    expect(await failureOf(app.webhooks.test(user.userId))).toEqual({ code: 'BIZ-WEBHOOK-URL-UNVERIFIED', status: 422 });
    await app.subscriptions.putConfig(user.userId, { service_code: 'developer', config: { webhook_url: HOOK, webhook_secret: SECRET } });
    expect(await failureOf(app.webhooks.test(user.userId))).toEqual({ code: 'BIZ-WEBHOOK-URL-UNVERIFIED', status: 422 });
    expect(transport.sent).toEqual([]);
  });

  it('after approval sends one signed webhook.test to the approved URL and reports the outcome', async () => {
    const { app, transport } = core;
    await app.subscriptions.putConfig(user.userId, { service_code: 'developer', config: { webhook_url: HOOK, webhook_secret: SECRET } });
    await app.admin.approveWebhook(String(user.userId));
    const result = await app.webhooks.test(user.userId);
    expect(result).toEqual({ event_id: expect.any(String), url: HOOK, delivered: true, http_status: 200, error: null, duration_ms: 1 });
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
    await app.admin.approveWebhook(String(user.userId));
    await app.subscriptions.putConfig(user.userId, { service_code: 'developer', config: { webhook_url: 'https://hooks.example.com/next' } });
    expect((await app.webhooks.test(user.userId)).url).toBe(HOOK);
    expect(transport.sent.map((r) => r.url)).toEqual([HOOK]);
  });

  it('lists the caller\'s deliveries newest first, DEAD and SKIPPED included, with pagination', async () => {
    const { app, stores } = core;
    const { DEAD, SKIPPED, SUCCEEDED } = DELIVERY_STATUS;
    await stores.deliveries.insert(aDelivery({ deliveryId: 'D1', eventId: eventId(1), userId: user.userId, status: SUCCEEDED, createdAt: 1_000, nextAttemptAt: null }));
    await stores.deliveries.insert(aDelivery({ deliveryId: 'D2', eventId: eventId(2), userId: user.userId, status: DEAD, createdAt: 2_000, nextAttemptAt: null,
      attempts: [{ at: 2_000, httpStatus: 500, error: 'HTTP 500', durationMs: 12 }] }));
    await stores.deliveries.insert(aDelivery({ deliveryId: 'D3', eventId: eventId(3), userId: user.userId, status: SKIPPED, url: null, createdAt: 3_000, nextAttemptAt: null }));
    await stores.deliveries.insert(aDelivery({ deliveryId: 'D4', eventId: eventId(4), userId: user.userId + 1, createdAt: 4_000 }));
    const page = await app.webhooks.deliveries(user.userId, {});
    expect(page.items.map((d) => [d.delivery_id, d.status])).toEqual([['D3', SKIPPED], ['D2', DEAD], ['D1', SUCCEEDED]]);
    expect(page.items[1]).toEqual({
      delivery_id: 'D2', event_id: eventId(2), event_type: 'collection.completed', status: DEAD, url: 'https://hooks.example.com/in',
      attempts: [{ at: '1970-01-01T00:00:02+00:00', http_status: 500, error: 'HTTP 500', duration_ms: 12 }], next_attempt_at: null,
      created_at: '1970-01-01T00:00:02+00:00',
    });
    expect(page.pagination).toEqual({ page: 1, per_page: 20, total: 3, pages: 1 });
    expect((await app.webhooks.deliveries(user.userId, { page: '2', per_page: '2' })).items.map((d) => d.delivery_id)).toEqual(['D1']);
  });
});
