import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpWebhookTransport, startLocalReceiver, type LocalWebhookReceiver } from '../../adapters/http/index.js';
import { NodeDnsResolver } from '../../adapters/node/index.js';
import { aDelivery, anEvent } from '../../contracts-tests/support/fixtures.js';
import { DELIVERY_STATUS, type WebhookDelivery } from '../../core/domain/model/webhook.js';
import { TOKENS } from '../composition/tokens.js';
import { verifySpecSignature, verifyStandardWebhook } from '../../packages/client/src/webhooks.js';
import { startHarness, type ApiHarness } from './test-harness.js';
import { expectAnswersDocumented, expectDocumented, fails, ok, signUp, type TestUser } from './api-test-fixtures.js';

/** GET /webhooks/deliveries and POST /webhooks/deliveries/{id}/redeliver over real HTTP (issue #15, decisions 67-69). */
describe('webhook delivery log and redelivery', () => {
  let h: ApiHarness;
  let receiver: LocalWebhookReceiver;
  let replies: { status: number; body?: string }[] = [];

  beforeAll(async () => {
    receiver = await startLocalReceiver(() => replies.shift() ?? { status: 200, body: 'thanks' });
    h = await startHarness({ transport: new HttpWebhookTransport({ resolver: new NodeDnsResolver(), allowLocal: true }) });
  });
  afterAll(async () => {
    expectAnswersDocumented(h);
    await h.close();
    await receiver.close();
  });

  const secret = `whsec-${randomUUID()}`;
  async function developer(): Promise<TestUser & { url: string }> {
    const user = await signUp(h);
    const url = `${receiver.origin}/hooks/${user.userId}`;
    ok(await h.call('PUT', '/api/subscriptions/config', { token: user.session, body: { service_code: 'developer', config: { webhook_url: url, webhook_secret: secret } } }));
    ok(await h.call('POST', `/api/admin/webhooks/${user.userId}/approve`, { token: h.adminToken, body: { url } }));
    return { ...user, url };
  }
  async function seed(userId: number, overrides: Partial<WebhookDelivery>, eventType = 'collection.completed'): Promise<WebhookDelivery> {
    const stores = h.container.get(TOKENS.Stores);
    const eventId = randomUUID();
    await stores.uow.commit({ events: [anEvent({ eventId, userId, payload: { event_id: eventId, event_type: eventType, occurred_at: '2026-01-01T00:00:00+00:00', status: 11, note: 'ünï' } })] });
    const delivery = aDelivery({
      deliveryId: randomUUID(), eventId, userId, status: DELIVERY_STATUS.DEAD, nextAttemptAt: null, url: 'https://hooks.example.com/old',
      attempts: [1, 2, 3].map((k) => ({ at: h.clock.now() - k, httpStatus: 500, error: 'HTTP 500', durationMs: 4, response: 'busy', redelivery: false, url: null })),
      createdAt: h.clock.now(), ...overrides,
    });
    await stores.deliveries.insert(delivery);
    return delivery;
  }

  it('lists payloads and attempts, filters by status; another user sees none of them', async () => {
    const user = await developer();
    const dead = await seed(user.userId, {});
    const skipped = await seed(user.userId, { status: DELIVERY_STATUS.SKIPPED, url: null, attempts: [] });
    const all = ok(await h.call('GET', '/api/webhooks/deliveries', { token: user.session }));
    expectDocumented(h, 'GET', '/api/webhooks/deliveries', all);
    expect(all.items.map((d: any) => d.delivery_id).sort()).toEqual([dead.deliveryId, skipped.deliveryId].sort());
    const onlyDead = ok(await h.call('GET', '/api/webhooks/deliveries?status=5', { token: user.session }));
    expect(onlyDead.items.map((d: any) => d.delivery_id)).toEqual([dead.deliveryId]);
    expect(onlyDead.pagination.total).toBe(1);
    expect(onlyDead.items[0].payload).toMatchObject({ event_id: dead.eventId, note: 'ünï' });
    expect(onlyDead.items[0].attempts[0]).toMatchObject({ http_status: 500, error: 'HTTP 500', duration_ms: 4, response: 'busy', redelivery: false, url: null });
    fails(await h.call('GET', '/api/webhooks/deliveries?status=7', { token: user.session }), 422, 'VALIDATION-ERROR');
    const other = await signUp(h);
    expect(ok(await h.call('GET', '/api/webhooks/deliveries', { token: other.session })).items).toEqual([]);
  });

  it('redelivers a DEAD event to the approved URL: same event_id, both signatures verify, the attempt is recorded', async () => {
    const user = await developer();
    const dead = await seed(user.userId, {});
    const before = receiver.received.length;
    replies = [{ status: 200, body: `ok ${'x'.repeat(2000)}` }];
    const result = ok(await h.call('POST', `/api/webhooks/deliveries/${dead.deliveryId}/redeliver`, { token: user.session }));
    expectDocumented(h, 'POST', '/api/webhooks/deliveries/:id/redeliver', result);
    expect(result).toMatchObject({ delivered: true, attempt: { http_status: 200, error: null, redelivery: true, url: user.url } });
    expect(result.attempt.response).toBe(`ok ${'x'.repeat(1021)}`);
    expect(result.delivery).toMatchObject({ delivery_id: dead.deliveryId, status: DELIVERY_STATUS.SUCCEEDED });
    expect(result.delivery.attempts).toHaveLength(4);
    const got = receiver.received[before]!;
    expect(got.path).toBe(`/hooks/${user.userId}`);
    expect(got.headers['x-event-id']).toBe(dead.eventId);
    expect(got.headers['webhook-id']).toBe(dead.eventId);
    expect(JSON.parse(got.body).event_id).toBe(dead.eventId);
    expect(verifySpecSignature(got.body, secret, got.headers['x-webhook-signature'] as string)).toBe(true);
    // The send time comes from the service's clock (a ManualClock here).
    expect(got.headers['webhook-timestamp']).toBe(String(Math.floor(h.clock.now() / 1000)));
    expect(verifyStandardWebhook(got.body, got.headers, secret, { receivedAt: h.clock.now() })).toMatchObject({ ok: true, id: dead.eventId });
    const listed = ok(await h.call('GET', '/api/webhooks/deliveries?status=3', { token: user.session }));
    expect(listed.items[0].attempts.at(-1)).toMatchObject({ redelivery: true, http_status: 200 });
  });

  it('a DEAD deposit.* or payment.* event (opt-in, issues #24/#25) is redelivered the same way, signed, its type kept', async () => {
    const user = await developer();
    for (const eventType of ['deposit.confirmed', 'payment.paid']) {
      const dead = await seed(user.userId, {}, eventType);
      const before = receiver.received.length;
      replies = [{ status: 200, body: 'ok' }];
      const result = ok(await h.call('POST', `/api/webhooks/deliveries/${dead.deliveryId}/redeliver`, { token: user.session }));
      expect(result, eventType).toMatchObject({ delivered: true, delivery: { delivery_id: dead.deliveryId, status: DELIVERY_STATUS.SUCCEEDED } });
      const got = receiver.received[before]!;
      expect(JSON.parse(got.body), eventType).toMatchObject({ event_id: dead.eventId, event_type: eventType });
      expect(verifySpecSignature(got.body, secret, got.headers['x-webhook-signature'] as string), eventType).toBe(true);
      expect(verifyStandardWebhook(got.body, got.headers, secret, { receivedAt: h.clock.now() }), eventType).toMatchObject({ ok: true, id: dead.eventId });
    }
  });

  it('the webhook test reports the start of the receiver\'s answer and carries both signatures too', async () => {
    const user = await developer();
    replies = [{ status: 418, body: 'short and stout' }];
    const before = receiver.received.length;
    const tested = ok(await h.call('POST', '/api/webhooks/debug/test', { token: user.session }));
    expectDocumented(h, 'POST', '/api/webhooks/debug/test', tested);
    expect(tested).toMatchObject({ delivered: false, http_status: 418, response: 'short and stout' });
    const got = receiver.received[before]!;
    expect(got.headers['webhook-id']).toBe(tested.event_id);
    expect(verifyStandardWebhook(got.body, got.headers, secret, { receivedAt: h.clock.now() }).ok).toBe(true);
    expect(verifySpecSignature(got.body, secret, got.headers['x-webhook-signature'] as string)).toBe(true);
  });

  it('a failed redelivery is recorded and leaves DEAD as it was', async () => {
    const user = await developer();
    const dead = await seed(user.userId, {});
    replies = [{ status: 503, body: 'down' }];
    const result = ok(await h.call('POST', `/api/webhooks/deliveries/${dead.deliveryId}/redeliver`, { token: user.session }));
    expect(result).toMatchObject({ delivered: false, attempt: { http_status: 503, error: 'HTTP 503', response: 'down', redelivery: true } });
    expect(result.delivery.status).toBe(DELIVERY_STATUS.DEAD);
  });

  it('SKIPPED is refused with its own code, another user\'s delivery is nonexistent, one on its schedule is in progress', async () => {
    const user = await developer();
    const other = await developer();
    const skipped = await seed(user.userId, { status: DELIVERY_STATUS.SKIPPED, url: null, attempts: [] });
    const retrying = await seed(user.userId, { status: DELIVERY_STATUS.RETRYING, nextAttemptAt: h.clock.now() + 60_000 });
    const theirs = await seed(other.userId, {});
    const before = receiver.received.length;
    const redeliver = (id: string) => h.call('POST', `/api/webhooks/deliveries/${id}/redeliver`, { token: user.session });
    fails(await redeliver(skipped.deliveryId), 409, 'WEBHOOK-DELIVERY-SKIPPED');
    fails(await redeliver(retrying.deliveryId), 409, 'WEBHOOK-DELIVERY-IN-PROGRESS');
    const foreign = await redeliver(theirs.deliveryId);
    const unknown = await redeliver(randomUUID());
    fails(foreign, 404, 'WEBHOOK-DELIVERY-NOT-FOUND');
    fails(unknown, 404, 'WEBHOOK-DELIVERY-NOT-FOUND');
    expect(foreign.json.message).toBe(unknown.json.message);
    expect(receiver.received.length).toBe(before);
    fails(await h.call('POST', `/api/webhooks/deliveries/${theirs.deliveryId}/redeliver`, {}), 401, 'UNAUTHENTICATED');
  });

  it('is rate-limited per user: 10 a minute, then 429 with Retry-After', async () => {
    const user = await developer();
    const dead = await seed(user.userId, {});
    h.clock.advance(61_000);
    for (let i = 0; i < 10; i++) ok(await h.call('POST', `/api/webhooks/deliveries/${dead.deliveryId}/redeliver`, { token: user.session }));
    const limited = await h.call('POST', `/api/webhooks/deliveries/${dead.deliveryId}/redeliver`, { token: user.session });
    fails(limited, 429, 'RATE-LIMITED');
    expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);
    h.clock.advance(61_000);
    ok(await h.call('POST', `/api/webhooks/deliveries/${dead.deliveryId}/redeliver`, { token: user.session }));
  });
});
