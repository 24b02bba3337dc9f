import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalReceiver, type LocalWebhookReceiver } from '../../../adapters/http/index.js';
import { createMemoryAdapters, ManualClock } from '../../../adapters/memory/index.js';
import { AesGcmKeyCipher } from '../../../adapters/node/aes-gcm-key-cipher.js';
import { NodeDnsResolver } from '../../../adapters/node/node-dns-resolver.js';
import { secretAad } from '../../../core/application/developer-config.js';
import { WebhookDispatcher } from '../../../core/application/worker/webhook-dispatcher.js';
import { DELIVERY_STATUS } from '../../../core/domain/model/webhook.js';
import { createWebhookTransport, startWebhookJob } from './webhooks.js';

let receiver: LocalWebhookReceiver;
beforeAll(async () => {
  receiver = await startLocalReceiver((r) => (r.path === '/slow' ? 'hang' : { status: 200 }));
});
afterAll(async () => {
  await receiver.close();
});

describe('startWebhookJob', () => {
  it('delivers new outbox events on its interval while a slow receiver hangs, and stop() waits for the attempt in flight', async () => {
    const clock = new ManualClock();
    const mem = createMemoryAdapters({ clock });
    const cipher = new AesGcmKeyCipher({ currentKeyId: 'k', keys: { k: new Uint8Array(32).fill(1) } });
    for (const [userId, path] of [[1, '/slow'], [2, '/fast']] as const) {
      await mem.developerConfigs.save({
        userId, url: `${receiver.origin}${path}`, pendingUrl: null, pendingSince: null, verifiedAt: 0, reviewNote: null,
        secret: await cipher.encrypt(new TextEncoder().encode('s'), secretAad(userId)), previousSecret: null, minCollectAmounts: {}, version: 1,
      });
    }
    const dispatcher = new WebhookDispatcher({
      clock, ids: mem.ids, outbox: mem.outbox, deliveries: mem.deliveries, developerConfigs: mem.developerConfigs, cipher,
      transport: createWebhookTransport(new NodeDnsResolver(), true),
    });
    const job = startWebhookJob(dispatcher, { intervalMs: 5 });
    const event = (userId: number, n: number) => ({
      eventId: `e-${userId}-${n}`, userId, eventType: 'webhook.test' as const, occurredAt: clock.now(),
      payload: { event_id: `e-${userId}-${n}`, event_type: 'webhook.test', occurred_at: '2026-01-01T00:00:00+00:00' }, dispatched: false,
    });
    await mem.uow.commit({ events: [event(1, 1)] });
    await receiver.waitFor(1);
    await mem.uow.commit({ events: [event(2, 1), event(2, 2)] });
    await receiver.waitFor(3);
    let stopped = false;
    const stopping = job.stop().then(() => { stopped = true; });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(stopped).toBe(false);
    receiver.release();
    await stopping;
    const statuses = (await mem.deliveries.listByUser(1, { offset: 0, limit: 10 })).items.map((d) => d.status);
    expect(statuses).toEqual([DELIVERY_STATUS.SUCCEEDED]);
  });
});
