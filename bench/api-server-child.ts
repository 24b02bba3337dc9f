/**
 * One server of bench/api.ts, in its own process so the load generator's CPU is not the server's. Started by
 * bench/api.ts with an IPC channel; sends `{ url, path, headers, snapshot }` once listening, and exits cleanly on a
 * 'stop' message (so `node --cpu-prof` can write its profile).
 *
 * BENCH_SIDE=api: the composed API (real pipeline: bearer lookup, ownership, rate limit, envelope, request log) with
 * one developer token and a main address with a cached balance; BENCH_LOCKS=redis with REDIS_URL puts locks and rate
 * limits on Redis, as LOCKS=redis does in production. BENCH_STORE=postgres with DATABASE_URL (and DATABASE_POOL_SIZE)
 * runs the store on PostgreSQL, as STORE=postgres does in production: the composition migrates the database and the
 * seeding below goes through the API, so the token, wallet and balance the hot read reads are rows.
 * BENCH_SIDE=bare: a bare h3 route answering the same path with the same JSON (BENCH_SNAPSHOT), the ceiling of
 * routing + serialization on this machine; BENCH_BARE=paced with BENCH_SPIN_US a bare h3 slowed by a busy spin per
 * request (the calibration of bench/api.ts; a `{ spinUs }` message changes the spin). BENCH_LAYERS=1 adds the API's
 * pipeline layer by layer as routes of the API's own app (LAYERS). BENCH_READ=cashier-session makes the hot read the
 * payer's GET /api/cashier/session with a cashier token of a sub-address (issue 37) instead of the balance read; the
 * bare side then answers that path with that JSON.
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { randomBytes, randomUUID } from 'node:crypto';
import { H3, type H3Event } from 'h3';
import { pino, type Logger } from 'pino';
import { ManualClock, RecordingMailer } from '../adapters/memory/index.js';
import { NodeSecretHasher, TEST_SCRYPT_COST } from '../adapters/node/index.js';
import { startDevnet } from '../adapters/tron-devnet/index.js';
import { startApiServer, type RunningServer } from '../hosts/api/api-server.js';
import { BearerAuthenticator } from '../hosts/api/auth.js';
import { okReply, toHttpResponse } from '../hosts/api/envelope.js';
import { REDACT_PATHS } from '../hosts/api/logger.js';
import { applyRateLimit, DEFAULT_RATE_LIMITS } from '../hosts/api/rate-limit.js';
import { logRequestLine } from '../hosts/api/request-log.js';
import { loadConfig } from '../hosts/composition/config.js';
import { openComposition, type Composition } from '../hosts/composition/container.js';
import { TOKENS } from '../hosts/composition/tokens.js';

/** What the child tells its parent once it listens. */
export interface ServerReady {
  readonly url: string;
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly snapshot: unknown;
  /** With BENCH_LAYERS=1 (the API side): a bare route in the API's app, then each layer of LAYERS, and their paths. */
  readonly layers?: ReadonlyArray<{ readonly name: string; readonly path: string }>;
}

/** The composed API's operator token (the bench never uses it; the layers' authenticator needs one). */
const ADMIN_TOKEN = 'bench-admin-token-0123456789abcdef';

/**
 * The API's pipeline rebuilt one layer at a time, for BENCH_DECOMPOSE (bench/api.ts): each route of the composed API's
 * own h3 app runs the layers up to its own, with the API's real parts (its token lookup, limiter, use case, logger
 * and metrics), so each is measured in the API process at the rate it gets there. Each layer adds one part to the one
 * before it; the last (`metrics`) does what runRoute does on this route, less its error handling.
 */
const LAYERS = ['envelope', 'bearer', 'rate limit', 'balance read', 'request line', 'metrics'] as const;

async function startComposedApi(): Promise<{ ready: ServerReady; close(): Promise<void> }> {
  const devnet = await startDevnet({ blockMs: 0, seed: 'bench-api' });
  const mailer = new RecordingMailer();
  const redisUrl = process.env['BENCH_LOCKS'] === 'redis' ? process.env['REDIS_URL'] : undefined;
  const postgres = process.env['BENCH_STORE'] === 'postgres';
  const config = loadConfig({
    TRON_FULL_HOST: devnet.url, USDT_CONTRACT: devnet.usdtAddress, ADMIN_TOKEN,
    ...(redisUrl === undefined ? {} : { LOCKS: 'redis', REDIS_URL: redisUrl }),
    // A durable store refuses an ephemeral key; the database is thrown away after the bench, so a random one will do.
    ...(postgres ? {
      STORE: 'postgres', DATABASE_URL: process.env['DATABASE_URL'], DATABASE_POOL_SIZE: process.env['DATABASE_POOL_SIZE'],
      KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    } : {}),
  }, { mode: 'dev' });
  // Request lines are serialized as in production, then dropped (a terminal would measure the terminal).
  const logger = pino({ level: 'info', base: { service: 'custody-api' }, redact: { paths: REDACT_PATHS, censor: '[redacted]' } },
    pino.destination({ dest: '/dev/null', sync: false }));
  // openComposition, as the API's main does: with STORE=postgres it opens the pool and applies the migrations.
  const composition = await openComposition(config, {
    clock: new ManualClock(Date.now()), mailer, logger, hasher: new NodeSecretHasher({ cost: TEST_SCRYPT_COST }),
    // Raised so the bench measures work, not 429s; every request still counts a hit.
    rateLimits: { get: 1_000_000_000 },
  });
  const server = await startApiServer(composition.container.get(TOKENS.ApiHost).h3, { port: 0 });
  const call = async (method: string, path: string, body: unknown, token?: string): Promise<any> => {
    const response = await fetch(`${server.url}/api${path}`, {
      method, body: body === undefined ? undefined : JSON.stringify(body),
      headers: { 'content-type': 'application/json', ...(token === undefined ? {} : { authorization: `Bearer ${token}` }) },
    });
    const json = await response.json() as { code: string; data: any };
    if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`);
    return json.data;
  };
  const email = 'bench@example.com';
  const password = 'bench password 0123';
  await call('POST', '/auth/register', { email, password });
  await call('POST', '/auth/verify', { email, code: mailer.lastCodeFor(email) });
  const { session_token: st } = await call('POST', '/auth/login', { email, password });
  await call('POST', '/subscriptions/activate', { service_code: 'developer' }, st);
  const { token } = await call('POST', '/api-tokens', { name: 'bench' }, st);
  const { address } = await call('POST', '/wallets', { network_code: 'TRON', address_type: 1 }, token);
  devnet.fund(address, 5_000_000n);
  await call('POST', `/wallets/${address}/balances/refresh`, { force: true }, token);
  let path = `/api/wallets/${address}/balances`;
  let snapshot = await call('GET', `/wallets/${address}/balances`, undefined, token);
  let bearer: string = token;
  if (process.env['BENCH_READ'] === 'cashier-session') {
    await call('POST', '/subscriptions/activate', { service_code: 'sub_address', plan_code: 'pro' }, st);
    const { address: sub } = await call('POST', '/wallets', { network_code: 'TRON', address_type: 2 }, token);
    ({ token: bearer } = await call('POST', '/cashier/tokens', { address: sub, ttl_minutes: 1440 }, token));
    path = '/api/cashier/session';
    snapshot = await call('GET', '/cashier/session', undefined, bearer);
  }
  const layers = process.env['BENCH_LAYERS'] === '1' ? addLayers(composition, logger, path, snapshot) : undefined;
  return {
    ready: { url: server.url, path, headers: { authorization: `Bearer ${bearer}` }, snapshot, ...(layers === undefined ? {} : { layers }) },
    close: async () => {
      await server.close();
      await composition.close();
      await devnet.close();
    },
  };
}

/**
 * Registers a bare route and one route per layer of {@link LAYERS} on the composed API's h3 app; returns each one's
 * name and path, bare first.
 */
function addLayers(composition: Composition, logger: Logger, path: string, snapshot: unknown): Array<{ name: string; path: string }> {
  const h3 = composition.container.get(TOKENS.ApiHost).h3;
  const app = composition.container.get(TOKENS.Application);
  const limiter = composition.container.get(TOKENS.RateLimiter);
  const metrics = composition.container.get(TOKENS.Metrics);
  const auth = new BearerAuthenticator(app, ADMIN_TOKEN);
  const limits = { ...DEFAULT_RATE_LIMITS, get: 1_000_000_000 };
  const route = '/api/wallets/:address/balances';
  // The bare route inside the API's own app and process: where the layers start from.
  h3.get('/bench-layer-bare/wallets/:address/balances', () => ({ code: 'OK', message: 'success', data: snapshot }));
  const bare = { name: 'bare route in the API app', path: path.replace(/^\/api/, '/bench-layer-bare') };
  return [bare, ...LAYERS.map((name, depth) => {
    const prefix = `/bench-layer-${depth}`;
    h3.get(`${prefix}/wallets/:address/balances`, async (event: H3Event) => {
      const started = performance.now();
      const headers: Record<string, string> = { 'x-request-id': randomUUID() };
      let data = snapshot;
      if (depth >= 1) {
        const caller = await auth.authenticate('developer', event.req.headers.get('authorization'));
        if (caller.kind !== 'developer') throw new Error('not a developer token');
        if (depth >= 2) Object.assign(headers, await applyRateLimit(limiter, limits, 'get', caller));
        if (depth >= 3) data = await app.wallets.balances(caller.userId, event.context.params!['address']!);
      }
      const reply = okReply(data);
      if (depth >= 4) {
        logRequestLine(logger, {
          reqId: headers['x-request-id']!, method: event.req.method, path: event.url.pathname, route, status: reply.status,
          code: undefined, user: 1, ms: Math.round((performance.now() - started) * 10) / 10,
        });
      }
      if (depth >= 5) metrics.httpRequest('GET', route, reply.status, (performance.now() - started) / 1_000);
      return toHttpResponse(reply, headers);
    });
    return { name: `+ ${name}`, path: path.replace(/^\/api/, prefix) };
  })];
}

/**
 * The bare route: 'plain' is bare h3; 'paced' is 'plain' plus a busy spin of `spinUs` microseconds per request, for
 * BENCH_CALIBRATE: it stands in for work, so a bare server answers at about the API's rate and shows what a server at
 * that rate pays in system time (waking the load generator) without doing the API's work.
 */
type BareVariant = 'plain' | 'paced';

async function startBareH3(path: string, snapshot: unknown, variant: BareVariant, spinUs: number): Promise<{ ready: ServerReady; close(): Promise<void> }> {
  const h3 = new H3();
  const route = path === '/api/cashier/session' ? path : '/api/wallets/:address/balances';
  if (variant === 'plain') h3.get(route, () => ({ code: 'OK', message: 'success', data: snapshot }));
  else {
    let spinMs = spinUs / 1_000;
    process.on('message', (message: unknown) => {
      if (typeof message === 'object' && message !== null && 'spinUs' in message) spinMs = Number(message.spinUs) / 1_000;
    });
    h3.get(route, () => {
      // A busy spin on purpose, standing in for the API's work (the only one in the bench).
      const until = performance.now() + spinMs;
      while (performance.now() < until);
      return { code: 'OK', message: 'success', data: snapshot };
    });
  }
  const server: RunningServer = await startApiServer(h3, { port: 0 });
  return { ready: { url: server.url, path, headers: {}, snapshot }, close: () => server.close() };
}

/**
 * With BENCH_PROFILE_FILE, V8's sampling profiler (what `node --cpu-prof` runs) from now until 'stop': the hot path
 * only, without module loading and setup. Returns the function that writes the profile.
 */
async function startProfiler(file: string): Promise<() => Promise<void>> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  return async () => {
    const { profile } = await session.post('Profiler.stop');
    writeFileSync(file, JSON.stringify(profile));
    session.disconnect();
  };
}

const started = process.env['BENCH_SIDE'] === 'bare'
  ? await startBareH3(process.env['BENCH_PATH'] ?? '/api/wallets/T/balances', JSON.parse(process.env['BENCH_SNAPSHOT'] ?? '{}'),
    (process.env['BENCH_BARE'] ?? 'plain') as BareVariant, Number(process.env['BENCH_SPIN_US'] ?? 0))
  : await startComposedApi();
const profileFile = process.env['BENCH_PROFILE_FILE'];
const stopProfiler = profileFile === undefined ? async () => undefined : await startProfiler(profileFile);
process.on('message', (message) => {
  if (message !== 'stop') return;
  void stopProfiler().then(() => started.close()).finally(() => process.exit(0));
});
process.send?.(started.ready);
