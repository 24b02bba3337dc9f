/**
 * Concurrent USDT sweeps on chain time, for bench/collection.ts. The devnet runs in a CHILD process (its own
 * `adapters/tron-devnet/main.ts`, the `npm run devnet` entry) mining one block every DEVNET_BLOCK_MS (3,000) of wall
 * time on its own timer; this process is the worker: memory store, the real CollectionExecutor on a system clock,
 * real tronweb over HTTP to the child. Executors run freely (a pass that found work is followed at once; an idle one
 * sleeps BENCH_IDLE_MS), with no stage budget per block. CPU is split by process: the worker's from
 * process.cpuUsage() (store, planning, signing, its HTTP client, and this bench's 4-per-second progress poll), the
 * simulator's from /proc/<child pid>/stat (utime + stime).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Session } from 'node:inspector/promises';
import pg from 'pg';
import { performance } from 'node:perf_hooks';
import { resolveDeps, type ResolvedDeps } from '../core/application/deps.js';
import { startCollection } from '../core/application/collection-starter.js';
import { CollectionExecutor } from '../core/application/worker/collection-executor.js';
import { CollectionLedgerBooker } from '../core/application/collection-ledger-booker.js';
import { BalanceScanner } from '../core/application/worker/balance-scanner.js';
import { BlockReceipts } from '../core/application/worker/block-receipts.js';
import { TronBlockSource } from '../adapters/tron/tron-block-source.js';
import { startBalanceScanJob } from '../hosts/worker/jobs/balance-scan.js';
import { createAssetRegistry, type AssetRegistry } from '../core/domain/assets.js';
import { ADDRESS_STATUS, ADDRESS_TYPE, type WalletAddress } from '../core/domain/model/wallet.js';
import { COLLECTION_STATUS } from '../core/domain/model/collection-task.js';
import type { ChainGateway, Signer } from '../core/ports/chain-gateway.port.js';
import { createMemoryAdapters, MemoryAddressLock, MemoryScanCursorStore, RecordingMailer, type MemoryAdapters } from '../adapters/memory/index.js';
import { connectPostgres, createPostgresAdapters, type PostgresAdapters } from '../adapters/postgres/index.js';
import { createTestDatabase, startPostgresServer } from '../contracts-tests/harness/postgres.js';
import { AesGcmKeyCipher, NodeSecretHasher, OtpauthTotpGenerator, SystemClock, TEST_SCRYPT_COST } from '../adapters/node/index.js';
import { CachingChainGateway, createDevnetChainGateway, SelfDelegationEnergyProvider } from '../adapters/tron/index.js';

const BLOCK_MS = Number(process.env['DEVNET_BLOCK_MS'] ?? 3_000);
const IDLE_MS = Number(process.env['BENCH_IDLE_MS'] ?? 100);
/** BENCH_TIMELINE=1: every 250 ms of a run, the block, the stages run and the tasks by status. */
const TIMELINE = process.env['BENCH_TIMELINE'] === '1';
const TRX = 1_000_000n;

/** The devnet child: its URL, USDT contract, and CPU so far. */
export interface ChildDevnet {
  readonly url: string;
  readonly usdtAddress: string;
  readonly pid: number;
  /** CPU ms (user + system) the child has used since it started. */
  cpuMs(): number;
  /** Node calls the child's nodes have served so far, by name (`GET /sim/calls`). */
  calls(): Promise<Record<string, number>>;
  close(): Promise<void>;
}

/** CPU ms of a process from /proc (Linux); NaN elsewhere. */
function procCpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // Fields 14 and 15 of proc(5) (utime, stime), in clock ticks: 100 per second on Linux.
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return Number.NaN;
  }
}

/**
 * CPU ms of a process and all its descendants (Linux /proc): each one's utime + stime plus its reaped children's
 * (cutime + cstime), so PostgreSQL's backends count whether they still run or have exited. NaN elsewhere.
 */
function procTreeCpuMs(root: number): number {
  let entries: string[];
  try {
    entries = readdirSync('/proc').filter((e) => /^\d+$/.test(e));
  } catch {
    return Number.NaN;
  }
  const parent = new Map<number, number>();
  const ticks = new Map<number, number>();
  for (const e of entries) {
    try {
      const stat = readFileSync(`/proc/${e}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // proc(5) fields 4 (ppid) and 14-17 (utime, stime, cutime, cstime), counted from field 3 here.
      parent.set(Number(e), Number(fields[1]));
      ticks.set(Number(e), Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]));
    } catch {
      // exited meanwhile
    }
  }
  let total = 0;
  for (const [pid, t] of ticks) {
    for (let p: number | undefined = pid; p !== undefined && p > 1; p = parent.get(p)) {
      if (p === root) {
        total += t;
        break;
      }
    }
  }
  return total * 10;
}

/** Starts the devnet as its own node process (tsx loader, no npm/npx wrapper, so the pid is the simulator's). */
export async function startChildDevnet(seed: string, profileDir?: string): Promise<ChildDevnet> {
  const profiling = profileDir === undefined ? [] : ['--cpu-prof', '--cpu-prof-dir', profileDir, '--cpu-prof-interval', '1000'];
  const child: ChildProcess = spawn(process.execPath, [...profiling, '--import', 'tsx', 'adapters/tron-devnet/main.ts'], {
    env: { ...process.env, DEVNET_PORT: '0', DEVNET_BLOCK_MS: String(BLOCK_MS), DEVNET_SEED: seed },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const banner = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.once('exit', (code) => reject(new Error(`devnet child exited (${code}): ${out}`)));
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (/contract: \S+ \(/.test(out)) resolve(out);
    });
  });
  child.stdout!.resume();
  const url = /listening on (\S+)/.exec(banner)![1]!;
  const usdtAddress = /contract: (\S+) \(/.exec(banner)![1]!;
  const pid = child.pid!;
  return {
    url, usdtAddress, pid,
    cpuMs: () => procCpuMs(pid),
    calls: async () => (await fetch(`${url}/sim/calls`)).json() as Promise<Record<string, number>>,
    close: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

async function sim(devnet: ChildDevnet, path: string, body: object): Promise<unknown> {
  const reply = await fetch(`${devnet.url}${path}`, { method: 'POST', body: JSON.stringify(body) });
  if (!reply.ok) throw new Error(`${path}: ${reply.status} ${await reply.text()}`);
  return reply.json();
}

/** A worker on the child devnet: memory store, system clock, a main address staked for `sweeps` self-delegations. */
interface World {
  readonly gateway: ChainGateway;
  readonly stores: Omit<MemoryAdapters, 'store'> | PostgresAdapters;
  /** The first FAILED task's error, for the report; null when none failed. */
  firstFailure(): Promise<string | null>;
  /** CPU ms the store's server processes used so far (PostgreSQL's process tree); NaN for the memory store. */
  storeCpuMs(): number;
  /** Statements sent to the store so far, by their first words (PostgreSQL; empty for the memory store). */
  storeStatements(): Record<string, number>;
  close(): Promise<void>;
  readonly cipher: AesGcmKeyCipher;
  readonly assets: AssetRegistry;
  readonly core: ResolvedDeps;
  readonly main: Signer;
  /** The receipts of the blocks the worker's scanner reads (issue #27). */
  readonly receipts: BlockReceipts;
  /** The executors follow from them and read once per block (BENCH_EVIDENCE=0: not). */
  readonly evidence: boolean;
}

async function waitForBlock(gateway: ChainGateway, after: number): Promise<number> {
  for (;;) {
    const head = await gateway.head();
    if (head.number > after) return head.number;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Where the bench's worker keeps its records: the memory store, or a PostgreSQL cluster of its own (started here). */
export type BenchStore = 'memory' | 'postgres';

/** The store of a run, with how to find its first failure and how to close it. */
/** Statements every pg client of this process sent, by their first words (the bench counts, nothing else reads it). */
const statements = new Map<string, number>();
const heads = new Map<string, string>();
/** BENCH_PG_TIMING=1: also each statement's round trip (a little more of the worker's CPU, counted as the worker's). */
const TIMING = process.env['BENCH_PG_TIMING'] === '1';
let counting = false;
function countStatements(): void {
  if (counting) return;
  counting = true;
  const query = pg.Client.prototype.query as (...args: unknown[]) => unknown;
  pg.Client.prototype.query = function counted(this: pg.Client, ...args: unknown[]) {
    const first = args[0];
    const text = typeof first === 'string' ? first : typeof (first as { text?: unknown })?.text === 'string' ? (first as { text: string }).text : '?';
    let head = heads.get(text);
    if (head === undefined) heads.set(text, (head = text.replace(/\s+/g, ' ').trim().split(' ').slice(0, 3).join(' ').replace(/\(.*$/, '')));
    statements.set(head, (statements.get(head) ?? 0) + 1);
    if (process.env['BENCH_PG_TRACE'] === '1') {
      const values = (Array.isArray(args[1]) ? args[1] : (first as { values?: unknown[] })?.values ?? []) as unknown[];
      console.log(`SQL ${text.replace(/\s+/g, ' ').slice(0, 90)} | ${values.slice(0, 4).map((v) => String(v).slice(0, 40)).join(', ')}`);
    }
    const result = query.apply(this, args);
    if (TIMING && result instanceof Promise) {
      // Round-trip time of the statement (from the client's queue to its answer), summed under `ms <head>`.
      const started = performance.now();
      void result.then(() => {
        statements.set(`ms ${head}`, (statements.get(`ms ${head}`) ?? 0) + performance.now() - started);
      }, () => undefined);
    }
    return result;
  } as typeof pg.Client.prototype.query;
}

async function openStores(kind: BenchStore, clock: SystemClock): Promise<Pick<World, 'stores' | 'firstFailure' | 'close' | 'storeCpuMs' | 'storeStatements'>> {
  if (kind === 'memory') {
    const stores = createMemoryAdapters({ clock });
    return {
      stores,
      firstFailure: async () => {
        for (const t of stores.store.tasks.values()) if (t.status === COLLECTION_STATUS.FAILED) return `${t.errorCode}: ${t.lastError}`;
        return null;
      },
      close: async () => undefined,
      storeCpuMs: () => Number.NaN,
      storeStatements: () => ({}),
    };
  }
  countStatements();
  const server = await startPostgresServer();
  const database = await createTestDatabase(server.url, 'bench');
  // TCP on loopback (the server's Unix socket measured the same: 42.3 vs 44.2 ms worker CPU per sweep at 200).
  const connection = await connectPostgres(database.url, { poolSize: Number(process.env['BENCH_PG_POOL'] ?? 20) });
  return {
    stores: createPostgresAdapters({ connection, clock }),
    firstFailure: async () => {
      const { rows } = await connection.pool.query<{ e: string }>(
        `SELECT error_code || ': ' || coalesce(last_error, '') AS e FROM collection_tasks WHERE status = ${COLLECTION_STATUS.FAILED} LIMIT 1`);
      return rows[0]?.e ?? null;
    },
    storeCpuMs: () => (server.pid === undefined ? Number.NaN : procTreeCpuMs(server.pid)),
    storeStatements: () => Object.fromEntries(statements),
    close: async () => {
      await connection.close();
      await server.destroy();
    },
  };
}

async function buildWorld(devnet: ChildDevnet, sweeps: number, kind: BenchStore): Promise<World> {
  const clock = new SystemClock();
  // As `npm run worker` runs: the workflows follow their transactions from the scanner's blocks and read the head and
  // block-stable state once per block (issue #27). BENCH_EVIDENCE=0: every look asks the node, as before (the
  // scanner runs either way, as it does in every worker).
  const receipts = new BlockReceipts(clock);
  const evidence = process.env['BENCH_EVIDENCE'] !== '0';
  const perBlock = { blockCacheMs: 3_000, tip: () => receipts.newestBlock() };
  const gateway: ChainGateway = evidence
    ? new CachingChainGateway(createDevnetChainGateway(devnet, perBlock), { blockMs: 3_000, now: Date.now, tip: perBlock.tip })
    : createDevnetChainGateway(devnet);
  const opened = await openStores(kind, clock);
  const { stores } = opened;
  const cipher = AesGcmKeyCipher.fromConfig(randomBytes(32).toString('base64'));
  const assets = createAssetRegistry({ usdtContract: devnet.usdtAddress });
  const core = resolveDeps({
    clock, ids: stores.ids, hasher: new NodeSecretHasher({ cost: TEST_SCRYPT_COST }), cipher, mailer: new RecordingMailer(),
    totp: new OtpauthTotpGenerator(), dns: { resolve: async () => [] },
    transport: { post: async () => ({ ok: false, status: null, error: 'no webhooks in the bench', durationMs: 0 }) },
    risk: stores.risk, addressLock: new MemoryAddressLock({ clock }), chain: gateway, assets,
    accounts: stores.accounts, sessions: stores.sessions, subscriptions: stores.subscriptions, apiTokens: stores.apiTokens,
    wallets: stores.wallets, balances: stores.balances, deposits: stores.deposits, commands: stores.commands, tasks: stores.tasks,
    cashierTokens: stores.cashierTokens, developerConfigs: stores.developerConfigs, deliveries: stores.deliveries,
    outbox: stores.outbox, uow: stores.uow, auditLog: stores.auditLog, withdrawalPolicies: stores.withdrawalPolicies, ledger: stores.ledger,
  });
  const account = await insertWallet({ gateway, stores, cipher }, ADDRESS_TYPE.MAIN);
  const main: Signer = { address: account.address, privateKey: async () => account.privateKey };
  // ≈ 65-130k energy per sweep ≈ 6.5-13k TRX of stake each while delegated: enough stake for all at once.
  const stake = BigInt(sweeps) * 14_000n;
  await sim(devnet, '/sim/fund', { address: main.address, amount_sun: Number((stake + BigInt(sweeps) * 5n + 1_000n) * TRX) });
  const before = (await gateway.head()).number;
  await gateway.broadcast(await gateway.prepare(main, { kind: 'freeze', resource: 'ENERGY', amountSun: stake * TRX }));
  await waitForBlock(gateway, before + 1);
  return { gateway, ...opened, cipher, assets, core, main, receipts, evidence };
}

async function insertWallet(w: Pick<World, 'gateway' | 'stores' | 'cipher'>, type: 1 | 2): Promise<{ address: string; privateKey: string }> {
  const account = await w.gateway.createAccount();
  const wallet: WalletAddress = {
    id: await w.stores.ids.nextInt('wallet_address'), userId: 1, networkCode: 'TRON', address: account.address, addressType: type,
    label: null, status: ADDRESS_STATUS.ACTIVE, createdAt: Date.now(), version: 1,
    encryptedKey: await w.cipher.encrypt(new TextEncoder().encode(account.privateKey), account.address),
  };
  await w.stores.wallets.insert(wallet, { maxSubAddresses: -1 });
  return account;
}

/** What one concurrent run measured. */
export interface SweepRun {
  readonly sweeps: number;
  readonly done: number;
  readonly failed: number;
  readonly firstFailure: string | null;
  readonly wallMs: number;
  readonly blocks: number;
  readonly stages: number;
  readonly workerCpuMs: number;
  readonly simCpuMs: number;
  /** PostgreSQL's server processes' CPU ms in the run (NaN on the memory store). */
  readonly storeCpuMs: number;
  /** Statements sent to PostgreSQL during the run, by their first words (empty on the memory store). */
  readonly storeStatements: Readonly<Record<string, number>>;
  /**
   * On PostgreSQL, the ledger's cost (issue #36): after the run, every DONE task booked as the worker books it
   * (CollectionLedgerBooker.book), its statements counted apart by their first words; null on the memory store.
   */
  readonly ledger: { readonly booked: number; readonly statements: Readonly<Record<string, number>> } | null;
  /** Node calls served during the run, by name. */
  readonly nodeCalls: Readonly<Record<string, number>>;
  readonly peakRssMb: number;
  readonly endRssMb: number;
  readonly profileTop: readonly string[];
}

/**
 * `sweeps` USDT sweeps of new sub-addresses queued at once, then run by `executors` free-running executors until
 * all are DONE or FAILED (or `capMs`). Blocks: the child's head after minus before. Setup (keys, funding, queueing)
 * is outside the measured window.
 */
export async function concurrentSweeps(
  devnet: ChildDevnet, sweeps: number, executors: number, concurrency: number, capMs: number, profile = false, store: BenchStore = 'memory',
): Promise<SweepRun> {
  const w = await buildWorld(devnet, sweeps, store);
  try {
    return await sweepRun(w, devnet, sweeps, executors, concurrency, capMs, profile, store);
  } finally {
    await w.close();
  }
}

async function sweepRun(
  w: World, devnet: ChildDevnet, sweeps: number, executors: number, concurrency: number, capMs: number, profile: boolean, store: BenchStore,
): Promise<SweepRun> {
  const subs: string[] = [];
  for (let i = 0; i < sweeps; i++) subs.push((await insertWallet(w, ADDRESS_TYPE.SUB)).address);
  for (let i = 0; i < subs.length; i += 64) {
    await Promise.all(subs.slice(i, i + 64).map((sub, j) => sim(devnet, '/sim/fund_token', { address: sub, amount: String(1_000_000n + BigInt(i + j)) })));
  }
  await waitForBlock(w.gateway, (await w.gateway.head()).number);
  const usdt = w.assets.find('TRON', 'USDT')!;
  for (const sub of subs) await startCollection(w.core, (await w.stores.wallets.findByAddress(sub))!, usdt);

  const session = profile ? new Session() : undefined;
  if (session !== undefined) {
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 1_000 });
    await session.post('Profiler.start');
  }
  const startBlock = (await w.gateway.head()).number;
  const calls0 = await devnet.calls();
  const cpu0 = process.cpuUsage();
  const sim0 = devnet.cpuMs();
  const store0 = w.storeCpuMs();
  const statements0 = w.storeStatements();
  const started = performance.now();
  let stages = 0;
  let stop = false;
  let peakRss = 0;
  const receipts = w.receipts;
  // The worker's balance scanner, in this process and on the job `npm run worker` runs (its CPU is the worker's; its
  // node calls are in the counts): a pass just after each block's slot (CHAIN_BLOCK_MS, nextPassIn), reading the
  // blocks since the last.
  const scanJob = startBalanceScanJob(new BalanceScanner({
    clock: new SystemClock(), cursors: new MemoryScanCursorStore(), wallets: w.stores.wallets, balances: w.stores.balances,
    deposits: w.stores.deposits, uow: w.stores.uow, developerConfigs: w.stores.developerConfigs, ids: w.stores.ids, assets: w.assets, receipts,
    blocks: new TronBlockSource({ fullHost: devnet.url, timeoutMs: 5_000 }),
  }), { slotMs: BLOCK_MS });
  const scanning = (async () => {
    while (!stop) await new Promise((resolve) => setTimeout(resolve, 100));
    await scanJob.stop();
  })();
  const loops = Array.from({ length: executors }, async (_, i) => {
    const executor = new CollectionExecutor({
      ...w.stores, chain: w.gateway, cipher: w.cipher, assets: w.assets, energy: { self: new SelfDelegationEnergyProvider(w.gateway) },
      ...(w.evidence ? { evidence: receipts } : {}),
    }, { owner: `bench-${i}`, confirmations: 1, ...(concurrency > 1 ? { concurrency } : {}) });
    while (!stop) {
      const ran = (await executor.runDue(200)).length;
      stages += ran;
      if (ran === 0) await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
    }
  });
  let ended = 0;
  while (performance.now() - started < capMs) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    peakRss = Math.max(peakRss, process.memoryUsage.rss());
    const counts = await w.stores.tasks.countByStatus();
    ended = (counts.get(COLLECTION_STATUS.DONE) ?? 0) + (counts.get(COLLECTION_STATUS.FAILED) ?? 0);
    if (TIMELINE) {
      const head = (await w.gateway.head()).number - startBlock;
      const line = [...counts].sort(([a], [b]) => a - b).map(([status, n]) => `${status}:${n}`).join(' ');
      console.log(`      ${((performance.now() - started) / 1_000).toFixed(2)} s, block +${head}, stages ${stages}: ${line}`);
    }
    if (ended === sweeps) break;
  }
  const wallMs = performance.now() - started;
  const cpu = process.cpuUsage(cpu0);
  const simCpuMs = devnet.cpuMs() - sim0;
  const storeCpuMs = w.storeCpuMs() - store0;
  const storeStatements = Object.fromEntries(Object.entries(w.storeStatements()).map(([k, n]) => [k, n - (statements0[k] ?? 0)]).filter(([, n]) => n !== 0));
  const endBlock = (await w.gateway.head()).number;
  stop = true;
  await Promise.all([...loops, scanning]);
  const calls1 = await devnet.calls();
  let ledger: SweepRun['ledger'] = null;
  if (store === 'postgres') {
    const done = await w.stores.tasks.listFinishedSince(COLLECTION_STATUS.DONE, 0, sweeps);
    const booker = new CollectionLedgerBooker({ tasks: w.stores.tasks, chain: w.gateway, ledger: w.stores.ledger, ids: w.core.ids });
    const before = w.storeStatements();
    let booked = 0;
    for (const task of done) if (await booker.book(task.taskNo) === 'booked') booked += 1;
    const after = w.storeStatements();
    const booking = Object.entries(after).map(([k, n]): [string, number] => [k, n - (before[k] ?? 0)]).filter(([k, n]) => n !== 0 && !k.startsWith('ms '));
    ledger = { booked, statements: Object.fromEntries(booking) };
  }
  const nodeCalls = Object.fromEntries(Object.entries(calls1).map(([name, n]) => [name, n - (calls0[name] ?? 0)]).filter(([, n]) => n !== 0));
  let profileTop: string[] = [];
  if (session !== undefined) {
    const { profile: p } = await session.post('Profiler.stop');
    session.disconnect();
    // Kept for a closer look (chrome://inspect, or any .cpuprofile reader).
    const file = join(tmpdir(), `bench-worker-${process.pid}-${Date.now()}.cpuprofile`);
    writeFileSync(file, JSON.stringify(p));
    profileTop = [`(whole profile: ${file})`, ...topSelfTime(p)];
  }
  const counts = await w.stores.tasks.countByStatus();
  const firstFailure = await w.firstFailure();
  return {
    sweeps, done: counts.get(COLLECTION_STATUS.DONE) ?? 0, failed: counts.get(COLLECTION_STATUS.FAILED) ?? 0, firstFailure,
    wallMs, blocks: endBlock - startBlock, stages, workerCpuMs: (cpu.user + cpu.system) / 1_000, simCpuMs, storeCpuMs, storeStatements, nodeCalls, ledger,
    peakRssMb: peakRss / 2 ** 20, endRssMb: process.memoryUsage.rss() / 2 ** 20, profileTop,
  };
}

/** The devnet child's functions by self time (top 15), from the .cpuprofile files its --cpu-prof wrote in `dir`. */
export function childProfileTop(dir: string): string[] {
  const files = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'));
  return files.flatMap((f) => topSelfTime(JSON.parse(readFileSync(join(dir, f), 'utf8'))));
}

/** Functions by self time (top 15), from a V8 CPU profile. */
function topSelfTime(profile: { nodes: Array<{ id: number; callFrame: { functionName: string; url: string; lineNumber: number } }>; samples?: number[]; timeDeltas?: number[] }): string[] {
  const byNode = new Map<number, number>();
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  for (let i = 0; i < samples.length; i++) byNode.set(samples[i]!, (byNode.get(samples[i]!) ?? 0) + (deltas[i] ?? 0));
  const byFrame = new Map<string, number>();
  let total = 0;
  for (const node of profile.nodes) {
    const us = byNode.get(node.id) ?? 0;
    total += us;
    const f = node.callFrame;
    if (f.functionName === '(idle)') continue;
    const file = f.url.replace(/^file:\/\//, '').replace(`${process.cwd()}/`, '');
    const key = `${f.functionName || '(anonymous)'} ${file}${file === '' ? '' : `:${f.lineNumber + 1}`}`;
    byFrame.set(key, (byFrame.get(key) ?? 0) + us);
  }
  const busy = total - [...profile.nodes].filter((n) => n.callFrame.functionName === '(idle)').reduce((s, n) => s + (byNode.get(n.id) ?? 0), 0);
  const line = ([k, us]: [string, number]): string => `${(us / 1_000).toFixed(0).padStart(6)} ms ${((100 * us) / Math.max(1, busy)).toFixed(1).padStart(5)}%  ${k}`;
  // And by file (a package's files as one), which shows a library's share spread over many small functions.
  const byFile = new Map<string, number>();
  for (const [k, us] of byFrame) {
    const file = k.slice(k.indexOf(' ') + 1).replace(/:\d+$/, '').replace(/^.*node_modules\/((@[^/]+\/)?[^/]+)\/.*$/, '$1') || k;
    byFile.set(file, (byFile.get(file) ?? 0) + us);
  }
  return [
    `busy ${(busy / 1_000).toFixed(0)} ms; by function:`,
    ...[...byFrame].sort((a, b) => b[1] - a[1]).slice(0, 15).map(line),
    'by file or package:',
    ...[...byFile].sort((a, b) => b[1] - a[1]).slice(0, 10).map(line),
  ];
}
