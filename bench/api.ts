/**
 * API throughput: the authenticated, rate-limited GET /api/wallets/{address}/balances of the composed API against a
 * bare h3 route answering the same JSON. Every party is its own process: each server (bench/api-server-child.ts),
 * the load generator (wrk when installed, else autocannon: bench/api-load-child.ts) and Redis. With taskset and two or more CPUs, servers run
 * on CPU 0 and the load generator on CPU 1 (Redis on BENCH_REDIS_CPU, default 1: in production Redis is another
 * machine, so it does not take the API server's core).
 *
 * After a warm-up of each side, BENCH_ROUNDS rounds (default 5) of BENCH_SECONDS (default 3) alternate the sides
 * (api, bare, api, bare…), so the load of neighbours on a shared machine spreads over both; the figure is the ratio
 * of the medians of the rounds' req/s. Also printed: requests per server CPU-second (from /proc), which holds even when
 * the load generator rather than the server is the bottleneck. Goals: ≥ 0.75× bare h3 with memory adapters, ≥ 0.6×
 * with locks and rate limits on Redis (issue 16), judged on those two figures.
 *
 * Each side also prints its server CPU per request split into user and system time (utime and stime of
 * /proc/<pid>/stat), and a third figure compares user CPU per request only (bare/api), judged against no goal. On
 * loopback, and more so in a VM, most of a server's system time per request is its writev waking the load generator
 * (sock_def_readable, an IPI here), which sleeps in epoll whenever the server is slow: so system time per request
 * depends on the server's rate, not on its work, and penalises the slower side. BENCH_CALIBRATE=1 (or
 * BENCH_DECOMPOSE=1) shows it: a bare h3 paced by a busy spin (BENCH_BARE=paced of api-server-child.ts) chosen from the
 * comparison's rounds so that its user CPU per request matches the API's (first guess: api user − bare user, corrected
 * once after a warm-up round), measured in rounds alternating with the API's; the system time it pays at about the
 * API's rate is the rate's share, not the API's work.
 *
 * The PostgreSQL row (issue 22; `postgres` in BENCH_STORES, there by default when PostgreSQL's binaries are found, else
 * a loud SKIPPED line) runs the same comparison with STORE=postgres (locks and rate limits in memory, so the row differs
 * from the memory row by the store alone) on a throwaway cluster of contracts-tests/harness/postgres.ts: the API child's
 * composition migrates a fresh database and the seeding goes through the API into it. In the same run, on the same
 * cluster, `pgbench -S` (select-only, prepared; database of its own, `pgbench -i -s 1`; BENCH_PGBENCH_CLIENTS clients,
 * default BENCH_CONNECTIONS when set, else 8, and the API's DATABASE_POOL_SIZE is set to the same number, so both hold
 * as many server sessions; one thread; for BENCH_SECONDS × BENCH_ROUNDS) runs pinned like the load generator, and its
 * tps is printed beside the API's req/s and p99, with the SQL statements one hot read issues (counted with
 * pg_stat_statements over 1,000 sequential requests; where that extension cannot be loaded, transactions from
 * pg_stat_database.xact_commit, a lower bound), and the API server's CPU per request (user and system). Issue 37's
 * goals for this row, each printed met or not: at least 0.25x pgbench -S tps, p99 at most 10 ms at 32 connections, at
 * most 1 statement per request (the token cache is warm by the time statements are counted, after the rounds; the
 * token listener's heartbeats, a few a second whatever the load, are shown apart), and also the statements per
 * request under load, over every timed round of the API (balance reads asked in one turn share one statement, so
 * fewer than one). BENCH_PROFILE=1 prints the top
 * self-time entries of the PostgreSQL row's API server, as of every row's. PostgreSQL runs on BENCH_PG_CPU: by
 * default a CPU of its own when there are three or more, else the load generator's (as Redis: in production the
 * database is another machine, so it does not take the API server's core).
 *
 * `npm run bench:api`. BENCH_PIN=0 turns pinning off. BENCH_STORES=memory,redis,postgres picks the comparisons; BENCH_CONNECTIONS (default 32) connections;
 * BENCH_CALIBRATE=1 adds the calibration above to each comparison. BENCH_READ=cashier-session makes every row's hot read the
 * payer's GET /api/cashier/session (a cashier token of a sub-address; on PostgreSQL one statement with the expiry's
 * slide, issue 37) instead of the balance read.
 * BENCH_PROFILE=1 profiles each API server's CPU (V8's sampling profiler, as `node --cpu-prof`, but started once the
 * server is set up so module loading and setup stay out) and prints the profiles' top self-time entries (the bare
 * server's too: what both sides pay). Under a loaded machine a sampling profile inflates system calls (a thread
 * descheduled inside one is sampled there), so BENCH_DECOMPOSE=1 also measures by ablation: throughput and server CPU
 * per request of a bare route and of the API's pipeline rebuilt layer by layer, as routes of the API's own app
 * (envelope and request id, bearer lookup, rate-limit hit, balance read, request line, metrics), then of the API, in
 * alternating rounds (and turns on BENCH_CALIBRATE).
 */
import { execFile, spawn, spawnSync, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { accessSync, constants, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import pg from 'pg';
import {
  createTestDatabase, findPostgresBinaries, startPostgresServer, type PostgresServer, type PostgresTestDatabase,
} from '../contracts-tests/harness/postgres.js';
import { startRedisServer, type RedisServer } from '../contracts-tests/harness/redis.js';
import type { LoadOrder, LoadResult } from './api-load-child.js';
import type { ServerReady } from './api-server-child.js';

const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 5);
const SECONDS = Number(process.env['BENCH_SECONDS'] ?? 3);
const WARMUP_SECONDS = Number(process.env['BENCH_WARMUP_SECONDS'] ?? 2);
const CONNECTIONS = Number(process.env['BENCH_CONNECTIONS'] ?? 32);
const SETTLE_MS = Number(process.env['BENCH_SETTLE_MS'] ?? 1_500);
type Store = 'memory' | 'redis' | 'postgres';
const PG_BIN = findPostgresBinaries();
const STORES = (process.env['BENCH_STORES'] ?? `memory,redis${PG_BIN === null ? '' : ',postgres'}`).split(',') as Store[];
const PGBENCH_CLIENTS = Number(process.env['BENCH_PGBENCH_CLIENTS'] ?? process.env['BENCH_CONNECTIONS'] ?? 8);
/** Hot reads whose SQL statements are counted (sequential, so the count is exact). */
const COUNTED_REQUESTS = 1_000;
const PROFILE = process.env['BENCH_PROFILE'] === '1';
const DECOMPOSE = process.env['BENCH_DECOMPOSE'] === '1';
const CALIBRATE = process.env['BENCH_CALIBRATE'] === '1' || DECOMPOSE;
/** Issue 16's goals for the memory and Redis rows (the PostgreSQL row's are PG_GOALS, issue 37). */
const GOALS: Partial<Record<Store, number>> = { memory: 0.75, redis: 0.6 };

const here = fileURLToPath(new URL('.', import.meta.url));
const pinning = process.env['BENCH_PIN'] !== '0' && spawnSync('taskset', ['-V']).status === 0 && availableParallelism() >= 2;
const SERVER_CPU = 0;
const LOAD_CPU = 1;
const REDIS_CPU = Number(process.env['BENCH_REDIS_CPU'] ?? LOAD_CPU);
// A CPU of its own when the machine has one to give, as a database host would be; else the load generator's, not the
// server's: in production the database is another machine, and on the server's core its work would be the API's loss.
const PG_CPU = Number(process.env['BENCH_PG_CPU'] ?? (availableParallelism() >= 3 ? 2 : LOAD_CPU));
const CLOCK_TICKS = Number(spawnSync('getconf', ['CLK_TCK']).stdout?.toString().trim() || 100);

/** A node child running a TypeScript file under tsx, pinned to `cpu` when pinning is possible, with an IPC channel. */
function spawnNode(script: string, cpu: number, env: Record<string, string>): ChildProcess {
  const args = ['--import', 'tsx', join(here, script)];
  const options: SpawnOptions = { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], env: { ...process.env, ...env } };
  return pinning ? spawn('taskset', ['-c', String(cpu), process.execPath, ...args], options) : spawn(process.execPath, args, options);
}

function nextMessage<T>(child: ChildProcess): Promise<T> {
  return new Promise((resolve, reject) => {
    const onExit = (code: number | null): void => reject(new Error(`child exited (${code}) before answering`));
    child.once('exit', onExit);
    child.once('message', (message) => {
      child.off('exit', onExit);
      resolve(message as T);
    });
  });
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.send('stop');
  await exited;
}

/** CPU seconds a process has used so far, user and system apart (utime and stime, fields 14 and 15 of /proc/<pid>/stat). */
function cpuSeconds(pid: number): { readonly user: number; readonly system: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { user: Number(fields[11]) / CLOCK_TICKS, system: Number(fields[12]) / CLOCK_TICKS };
}

interface Server {
  readonly name: string;
  readonly child: ChildProcess;
  readonly ready: ServerReady;
}

async function startServer(name: string, env: Record<string, string>): Promise<Server> {
  const child = spawnNode('api-server-child.ts', SERVER_CPU, env);
  return { name, child, ready: await nextMessage<ServerReady>(child) };
}

/** One round against one server: req/s, requests per server CPU-second and server CPU per request. */
interface Round {
  /** 2xx answers in the round. */
  readonly ok: number;
  readonly rate: number;
  readonly perCpu: number;
  /** Server CPU per request in user mode, µs. */
  readonly userUs: number;
  /** Server CPU per request in the kernel, µs (mostly loopback TCP and waking the load generator). */
  readonly systemUs: number;
  readonly p99Ms: number;
  /** Share of one CPU the server used: near 1, the server is the bottleneck; well below, the load generator is. */
  readonly busy: number;
}

async function round(load: ChildProcess, server: Server, seconds: number): Promise<Round> {
  // A server just out of a round slows the next round's server on the same core (its idle-time work once the load
  // stops): without this pause bare h3 measured 47k req/s right after the API's round, 67k with it.
  await settle();
  const order: LoadOrder = { url: server.ready.url + server.ready.path, headers: server.ready.headers, seconds, connections: CONNECTIONS };
  const cpuBefore = cpuSeconds(server.child.pid!);
  load.send(order);
  const result = await nextMessage<LoadResult>(load);
  const cpuAfter = cpuSeconds(server.child.pid!);
  const user = cpuAfter.user - cpuBefore.user;
  const system = cpuAfter.system - cpuBefore.system;
  const cpu = user + system;
  if (result.notOk > 0 || result.errors > 0) throw new Error(`${server.name}: ${result.notOk} answers not 2xx, ${result.errors} errors`);
  const perRequestUs = (seconds: number): number => (result.ok > 0 ? (seconds / result.ok) * 1e6 : Number.NaN);
  return {
    ok: result.ok, rate: result.ok / result.seconds, perCpu: cpu > 0 ? result.ok / cpu : Number.NaN, userUs: perRequestUs(user), systemUs: perRequestUs(system),
    p99Ms: result.p99Ms, busy: cpu / result.seconds,
  };
}

/** BENCH_SETTLE_MS (default 1.5 s) of rest between rounds. */
function settle(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

const fmt = (n: number): string => Math.round(n).toLocaleString('en-US');
const micros = (n: number): string => `${n.toFixed(1)} µs`;

/** Server CPU per request of a side, user and system apart: the medians of its rounds' figures. */
function cpuPerRequest(rs: readonly Round[]): { readonly user: number; readonly system: number } {
  return { user: median(rs.map((r) => r.userUs)), system: median(rs.map((r) => r.systemUs)) };
}

/** A side's rounds: req/s, req per server CPU-second, the server's CPU share and p99, then its CPU per request. */
function printSide(name: string, rs: readonly Round[]): void {
  const cpu = cpuPerRequest(rs);
  process.stdout.write(`  ${name.padEnd(12)} median ${fmt(median(rs.map((r) => r.rate))).padStart(7)} req/s `
    + `(rounds ${rs.map((r) => fmt(r.rate)).join(', ')}), ${fmt(median(rs.map((r) => r.perCpu))).padStart(7)} req/server-CPU-s, `
    + `server CPU ${Math.round(median(rs.map((r) => r.busy)) * 100)}%, p99 ${median(rs.map((r) => r.p99Ms)).toFixed(2)} ms\n`
    + `  ${''.padEnd(12)} server CPU per request: user ${micros(cpu.user)} + system ${micros(cpu.system)}\n`);
}

interface Rounds {
  readonly api: Round[];
  readonly bare: Round[];
  /** The API's warm-up round (its requests count in the statements under load). */
  readonly apiWarmup: Round;
}

/**
 * Alternates the two servers round by round after a warm-up of each, and prints both sides and the ratios; returns
 * the rounds (the calibration starts from them).
 */
async function compare(load: ChildProcess, apiServer: Server, bareServer: Server, store: Store): Promise<Rounds> {
  const apiWarmup = await round(load, apiServer, WARMUP_SECONDS);
  await round(load, bareServer, WARMUP_SECONDS);
  const rounds: Rounds = { api: [], bare: [], apiWarmup };
  for (let i = 0; i < ROUNDS; i++) {
    rounds.api.push(await round(load, apiServer, SECONDS));
    rounds.bare.push(await round(load, bareServer, SECONDS));
  }
  process.stdout.write(`${store}: ${ROUNDS} alternating rounds of ${SECONDS} s, ${CONNECTIONS} connections\n`);
  printSide(`api (${store})`, rounds.api);
  printSide('bare h3', rounds.bare);
  const api = { rate: median(rounds.api.map((r) => r.rate)), perCpu: median(rounds.api.map((r) => r.perCpu)) };
  const bare = { rate: median(rounds.bare.map((r) => r.rate)), perCpu: median(rounds.bare.map((r) => r.perCpu)) };
  const goal = GOALS[store];
  const figure = (label: string, unit: string, a: number, b: number): string => {
    const ratio = a / b;
    return `  ${label.padEnd(22)} api ${fmt(a)} ${unit} = ${ratio.toFixed(2)}x the baseline, bare h3 ${fmt(b)} ${unit} `
      + (goal === undefined ? '(no goal for this row)\n' : `(goal >= ${goal}x = ${fmt(goal * b)} ${unit}: ${ratio >= goal ? 'met' : 'NOT met'})\n`);
  };
  process.stdout.write(figure('throughput', 'req/s', api.rate, bare.rate) + figure('per server CPU-second', 'req', api.perCpu, bare.perCpu));
  // Judged against no goal: the system share is left out because it follows the rate (see the header and calibrate).
  const apiUser = cpuPerRequest(rounds.api).user;
  const bareUser = cpuPerRequest(rounds.bare).user;
  process.stdout.write(`  user CPU only (the system share is mostly waking the load generator, see calibration${CALIBRATE ? '' : ': BENCH_CALIBRATE=1'}):\n`
    + `  ${''.padEnd(22)} api ${micros(apiUser)} per request, bare h3 ${micros(bareUser)} = ${(bareUser / apiUser).toFixed(2)}x (bare/api)\n`);
  const bareBusy = median(rounds.bare.map((r) => r.busy));
  if (bareBusy < 0.8) {
    process.stdout.write(`  note: the bare server used only ${Math.round(bareBusy * 100)}% of its CPU, so the load generator or the machine's `
      + 'other load bounded its throughput: the throughput ratio flatters the API; the per-CPU ratio is the one to trust\n');
  }
  return rounds;
}

/**
 * What a server at the API's rate pays in system time without the API's work: a bare h3 paced by a busy spin whose
 * user CPU per request matches the API's in the comparison's rounds (first guess api user − bare user, corrected once
 * after a warm-up round), in rounds alternating with the API's. Prints the measured figures of both.
 */
async function calibrate(load: ChildProcess, apiServer: Server, measured: Rounds): Promise<void> {
  const apiUser = cpuPerRequest(measured.api).user;
  const firstGuess = Math.max(0, apiUser - cpuPerRequest(measured.bare).user);
  const paced = await startServer('bare h3 paced', {
    BENCH_SIDE: 'bare', BENCH_BARE: 'paced', BENCH_SPIN_US: String(firstGuess),
    BENCH_PATH: apiServer.ready.path, BENCH_SNAPSHOT: JSON.stringify(apiServer.ready.snapshot),
  });
  try {
    await round(load, paced, WARMUP_SECONDS);
    const probe = await round(load, paced, WARMUP_SECONDS);
    const spin = Math.max(0, firstGuess + apiUser - probe.userUs);
    paced.child.send({ spinUs: spin });
    const rounds: { api: Round[]; paced: Round[] } = { api: [], paced: [] };
    for (let i = 0; i < ROUNDS; i++) {
      rounds.api.push(await round(load, apiServer, SECONDS));
      rounds.paced.push(await round(load, paced, SECONDS));
    }
    process.stdout.write(`calibration: ${ROUNDS} alternating rounds of ${SECONDS} s, the API against bare h3 paced by a busy spin of `
      + `${micros(spin)} per request (first guess ${micros(firstGuess)} = api user − bare user; after a warm-up, ${micros(probe.userUs)} `
      + `user per request against the API's ${micros(apiUser)}, so corrected by ${(spin - firstGuess).toFixed(1)})\n`);
    printSide('api', rounds.api);
    printSide('bare paced', rounds.paced);
    const apiRate = median(rounds.api.map((r) => r.rate));
    const pacedRate = median(rounds.paced.map((r) => r.rate));
    const api = cpuPerRequest(rounds.api);
    const bare = cpuPerRequest(rounds.paced);
    // The conclusion follows the measured figures: within a tenth, the system share is the rate's; beyond, the rest is the API's.
    const rest = api.system - bare.system;
    process.stdout.write(`calibration: bare h3 slowed to ${fmt(pacedRate)} req/s pays user ${micros(bare.user)} + system ${micros(bare.system)} per request\n`
      + `  the API at ${fmt(apiRate)} req/s pays system ${micros(api.system)}; at about equal rate a server that does none of the API's work pays `
      + (rest <= 0.1 * bare.system
        ? `${micros(bare.system)} (${rest >= 0 ? `${rest.toFixed(1)} µs less` : `${(-rest).toFixed(1)} µs more`}), so the system share is the rate's `
          + '(waking the load generator), not the API\'s work\n'
        : `${micros(bare.system)} of it: that much is the rate's (waking the load generator), the remaining ${micros(rest)} is the API's own\n`));
    const apart = Math.abs(pacedRate - apiRate) / apiRate;
    if (apart > 0.15) {
      process.stdout.write(`  note: the two rates are ${Math.round(apart * 100)}% apart, so the calibration compares them only roughly\n`);
    }
  } finally {
    await stopChild(paced.child);
  }
}

/**
 * Throughput and server CPU per request of each step from a bare route to the API (medians of alternating rounds),
 * and what each step adds: a bare route, then the API's pipeline rebuilt layer by layer (`LAYERS` of
 * api-server-child.ts), all in the API's own app and process, so each layer is measured at the rate it runs at there.
 * (The bare server's own process measured ~45k req/s in these rounds against ~67k in the comparison's, for reasons
 * not found, so it is not the baseline here.)
 */
async function decompose(load: ChildProcess, apiServer: Server): Promise<void> {
  const layers = (apiServer.ready.layers ?? []).map((layer): Server => ({ ...apiServer, name: layer.name, ready: { ...apiServer.ready, path: layer.path } }));
  const steps = [...layers, { ...apiServer, name: '= the API (runRoute)' }];
  for (const step of steps) await round(load, step, WARMUP_SECONDS);
  const rounds: Round[][] = steps.map(() => []);
  for (let i = 0; i < ROUNDS; i++) {
    for (const [j, step] of steps.entries()) rounds[j]!.push(await round(load, step, SECONDS));
  }
  process.stdout.write('decomposition: each step adds one part of the API to the one before (medians of alternating rounds)\n');
  let previous = 0;
  for (const [j, step] of steps.entries()) {
    const perRequest = 1e6 / median(rounds[j]!.map((r) => r.perCpu));
    const added = j === 0 ? '' : ` (${perRequest >= previous ? '+' : ''}${(perRequest - previous).toFixed(1)})`;
    process.stdout.write(`  ${step.name.padEnd(26)} ${fmt(median(rounds[j]!.map((r) => r.rate))).padStart(7)} req/s, `
      + `server CPU ${perRequest.toFixed(1)} µs per request${added}\n`);
    previous = perRequest;
  }
}

/** Self samples by function of a V8 CPU profile, idle time left out. */
function selfTimes(file: string): Map<string, number> {
  interface Node { readonly hitCount: number; readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number } }
  const profile = JSON.parse(readFileSync(file, 'utf8')) as { nodes: Node[] };
  const self = new Map<string, number>();
  for (const node of profile.nodes) {
    const { functionName, url, lineNumber } = node.callFrame;
    if (functionName === '(idle)') continue;
    const where = url === '' ? '' : ` ${url.replace(/^.*\/(node_modules\/|work\/main\/)/, '')}:${lineNumber + 1}`;
    const name = `${functionName || '(anonymous)'}${where}`;
    self.set(name, (self.get(name) ?? 0) + node.hitCount);
  }
  return self;
}

/** The top self-time entries of a profile. */
function printProfile(name: string, file: string, top: number): void {
  const self = selfTimes(file);
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  process.stdout.write(`  profile of the ${name} from warm-up to stop (${total} busy samples), top self time:\n`);
  for (const [name, hits] of [...self].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    process.stdout.write(`    ${((hits / total) * 100).toFixed(1).padStart(5)}%  ${name}\n`);
  }
}

/** The bench's PostgreSQL cluster; `statementStats` is null when pg_stat_statements counts its statements, else why not. */
interface BenchPostgres {
  readonly server: PostgresServer;
  readonly statementStats: string | null;
}

/** Runs one statement on its own session and returns the rows. */
async function sql<R extends pg.QueryResultRow>(url: string, text: string, values: unknown[] = []): Promise<R[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<R>(text, values)).rows;
  } finally {
    await client.end();
  }
}

/**
 * A throwaway cluster with pg_stat_statements loaded, its processes pinned to PG_CPU. The harness starts clusters
 * without the library, and only a start can load it: it is set with ALTER SYSTEM and the cluster started again on the
 * same data. pgbench pays the extension's small cost too, so the two sides of the ratio stay alike.
 */
async function startBenchPostgres(bin: string): Promise<BenchPostgres> {
  const server = await startPostgresServer({ bin });
  let statementStats: string | null = null;
  const library = join(pkgLibDir(bin), 'pg_stat_statements.so');
  try {
    accessSync(library, constants.R_OK);
    await sql(server.url, `ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'`);
    await server.stop('fast');
    await server.start();
    await sql(server.url, 'CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
  } catch (error) {
    statementStats = firstLine(error);
  }
  pinPostgres(server);
  return { server, statementStats };
}

/** Where the server's loadable libraries are (`pg_config --pkglibdir`, else Debian's layout beside bin/). */
function pkgLibDir(bin: string): string {
  const out = spawnSync(join(bin, 'pg_config'), ['--pkglibdir'], { encoding: 'utf8' });
  return out.status === 0 ? out.stdout.trim() : join(bin, '..', 'lib');
}

/**
 * Pins the postmaster (read from postmaster.pid: as root the harness's child is runuser, not the server) and the
 * processes it has started to PG_CPU; the backends of later connections are forked from it and inherit the mask.
 */
function pinPostgres(server: PostgresServer): void {
  if (!pinning) return;
  const postmaster = readFileSync(join(server.dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]!.trim();
  let children: string[] = [];
  try {
    children = readFileSync(`/proc/${postmaster}/task/${postmaster}/children`, 'utf8').trim().split(/\s+/).filter((pid) => pid !== '');
  } catch {
    // A kernel without /proc/<pid>/task/<pid>/children: its background workers stay unpinned, the backends do not.
  }
  for (const pid of [postmaster, ...children]) spawnSync('taskset', ['-pc', String(PG_CPU), pid]);
}

/** How many SQL statements one hot read issues, how they were counted, and which they are (most frequent first). */
interface StatementCount {
  readonly perRequest: number;
  readonly method: string;
  readonly statements: ReadonlyArray<{ readonly query: string; readonly perRequest: number }>;
}

/**
 * Counts the statements of COUNTED_REQUESTS hot reads sent one after another (so none is in flight when counting
 * stops) in the API's database: with pg_stat_statements, every top-level statement, transaction control included;
 * without it, committed transactions (pg_stat_database.xact_commit), a lower bound when a request runs several
 * statements in one transaction. Such counters reach pg_stat_database only when a backend has been idle a while (at
 * most 10 s, PGSTAT_IDLE_INTERVAL), hence the waits.
 */
async function countStatements(bench: BenchPostgres, database: PostgresTestDatabase, api: Server): Promise<StatementCount> {
  const hotReads = async (): Promise<void> => {
    for (let i = 0; i < COUNTED_REQUESTS; i++) {
      const response = await fetch(api.ready.url + api.ready.path, { headers: api.ready.headers });
      await response.arrayBuffer();
      if (!response.ok) throw new Error(`the hot read answered ${response.status} while its statements were counted`);
    }
  };
  const over = `over ${fmt(COUNTED_REQUESTS)} sequential hot reads`;
  if (bench.statementStats === null) {
    await sql(bench.server.url, 'SELECT pg_stat_statements_reset()');
    await hotReads();
    const rows = await sql<{ query: string; calls: number }>(bench.server.url, 'SELECT query, calls::int AS calls FROM pg_stat_statements '
      + 'WHERE dbid = (SELECT oid FROM pg_database WHERE datname = $1) ORDER BY calls DESC', [database.name]);
    // The token listener's heartbeats come a few a second whatever the requests: per request they would only say how
    // long the counting took, so they are shown apart.
    const all = rows.map((row) => ({ query: row.query.replace(/\s+/g, ' '), perRequest: row.calls / COUNTED_REQUESTS }));
    const statements = all.filter((s) => !s.query.includes(HEARTBEAT_MARK));
    const heartbeats = all.filter((s) => s.query.includes(HEARTBEAT_MARK)).reduce((sum, s) => sum + s.perRequest * COUNTED_REQUESTS, 0);
    return {
      perRequest: statements.reduce((sum, s) => sum + s.perRequest, 0), statements,
      method: `pg_stat_statements ${over}; besides them the token listener's ${fmt(heartbeats)} heartbeats`,
    };
  }
  const commits = async (): Promise<number> => {
    const rows = await sql<{ commits: string }>(bench.server.url, 'SELECT xact_commit AS commits FROM pg_stat_database WHERE datname = $1', [database.name]);
    return Number(rows[0]!.commits);
  };
  await sleep(11_000);
  const before = await commits();
  await hotReads();
  await sleep(11_000);
  return {
    perRequest: ((await commits()) - before) / COUNTED_REQUESTS,
    method: `committed transactions (pg_stat_database.xact_commit, a lower bound on statements) ${over}; `
      + `pg_stat_statements unavailable: ${bench.statementStats}`,
    statements: [],
  };
}

/** The heartbeat text of adapters/postgres/pg-token-listener.ts, told apart from a request's statements. */
const HEARTBEAT_MARK = 'custody_token_listener_heartbeat';

/**
 * Statements the API's database ran since the last pg_stat_statements reset, the token listener's heartbeats left out:
 * over the timed rounds, statements per request under load (reads asked in one turn share one statement).
 */
async function statementsSinceReset(bench: BenchPostgres, database: PostgresTestDatabase): Promise<number> {
  const rows = await sql<{ calls: number }>(bench.server.url, 'SELECT coalesce(sum(calls), 0)::bigint::float8 AS calls FROM pg_stat_statements '
    + `WHERE dbid = (SELECT oid FROM pg_database WHERE datname = $1) AND query NOT LIKE '%${HEARTBEAT_MARK}%'`, [database.name]);
  return rows[0]!.calls;
}

/** pgbench -S on the bench's cluster: tps without connection time, and its average latency. */
interface PgbenchResult {
  readonly tps: number;
  readonly latencyMs: number;
  readonly seconds: number;
}

/**
 * `pgbench -i -s 1` on a database of its own, then `pgbench -S -M prepared` (one SELECT by primary key per
 * transaction) for BENCH_SECONDS × BENCH_ROUNDS, with PGBENCH_CLIENTS clients on one thread, pinned like the load
 * generator. As root it still runs as root: it connects over TCP with trust authentication.
 */
async function runPgbench(bin: string, server: PostgresServer): Promise<PgbenchResult> {
  const database = await createTestDatabase(server.url, 'pgbench');
  const pgbench = join(bin, 'pgbench');
  const exec = async (command: string, args: string[]): Promise<string> => (await promisify(execFile)(command, args)).stdout;
  try {
    const connection = ['-h', '127.0.0.1', '-p', String(server.port), '-U', 'postgres', database.name];
    await exec(pgbench, ['-i', '-s', '1', '-q', ...connection]);
    const seconds = SECONDS * ROUNDS;
    const args = ['-S', '-M', 'prepared', '-c', String(PGBENCH_CLIENTS), '-j', '1', '-T', String(seconds), ...connection];
    const out = pinning ? await exec('taskset', ['-c', String(LOAD_CPU), pgbench, ...args]) : await exec(pgbench, args);
    const tps = /tps = ([\d.]+) \(without initial connection time\)/.exec(out);
    const latency = /latency average = ([\d.]+) ms/.exec(out);
    if (tps === null || latency === null) throw new Error(`unexpected pgbench output: ${out}`);
    return { tps: Number(tps[1]), latencyMs: Number(latency[1]), seconds };
  } finally {
    await database.drop();
  }
}

/** Issue 37's goals for the PostgreSQL row: its hot read against pgbench -S in the same run, its p99, its statements. */
const PG_GOALS = { pgbenchRatio: 0.25, p99Ms: 10, statements: 1 } as const;

/** The PostgreSQL row's own figures: the API's hot read beside pgbench -S, with its server CPU and issue 37's goals. */
function printPostgres(api: readonly Round[], count: StatementCount, underLoad: number | null, pgbench: PgbenchResult | string): void {
  const rate = median(api.map((r) => r.rate));
  const p99 = median(api.map((r) => r.p99Ms));
  const cpu = cpuPerRequest(api);
  const perRequest = underLoad ?? count.perRequest;
  const verdict = (ok: boolean): string => (ok ? 'met' : 'NOT met');
  let out = `postgres: the API's hot read does ${count.perRequest.toFixed(2)} SQL statements per request (${count.method}; `
    + `goal <= ${PG_GOALS.statements} after a warm token cache: ${verdict(count.perRequest <= PG_GOALS.statements)})\n`;
  for (const s of count.statements.filter((s) => s.perRequest >= 0.01)) {
    out += `  ${s.perRequest.toFixed(2).padStart(6)}  ${s.query.length > 110 ? `${s.query.slice(0, 107)}...` : s.query}\n`;
  }
  if (underLoad !== null) {
    out += `  under load (every API round, warm-up included, ${CONNECTIONS} connections): ${underLoad.toFixed(2)} statements per request `
      + '(balance reads asked in one turn of the event loop share one statement)\n';
  }
  out += `  api server CPU per request: user ${micros(cpu.user)} + system ${micros(cpu.system)} = ${micros(cpu.user + cpu.system)}\n`;
  if (typeof pgbench === 'string') {
    out += `  SKIPPED: pgbench -S was not run (${pgbench}): no ratio to pgbench\n`;
  } else {
    const ratio = rate / pgbench.tps;
    out += `  pgbench -S (select-only, prepared, scale 1) on the same cluster, ${PGBENCH_CLIENTS} clients, 1 thread, ${pgbench.seconds} s`
      + `${pinning ? ` on CPU ${LOAD_CPU}` : ''}: ${fmt(pgbench.tps)} tps (one SELECT each), latency average ${pgbench.latencyMs.toFixed(3)} ms\n`
      + `  api hot read ${fmt(rate)} req/s = ${ratio.toFixed(2)}x pgbench -S tps (goal >= ${PG_GOALS.pgbenchRatio}x: ${verdict(ratio >= PG_GOALS.pgbenchRatio)}); `
      + `it asks PostgreSQL for ${fmt(rate * perRequest)} statements/s = ${((rate * perRequest) / pgbench.tps).toFixed(2)}x pgbench's\n`;
  }
  out += `  api hot read p99 ${p99.toFixed(2)} ms at ${CONNECTIONS} connections (goal <= ${PG_GOALS.p99Ms} ms at 32: ${verdict(p99 <= PG_GOALS.p99Ms)})\n`;
  process.stdout.write(out);
}

/** The first line of an error's message. */
function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0]!;
}

const profileDir = PROFILE ? mkdtempSync(join(tmpdir(), 'bench-api-prof-')) : '';
const load = spawnNode('api-load-child.ts', LOAD_CPU, {});
const generator = await nextMessage<string>(load);
process.stdout.write(pinning
  ? `pinned with taskset: servers on CPU ${SERVER_CPU}, load generator (${generator}) on CPU ${LOAD_CPU}, redis-server on CPU ${REDIS_CPU}`
    + `${STORES.includes('postgres') && PG_BIN !== null ? `, PostgreSQL on CPU ${PG_CPU} (pgbench on CPU ${LOAD_CPU})` : ''}\n`
  : `not pinned (BENCH_PIN=0, no taskset or a single CPU): servers and load generator (${generator}) may share a core\n`);
if (PG_BIN === null && (process.env['BENCH_STORES'] === undefined || STORES.includes('postgres'))) {
  process.stdout.write('SKIPPED: the PostgreSQL row of bench:api (no initdb/pg_ctl/postgres found; apt-get install postgresql-15)\n');
}
const children: ChildProcess[] = [load];
let redis: RedisServer | undefined;
let postgres: BenchPostgres | undefined;
try {
  for (const store of STORES) {
    if (store === 'postgres' && PG_BIN === null) continue;
    let env: Record<string, string> = { BENCH_SIDE: 'api', ...(DECOMPOSE && store === STORES[0] ? { BENCH_LAYERS: '1' } : {}) };
    if (store === 'redis') {
      redis = await startRedisServer();
      if (pinning && redis.pid !== undefined) spawnSync('taskset', ['-pc', String(REDIS_CPU), String(redis.pid)]);
      env = { ...env, BENCH_LOCKS: 'redis', REDIS_URL: redis.url };
    }
    let apiDatabase: PostgresTestDatabase | undefined;
    if (store === 'postgres') {
      postgres = await startBenchPostgres(PG_BIN!);
      apiDatabase = await createTestDatabase(postgres.server.url, 'bench_api');
      env = { ...env, BENCH_STORE: 'postgres', DATABASE_URL: apiDatabase.url, DATABASE_POOL_SIZE: String(PGBENCH_CLIENTS) };
    }
    if (PROFILE) env = { ...env, BENCH_PROFILE_FILE: join(profileDir, `api-${store}.cpuprofile`) };
    const api = await startServer(`api (${store})`, env);
    children.push(api.child);
    const bare = await startServer('bare h3', {
      BENCH_SIDE: 'bare', BENCH_PATH: api.ready.path, BENCH_SNAPSHOT: JSON.stringify(api.ready.snapshot),
      ...(PROFILE ? { BENCH_PROFILE_FILE: join(profileDir, `bare-${store}.cpuprofile`) } : {}),
    });
    children.push(bare.child);
    if (postgres?.statementStats === null) await sql(postgres.server.url, 'SELECT pg_stat_statements_reset()');
    const measured = await compare(load, api, bare, store);
    const requests = [measured.apiWarmup, ...measured.api].reduce((sum, r) => sum + r.ok, 0);
    const underLoad = postgres?.statementStats === null && apiDatabase !== undefined
      ? (await statementsSinceReset(postgres, apiDatabase)) / requests : null;
    const statements = postgres !== undefined && apiDatabase !== undefined ? await countStatements(postgres, apiDatabase, api) : undefined;
    if (CALIBRATE) await calibrate(load, api, measured);
    if (DECOMPOSE && store === STORES[0]) await decompose(load, api);
    await stopChild(api.child);
    await stopChild(bare.child);
    if (postgres !== undefined && statements !== undefined) {
      const pgbench = spawnSync(join(PG_BIN!, 'pgbench'), ['--version']).status === 0
        ? await runPgbench(PG_BIN!, postgres.server) : `no pgbench in ${PG_BIN}`;
      printPostgres(measured.api, statements, underLoad, pgbench);
    }
    if (PROFILE) {
      printProfile('API server', join(profileDir, `api-${store}.cpuprofile`), 15);
      printProfile('bare h3 server', join(profileDir, `bare-${store}.cpuprofile`), 6);
    }
    await redis?.stop();
    redis = undefined;
    await postgres?.server.destroy();
    postgres = undefined;
  }
} finally {
  for (const child of children) await stopChild(child);
  await redis?.stop();
  await postgres?.server.destroy();
}
if (PROFILE) process.stdout.write(`profiles kept in ${profileDir}\n`);
