/**
 * API throughput: authenticated, rate-limited GET /api/wallets/{address}/balances on the composed API (memory
 * adapters, the real pipeline: bearer lookup, ownership, rate limit, envelope, request log) against a bare h3 route
 * answering the same JSON, in one run, same process, over loopback with keep-alive. Goal: at least 0.65x bare h3.
 * `npm run bench:api`. Bounded: BENCH_MS per side (default 2,000, in alternating slices) and BENCH_MAX_REQUESTS (default 200,000);
 * BENCH_CONCURRENCY requests in flight (default 32). Rate limits are raised so the bench measures work, not 429s.
 * BENCH_ONLY=api|bare drives one side alone (for `node --cpu-prof --import tsx bench/api.ts`).
 */
import { Agent, request } from 'node:http';
import { performance } from 'node:perf_hooks';
import { H3 } from 'h3';
import { pino } from 'pino';
import { ManualClock, RecordingMailer } from '../adapters/memory/index.js';
import { NodeSecretHasher, TEST_SCRYPT_COST } from '../adapters/node/index.js';
import { startDevnet } from '../adapters/tron-devnet/index.js';
import { startApiServer, type RunningServer } from '../hosts/api/api-server.js';
import { REDACT_PATHS } from '../hosts/api/logger.js';
import { loadConfig } from '../hosts/composition/config.js';
import { composeContainer } from '../hosts/composition/container.js';
import { TOKENS } from '../hosts/composition/tokens.js';

const MEASURE_MS = Number(process.env['BENCH_MS'] ?? 2_000);
const MAX_REQUESTS = Number(process.env['BENCH_MAX_REQUESTS'] ?? 200_000);
const CONCURRENCY = Number(process.env['BENCH_CONCURRENCY'] ?? 32);
const WARMUP_MS = 300;
const SLICES = 10;
const GOAL = 0.65;

interface Result {
  readonly ok: number;
  readonly failed: number;
  /** Wall-clock milliseconds spent driving. */
  readonly ms: number;
  /** CPU milliseconds this process used meanwhile (client and server share it alike on both sides). */
  readonly cpuMs: number;
}

/** Keeps CONCURRENCY GETs in flight on one keep-alive agent until the time or the request budget is spent. */
async function drive(agent: Agent, url: string, headers: Record<string, string>, ms: number, budget: number): Promise<Result> {
  const target = new URL(url);
  let sent = 0;
  let ok = 0;
  let failed = 0;
  const get = (): Promise<number> => new Promise((resolve, reject) => {
    const req = request({ host: target.hostname, port: target.port, path: target.pathname, method: 'GET', agent, headers }, (res) => {
      res.on('data', () => undefined);
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
  const cpu = process.cpuUsage();
  const started = performance.now();
  const deadline = started + ms;
  const worker = async (): Promise<void> => {
    while (performance.now() < deadline && sent < budget) {
      sent += 1;
      if ((await get()) === 200) ok += 1;
      else failed += 1;
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const used = process.cpuUsage(cpu);
  return { ok, failed, ms: performance.now() - started, cpuMs: (used.user + used.system) / 1000 };
}

function add(a: Result, b: Result): Result {
  return { ok: a.ok + b.ok, failed: a.failed + b.failed, ms: a.ms + b.ms, cpuMs: a.cpuMs + b.cpuMs };
}

/** A side of the comparison: where to send and with which headers. */
interface Side {
  readonly name: string;
  readonly url: string;
  readonly headers: Record<string, string>;
}

/**
 * Alternates short slices of the two sides (SLICES each) and sums them: on a shared machine the load of neighbours
 * comes and goes, and alternating spreads it over both sides instead of penalising whichever ran during a burst.
 */
async function compare(a: Side, b: Side): Promise<[Result, Result]> {
  const agents = [new Agent({ keepAlive: true, maxSockets: CONCURRENCY }), new Agent({ keepAlive: true, maxSockets: CONCURRENCY })] as const;
  const sides = [a, b] as const;
  for (let i = 0; i < 2; i++) await drive(agents[i]!, sides[i]!.url, sides[i]!.headers, WARMUP_MS, MAX_REQUESTS);
  const zero: Result = { ok: 0, failed: 0, ms: 0, cpuMs: 0 };
  const totals: [Result, Result] = [zero, zero];
  const sliceMs = MEASURE_MS / SLICES;
  for (let slice = 0; slice < SLICES; slice++) {
    for (let i = 0; i < 2; i++) {
      const budget = Math.ceil(MAX_REQUESTS / SLICES);
      totals[i] = add(totals[i]!, await drive(agents[i]!, sides[i]!.url, sides[i]!.headers, sliceMs, budget));
    }
  }
  for (const agent of agents) agent.destroy();
  return totals;
}

function report(side: Side, r: Result): void {
  const rate = Math.round((r.ok / r.ms) * 1000).toLocaleString('en-US');
  const perCpu = Math.round((r.ok / r.cpuMs) * 1000).toLocaleString('en-US');
  process.stdout.write(`${side.name.padEnd(10)} ${rate.padStart(9)} req/s  ${perCpu.padStart(9)} req/CPU-s  (${r.ok} ok, ${r.failed} not 200, ${CONCURRENCY} in flight)\n`);
  if (r.failed > 0) throw new Error(`${side.name}: ${r.failed} answers were not 200`);
}

/** The composed API on memory adapters, with one user, a developer token and a main address with a cached balance. */
async function startComposedApi(): Promise<{ server: RunningServer; token: string; address: string; close(): Promise<void> }> {
  const devnet = await startDevnet({ blockMs: 0, seed: 'bench-api' });
  const mailer = new RecordingMailer();
  const config = loadConfig({ TRON_FULL_HOST: devnet.url, USDT_CONTRACT: devnet.usdtAddress, ADMIN_TOKEN: 'bench-admin-token-0123456789abcdef' }, { mode: 'dev' });
  // Request lines are serialized as in production, then dropped (a terminal would measure the terminal).
  const logger = pino({ level: 'info', base: { service: 'custody-api' }, redact: { paths: REDACT_PATHS, censor: '[redacted]' } }, pino.destination({ dest: '/dev/null', sync: false }));
  const composition = composeContainer(config, {
    clock: new ManualClock(Date.now()), mailer, logger, hasher: new NodeSecretHasher({ cost: TEST_SCRYPT_COST }),
    rateLimits: { get: 1_000_000_000 },
  });
  const server = await startApiServer(composition.container.get(TOKENS.ApiHost).h3, { port: 0 });
  const call = async (method: string, path: string, body: unknown, token?: string): Promise<any> => {
    const response = await fetch(`${server.url}/api${path}`, {
      method, body: JSON.stringify(body),
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
  return {
    server, token, address,
    close: async () => {
      await server.close();
      await composition.close();
      await devnet.close();
    },
  };
}

/** A bare h3 app answering the same path with the same JSON: the ceiling of routing + serialization on this machine. */
async function startBareH3(snapshot: unknown): Promise<RunningServer> {
  const h3 = new H3();
  h3.get('/api/wallets/:address/balances', () => ({ code: 'OK', message: 'success', data: snapshot }));
  return startApiServer(h3, { port: 0 });
}

const composed = await startComposedApi();
const path = `/api/wallets/${composed.address}/balances`;
const auth = { authorization: `Bearer ${composed.token}` };
const snapshot = ((await (await fetch(composed.server.url + path, { headers: auth })).json()) as { data: unknown }).data;
const bare = await startBareH3(snapshot);
try {
  const bareSide: Side = { name: 'bare h3', url: bare.url + path, headers: {} };
  const apiSide: Side = { name: 'api', url: composed.server.url + path, headers: auth };
  const only = process.env['BENCH_ONLY'];
  if (only === 'api' || only === 'bare') {
    const side = only === 'api' ? apiSide : bareSide;
    const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
    await drive(agent, side.url, side.headers, WARMUP_MS, MAX_REQUESTS);
    report(side, await drive(agent, side.url, side.headers, MEASURE_MS, MAX_REQUESTS));
    agent.destroy();
    process.exit(0);
  }
  const [bareResult, apiResult] = await compare(bareSide, apiSide);
  report(bareSide, bareResult);
  report(apiSide, apiResult);
  const ratio = (apiResult.ok / apiResult.ms) / (bareResult.ok / bareResult.ms);
  const cpuRatio = (apiResult.ok / apiResult.cpuMs) / (bareResult.ok / bareResult.cpuMs);
  process.stdout.write(`ratio      api/bare h3 = ${ratio.toFixed(2)}x throughput, ${cpuRatio.toFixed(2)}x per CPU-second `
    + `(goal >= ${GOAL}x: ${ratio >= GOAL ? 'met' : 'NOT met'})\n`);
} finally {
  await bare.close();
  await composed.close();
}
