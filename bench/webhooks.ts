/**
 * Webhook deliveries per second through the worker's real delivery path: outbox events -> WebhookDispatcher
 * (record, claim, decrypt the secret, sign) driven by the worker's own job (startWebhookJob) -> HttpWebhookTransport
 * -> a receiver in a CHILD process (so the receiver's TLS and parsing do not share this process's event loop, and
 * the figure is the sender's). Memory store. `npx tsx bench/webhooks.ts` (or `npm run bench:webhooks`).
 *
 * Two sides, alternated within one run (ROUNDS of each), medians reported:
 * - https (the figure, goal >= 2,000 deliveries/s): `https://hooks.bench.test/uN`, the production transport
 *   exactly as production builds it except for what a loopback test cannot avoid, the same injections the
 *   transport's own TLS tests use:
 *     1. resolver: the production NodeDnsResolver with its OS lookup replaced by a fixed answer (127.0.0.1), so no
 *        DNS server is involved (the resolve + deny-list check + pin still run on every attempt);
 *     2. ca: the child's self-signed test certificate is trusted (production trusts the system roots only);
 *     3. allowLocal + testConnectPort: the loopback address is allowed (production refuses 127/8) and the socket
 *        connects to the child's port instead of 443 (every check still sees the URL as given).
 *   Everything else (URL syntax check, resolve, deny-list, pin, SNI and certificate verification, 15 s budget,
 *   64 KiB cap, keep-alive and TLS session reuse per pinned address) is the production code.
 * - http (the baseline the old bench measured): `http://127.0.0.1:<port>/uN` with allowLocal, as before.
 *
 * Also printed: the delivering process's CPU time per delivery (process.cpuUsage over the round), which the other
 * sessions sharing this machine disturb far less than the wall-clock rate.
 *
 * Env: BENCH_SIDES (default `https,http`; one side for profiling), BENCH_EVENTS (deliveries per round, default
 * 3000), BENCH_CONCURRENCY (attempts in flight, default 32), BENCH_ROUNDS (rounds per side, default 3), BENCH_MS
 * (cap per round, default 20000).
 */
import { fork } from 'node:child_process';
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { HttpWebhookTransport } from '../adapters/http/index.js';
import { makeTestCertificate } from '../adapters/http/test-certificate.js';
import { createMemoryAdapters } from '../adapters/memory/index.js';
import { AesGcmKeyCipher, NodeDnsResolver, SystemClock } from '../adapters/node/index.js';
import { secretAad } from '../core/application/developer-config.js';
import { WebhookDispatcher } from '../core/application/worker/webhook-dispatcher.js';
import { startWebhookJob } from '../hosts/worker/jobs/webhooks.js';
import { DELIVERY_STATUS, type WebhookEvent } from '../core/domain/model/webhook.js';

const HOST = 'hooks.bench.test';
const GOAL = 2_000;

/** What the receiver child tells the parent once it listens, and what it has seen when asked. */
interface Listening { readonly httpsPort: number; readonly httpPort: number; readonly ca: string }
interface Counts { readonly received: number; readonly handshakes: number; readonly resumed: number }

if (process.argv[2] === '--receiver') {
  // The child: one https and one http receiver on loopback, answering 200 after reading the whole body.
  const cert = makeTestCertificate([HOST], Date.now());
  let received = 0;
  const tls = { handshakes: 0, resumed: 0 };
  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    req.resume();
    req.on('end', () => { received += 1; res.writeHead(200, { 'content-type': 'text/plain' }).end('ok'); });
  };
  const https = createHttpsServer({ key: cert.key, cert: cert.cert }, handle);
  https.on('secureConnection', (socket: TLSSocket) => {
    tls.handshakes += 1;
    if (socket.isSessionReused()) tls.resumed += 1;
  });
  const http = createHttpServer(handle);
  await Promise.all([https, http].map((server) => new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))));
  const listening: Listening = {
    httpsPort: (https.address() as AddressInfo).port, httpPort: (http.address() as AddressInfo).port, ca: cert.cert,
  };
  process.send!(listening);
  process.on('message', (message) => {
    if (message === 'count') process.send!({ received, ...tls });
    if (message === 'exit') process.exit(0);
  });
} else {
  await main();
}

async function main(): Promise<void> {
  const EVENTS = Number(process.env['BENCH_EVENTS'] ?? 3_000);
  const CONCURRENCY = Number(process.env['BENCH_CONCURRENCY'] ?? 32);
  const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 3);
  const CAP_MS = Number(process.env['BENCH_MS'] ?? 20_000);
  const SIDES = (process.env['BENCH_SIDES'] ?? 'https,http').split(',') as (keyof typeof sides)[];
  const USERS = 10;

  const child = fork(fileURLToPath(import.meta.url), ['--receiver'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const ports = await new Promise<Listening>((resolve) => child.once('message', (m) => resolve(m as Listening)));
  const counts = (): Promise<Counts> => new Promise((resolve) => {
    child.once('message', (m) => resolve(m as Counts));
    child.send('count');
  });

  const sides = {
    https: {
      origin: `https://${HOST}`,
      transport: () => new HttpWebhookTransport({
        resolver: new NodeDnsResolver(async () => [{ address: '127.0.0.1', family: 4 }]),
        ca: ports.ca, allowLocal: true, testConnectPort: ports.httpsPort,
      }),
    },
    http: {
      origin: `http://127.0.0.1:${ports.httpPort}`,
      transport: () => new HttpWebhookTransport({ resolver: new NodeDnsResolver(), allowLocal: true }),
    },
  } as const;

  /** One round: a fresh store with EVENTS outbox events, drained by the worker job until every delivery succeeded. */
  async function round(side: keyof typeof sides): Promise<{ rate: number; cpuUs: number; succeeded: number; ms: number; capped: boolean }> {
    const clock = new SystemClock();
    const mem = createMemoryAdapters({ clock });
    const cipher = new AesGcmKeyCipher({ currentKeyId: 'bench', keys: { bench: new Uint8Array(32).fill(9) } });
    for (let userId = 1; userId <= USERS; userId += 1) {
      await mem.developerConfigs.save({
        userId, url: `${sides[side].origin}/u${userId}`, pendingUrl: null, pendingSince: null, verifiedAt: 0, reviewNote: null,
        secret: await cipher.encrypt(new TextEncoder().encode(`secret-${userId}`), secretAad(userId)), previousSecret: null, minCollectAmounts: {}, version: 1,
      });
    }
    const events: WebhookEvent[] = Array.from({ length: EVENTS }, (_, i) => {
      const eventId = mem.ids.uuid();
      return {
        eventId, userId: (i % USERS) + 1, eventType: 'collection.completed', occurredAt: clock.now(), dispatched: false,
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
      transport: sides[side].transport(),
    }, { concurrency: CONCURRENCY, eventBatch: 500 });

    let succeeded = 0;
    let failed = '';
    let done: () => void = () => undefined;
    const finished = new Promise<void>((resolve) => { done = resolve; });
    const cpu = process.cpuUsage();
    const started = performance.now();
    // Exactly what the worker runs: the job records the outbox and refills free slots on a 1 ms interval.
    const job = startWebhookJob(dispatcher, {
      intervalMs: 1,
      onAttempts: (outcomes) => {
        for (const o of outcomes) {
          if (o.status === DELIVERY_STATUS.SUCCEEDED) succeeded += 1;
          else if (failed === '') failed = o.attempt.error ?? `HTTP ${o.attempt.httpStatus}`;
        }
        if (succeeded >= EVENTS) done();
      },
    });
    const capped = await Promise.race([
      finished.then(() => false),
      new Promise<boolean>((resolve) => setTimeout(() => resolve(true), CAP_MS).unref()),
    ]);
    const ms = performance.now() - started;
    const used = process.cpuUsage(cpu);
    await job.stop();
    if (failed !== '') process.stdout.write(`  (${side}: a failed attempt: ${failed})\n`);
    return { rate: (succeeded / ms) * 1000, cpuUs: (used.user + used.system) / Math.max(succeeded, 1), succeeded, ms, capped };
  }

  const rates: Record<keyof typeof sides, number[]> = { https: [], http: [] };
  const cpus: Record<keyof typeof sides, number[]> = { https: [], http: [] };
  // One unreported round per side first, so neither side pays for the JIT warming up in its first measured round.
  for (const side of SIDES) await round(side);
  const before = await counts();
  let delivered = 0;
  for (let r = 1; r <= ROUNDS; r += 1) {
    for (const side of r % 2 === 1 ? SIDES : [...SIDES].reverse()) {
      const result = await round(side);
      rates[side].push(result.rate);
      cpus[side].push(result.cpuUs);
      delivered += result.succeeded;
      process.stdout.write(`  round ${r} ${side.padEnd(5)} ${fmt(result.rate).padStart(6)} deliveries/s  ${Math.round(result.cpuUs).toString().padStart(4)} µs sender CPU each  (${result.succeeded} of ${EVENTS} in ${Math.round(result.ms)} ms${result.capped ? `, stopped at the ${CAP_MS} ms cap` : ''})\n`);
    }
  }
  const after = await counts();
  child.send('exit');
  const seen = after.received - before.received;

  const https = median(rates.https);
  const http = median(rates.http);
  process.stdout.write(
    `webhooks https ${fmt(https).padStart(6)} deliveries/s  ${fmt(median(cpus.https)).padStart(4)} µs sender CPU each  `
    + `goal >= ${fmt(GOAL)}  ${https >= GOAL ? 'MET' : 'NOT MET'}\n`
    + `         http  ${fmt(http).padStart(6)} deliveries/s  ${fmt(median(cpus.http)).padStart(4)} µs sender CPU each  `
    + `baseline (plain http, as the old bench)  https/http = ${(https / http).toFixed(2)}\n`
    + `         medians of ${ROUNDS} alternating rounds of ${EVENTS} deliveries, ${CONCURRENCY} in flight at most; `
    + `receiver in a child process saw ${seen} requests for ${delivered} successes, `
    + `${after.handshakes - before.handshakes} TLS handshakes (${after.resumed - before.resumed} resumed)\n`,
  );
}

function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

function fmt(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}
