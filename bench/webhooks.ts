/**
 * Webhook deliveries per second: outbox events -> signed POSTs through the SSRF-checked HttpWebhookTransport to a
 * local node:http receiver, with the WebhookDispatcher polled as the worker job does, on the memory store.
 * `npx tsx bench/webhooks.ts` (or `npm run bench:webhooks`). Bounded: BENCH_EVENTS deliveries or BENCH_MS, whichever
 * comes first. Env: BENCH_EVENTS (default 3000), BENCH_CONCURRENCY (attempts in flight, default 32), BENCH_MS (cap,
 * default 20000). One new TCP connection per attempt (the transport never reuses sockets, by design: every attempt is
 * resolved, checked and pinned again), so the figure is dominated by connection setup.
 */
import { performance } from 'node:perf_hooks';
import { HttpWebhookTransport, startLocalReceiver } from '../adapters/http/index.js';
import { createMemoryAdapters } from '../adapters/memory/index.js';
import { AesGcmKeyCipher, NodeDnsResolver, SystemClock } from '../adapters/node/index.js';
import { secretAad } from '../core/application/developer-config.js';
import { WebhookDispatcher } from '../core/application/worker/webhook-dispatcher.js';
import { startWebhookJob } from '../hosts/worker/jobs/webhooks.js';
import { DELIVERY_STATUS, type WebhookEvent } from '../core/domain/model/webhook.js';

const EVENTS = Number(process.env['BENCH_EVENTS'] ?? 3_000);
const CONCURRENCY = Number(process.env['BENCH_CONCURRENCY'] ?? 32);
const CAP_MS = Number(process.env['BENCH_MS'] ?? 20_000);
const USERS = 10;

const receiver = await startLocalReceiver();
const clock = new SystemClock();
const mem = createMemoryAdapters({ clock });
const cipher = new AesGcmKeyCipher({ currentKeyId: 'bench', keys: { bench: new Uint8Array(32).fill(9) } });
for (let userId = 1; userId <= USERS; userId += 1) {
  await mem.developerConfigs.save({
    userId, url: `${receiver.origin}/u${userId}`, pendingUrl: null, pendingSince: null, verifiedAt: 0, reviewNote: null,
    secret: await cipher.encrypt(new TextEncoder().encode(`secret-${userId}`), secretAad(userId)), previousSecret: null, minCollectAmounts: {}, version: 1,
  });
}
const events: WebhookEvent[] = Array.from({ length: EVENTS }, (_, i) => {
  const eventId = mem.ids.uuid();
  const userId = (i % USERS) + 1;
  return {
    eventId, userId, eventType: 'collection.completed', occurredAt: clock.now(), dispatched: false,
    payload: {
      event_id: eventId, event_type: 'collection.completed', occurred_at: new Date(clock.now()).toISOString(),
      task_no: `T${i}`, status: 11, network_code: 'TRON', asset_symbol: 'USDT', address: 'TXYZbench', swept_amount: 1_000_000 + i,
      sweep_tx_hash: 'ab'.repeat(32), credited_at: new Date(clock.now()).toISOString(), error: null,
    },
  };
});
await mem.uow.commit({ events });

const dispatcher = new WebhookDispatcher({
  clock, ids: mem.ids, outbox: mem.outbox, deliveries: mem.deliveries, developerConfigs: mem.developerConfigs, cipher,
  transport: new HttpWebhookTransport({ resolver: new NodeDnsResolver(), allowLocal: true }),
}, { concurrency: CONCURRENCY, eventBatch: 500 });

const started = performance.now();
// Exactly what the worker runs: the job records the outbox and refills free slots on a 1 ms interval.
const job = startWebhookJob(dispatcher, { intervalMs: 1 });
const capped = await Promise.race([
  receiver.waitFor(EVENTS).then(() => false),
  new Promise<boolean>((resolve) => setTimeout(() => resolve(true), CAP_MS)),
]);
await job.stop();
const elapsed = performance.now() - started;
await receiver.close();
const all = (await mem.deliveries.listByUser(1, { offset: 0, limit: 1 })).total * USERS;
let succeeded = 0;
for (let userId = 1; userId <= USERS; userId += 1) {
  const page = await mem.deliveries.listByUser(userId, { offset: 0, limit: EVENTS });
  succeeded += page.items.filter((d) => d.status === DELIVERY_STATUS.SUCCEEDED).length;
}

const rate = Math.round((succeeded / elapsed) * 1000).toLocaleString('en-US');
process.stdout.write(
  `webhooks ${rate.padStart(8)} deliveries/s  (${succeeded} of ${all} succeeded, ${receiver.received.length} received, `
  + `${CONCURRENCY} in flight at most, ${Math.round(elapsed)} ms from outbox to last 2xx)\n`,
);
if (capped) process.stdout.write(`stopped at the ${CAP_MS} ms cap before all ${EVENTS} deliveries\n`);
