/**
 * Issue #22, the proof: real OS processes on PostgreSQL, killed with SIGKILL, on a hostile devnet. Two API processes
 * and two worker processes share one PostgreSQL cluster and one Redis (each started here, on free ports); the devnet
 * runs in this process with chaos on its node calls (resets, HTTP errors, error bodies, lost replies). A batch of
 * collections (USDT and TRX), withdrawals and stakes goes in over HTTP while a schedule drawn from a printed seed
 * SIGKILLs and restarts worker processes, kills an API process in the middle of the requests, and stops PostgreSQL
 * itself with `pg_ctl stop -m immediate` (crash recovery on the next start). Afterwards, read from the database and
 * the chain: every workflow is terminal, every withdrawal paid exactly once, every sweep moved its funds once, one
 * terminal event per workflow in the outbox and at most one distinct event_id per workflow at the receiver, no lock
 * left, the balances add up, and the books (issue #36) hold every sweep, withdrawal and stake once (ledger-check.ts).
 *
 * CRASH_SEED picks the schedule (default a fixed CI seed; printed either way); CRASH_USERS sets the batch. TEST_DEPTH
 * (contracts-tests/support/depth.ts) sets the default batch and the worker kills: at full depth (`npm run test:deep`)
 * 7 users (56 collections and 21 withdrawals) and at least 20 kills; `npm test` runs 3 users and at least 13 kills
 * (PostgreSQL's crash comes after kill 3 to 12, so it always happens).
 */
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startLocalReceiver, type LocalWebhookReceiver } from '../../adapters/http/index.js';
import { connectPostgres } from '../../adapters/postgres/pg-connection.js';
import { PgAuditLog } from '../../adapters/postgres/pg-audit-log.js';
import { createRedisClient } from '../../adapters/redis/index.js';
import { createDevnetChainGateway } from '../../adapters/tron/index.js';
import { Devnet, startDevnet } from '../../adapters/tron-devnet/index.js';
import { drawInt } from '../../adapters/tron-devnet/prng.js';
import { createTestDatabase, startPostgresServer, type PostgresServer } from '../../contracts-tests/harness/postgres.js';
import { verifyStoredAuditChain } from '../../core/application/audit-verifier.js';
import { startRedisServer, type RedisServer } from '../../contracts-tests/harness/redis.js';
import { describeWithRedisServerBinary } from '../../contracts-tests/harness/with-redis.js';
import { scaled, TEST_DEPTH } from '../../contracts-tests/support/depth.js';
import { startProcess, type ClusterProcess } from './cluster-processes.js';
import { booksAfterCrash } from './ledger-check.js';
import {
  apiNode, chainTransfers, refreshBalances, signUpOverNodes, sweepsOf, type Answer, type ApiNode, type BatchItem, type ClusterUser,
} from './cluster-fixture.js';

const TRX = 1_000_000n;
const SEED = process.env['CRASH_SEED'] ?? 'ci-1';
const USERS = Number(process.env['CRASH_USERS'] ?? scaled(7, 3));
const COLLECTIONS_PER_USER = 8;
const WITHDRAWALS_PER_USER = 3;
/** Stakes per user (issue #36: staking is booked), each on a sub-address of its own: one for energy, one for bandwidth. */
const STAKES_PER_USER = 2;
const MIN_WORKER_KILLS = scaled(20, 13);
const ADMIN_TOKEN = `adm_${randomBytes(24).toString('hex')}`;

/** A draw from the run's schedule: the same seed gives the same kills, in the same order. */
let counter = 0;
const pick = (label: string, n: number): number => drawInt(SEED, label, counter++, n);

describeWithRedisServerBinary('crash test: SIGKILLed workers and API, PostgreSQL stopped immediate, on a hostile devnet', () => {
  let postgres: PostgresServer;
  let redis: RedisServer;
  let devnet: Devnet;
  let receiver: LocalWebhookReceiver;
  let databaseUrl: string;
  let env: Record<string, string>;
  const apis: ClusterProcess[] = [];
  const workers: ClusterProcess[] = [];
  let nodes: ApiNode[] = [];

  /**
   * Starts API process i and waits until it listens; like an orchestrator, starts it again when it exits first (a
   * process started while PostgreSQL is down refuses to start).
   */
  const startApi = async (i: number): Promise<void> => {
    for (let attempt = 1; ; attempt++) {
      const api = startProcess(`api-${i + 1}`, 'hosts/cluster/api-process.ts', env);
      apis[i] = api;
      try {
        nodes[i] = apiNode((await api.waitFor(/^api listening (\S+)$/, 60_000))[1]!);
        return;
      } catch (error) {
        if (attempt >= 10) throw error;
        await sleep(1_000);
      }
    }
  };
  /** Like an orchestrator: starts again every worker that is not running (one started while PostgreSQL was down exits). */
  const superviseWorkers = (): void => {
    for (const i of [0, 1]) if (!workers[i]!.alive) startWorker(i);
  };
  const startWorker = (i: number): void => {
    workers[i] = startProcess(`worker-${i + 1}`, 'hosts/worker/main.ts', env);
  };

  beforeAll(async () => {
    console.log(`crash test seed: ${SEED} (CRASH_SEED=${SEED} repeats this schedule), ${USERS} users, at least ${MIN_WORKER_KILLS} worker kills (TEST_DEPTH=${TEST_DEPTH})`);
    postgres = await startPostgresServer();
    databaseUrl = (await createTestDatabase(postgres.url, 'crash')).url;
    redis = await startRedisServer();
    devnet = await startDevnet({ port: 0, blockMs: 1_000, seed: `crash-${SEED}`, genesisTime: Math.floor(Date.now() / 3_000) * 3_000 });
    receiver = await startLocalReceiver();
    env = {
      NODE_ENV: 'production', STORE: 'postgres', DATABASE_URL: databaseUrl, DATABASE_POOL_SIZE: '5', LOCKS: 'redis', REDIS_URL: redis.url,
      CHAIN: 'devnet', TRON_FULL_HOST: devnet.url, USDT_CONTRACT: devnet.usdtAddress, ENERGY_PROVIDER: 'rental', CHAIN_CONFIRMATIONS: '1', CHAIN_BLOCK_MS: '1000',
      PORT: '0', METRICS_PORT: '0', WEBHOOK_ALLOW_LOCAL: 'true', WORKFLOW_LEASE_S: '5', WORKFLOW_STUCK_AFTER_S: '60',
      KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64'), ADMIN_TOKEN,
    };
    await Promise.all([0, 1].map(startApi));
    for (const i of [0, 1]) startWorker(i);
    await Promise.all(workers.map((w) => w.waitFor(/worker running/, 60_000)));
  }, 180_000);

  afterAll(async () => {
    await Promise.all([...apis, ...workers].map((p) => p?.stop()));
    await receiver?.close();
    await devnet?.close();
    await redis?.stop();
    await postgres?.destroy();
  });

  it('ends every workflow exactly once, whatever was killed', async () => {
    const started = Date.now();
    const note = (line: string): void => void progress.push(`${((Date.now() - started) / 1000).toFixed(1)} s ${line}`);
    const watchdog = new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`crash test ${SEED} stuck:\n${report()}`)), 540_000).unref());
    await Promise.race([watchdog, body(note)]);
  }, 600_000);

  /** The run's progress and each process's last lines, for a failure message (and test-artifacts/). */
  const progress: string[] = [];
  const report = (): string => [
    ...progress.slice(-40),
    ...[...apis, ...workers].flatMap((p) => [`--- ${p.name}`, ...p.output.filter((line) => line.includes('stuck')).slice(-10), ...p.output.slice(-15)]),
  ].join('\n');

  const body = async (note: (line: string) => void): Promise<void> => {
    const codeFor = async (email: string): Promise<string> => {
      const pattern = new RegExp(`verification code for ${email.replace(/[.+]/g, '\\$&')}: (\\S+)`);
      return (await Promise.any(apis.map((p) => p.waitFor(pattern, 10_000))))[1]!;
    };
    const users: ClusterUser[] = [];
    for (let u = 0; u < USERS; u++) {
      const user = await signUpOverNodes(nodes, codeFor, COLLECTIONS_PER_USER + WITHDRAWALS_PER_USER + STAKES_PER_USER);
      await expectOk(nodes[u % 2]!.call('PUT', '/api/subscriptions/config', user.session, {
        service_code: 'developer', config: { webhook_url: `${receiver.origin}/hooks/${user.userId}`, webhook_secret: 'crash-test-secret', min_collect_amounts: {} },
      }), 'webhook config');
      await expectOk(nodes[u % 2]!.call('POST', `/api/admin/webhooks/${user.userId}/approve`, ADMIN_TOKEN, {
        url: `${receiver.origin}/hooks/${user.userId}`,
      }), 'approve webhook');
      users.push(user);
      note(`user ${user.userId} signed up`);
    }
    const collections: BatchItem[] = users.flatMap((user) => user.subs.slice(0, COLLECTIONS_PER_USER).map((sub, i) => ({
      user, sub, symbol: i % 3 === 2 ? 'TRX' as const : 'USDT' as const, amount: i % 3 === 2 ? 6n * TRX : BigInt(1_000_000 * (i + 1) + user.userId),
    })));
    const gateway = createDevnetChainGateway(devnet);
    const withdrawals = await Promise.all(users.flatMap((user) => user.subs.slice(COLLECTIONS_PER_USER, COLLECTIONS_PER_USER + WITHDRAWALS_PER_USER).map(async (from, i) => ({
      user, from, to: (await gateway.createAccount()).address, amount: (3n + BigInt(i)) * TRX,
    }))));
    const stakes = users.flatMap((user) => user.subs.slice(COLLECTIONS_PER_USER + WITHDRAWALS_PER_USER).map((address, i) => ({
      user, address, resource: i % 2 === 0 ? 'ENERGY' : 'BANDWIDTH', amount: (10n + BigInt(i)) * TRX,
    })));
    for (const user of users) devnet.fund(user.main, 2_000n * TRX);
    for (const item of collections) (item.symbol === 'USDT' ? devnet.fundToken(item.sub, item.amount) : devnet.fund(item.sub, item.amount));
    for (const w of withdrawals) devnet.fund(w.from, 20n * TRX);
    for (const st of stakes) devnet.fund(st.address, 30n * TRX);
    await refreshBalances(nodes, [...collections, ...stakes.map((st) => ({ user: st.user, sub: st.address, symbol: 'TRX' as const, amount: 30n * TRX }))]);
    devnet.setFaults({ chaos: { rate: 0.04, kinds: ['reset', 'http_429', 'http_500', 'http_503', 'error_body', 'lost_reply'], seed: SEED } });

    // The chaos: workers SIGKILLed and restarted on a drawn schedule, PostgreSQL stopped immediate once.
    let kills = 0;
    let stopChaos = false;
    const postgresCrashAfterKill = 3 + pick('pg-crash', 10);
    const chaos = (async () => {
      while (!stopChaos || kills < MIN_WORKER_KILLS) {
        await sleep(1_000 + pick('gap', 2_500));
        superviseWorkers();
        const i = pick('worker', 2);
        await workers[i]!.kill();
        kills++;
        note(`worker-${i + 1} killed (${kills})`);
        startWorker(i);
        if (kills === postgresCrashAfterKill) {
          await postgres.stop('immediate');
          note('postgres stopped immediate');
          await sleep(500 + pick('pg-down', 2_000));
          await postgres.start();
          note('postgres started');
        }
      }
    })();

    // The requests, as a careful client sends them: a lost answer is retried with the same key on the other node.
    const apiKillAt = pick('api-kill', collections.length);
    let sent = 0;
    // A request whose API died after it began holds its key in progress until the in-flight lease (60 s) runs out;
    // then the same key takes it over, as a careful client's retry does.
    const submit = async (path: string, token: string, body: unknown): Promise<Answer> => {
      const key = randomBytes(16).toString('hex');
      const giveUp = Date.now() + 150_000;
      const first = sent % 2;
      for (let attempt = 0; ; attempt++) {
        if (sent++ === apiKillAt) void killApi();
        const node = nodes[(first + attempt) % 2]!;
        const answer = await node.call('POST', path, token, body, { 'idempotency-key': key }).catch(() => null);
        if (answer !== null && answer.status < 500 && answer.code !== 'IDEMPOTENCY-KEY-IN-PROGRESS' && answer.code !== 'RATE-LIMITED') return answer;
        if (Date.now() > giveUp) throw new Error(`${path}: no answer within 150 s (last: ${JSON.stringify(answer)})`);
        await sleep(answer === null || answer.status >= 500 ? 300 : 3_000);
      }
    };
    const killApi = async (): Promise<void> => {
      await apis[0]!.kill();
      note('api-1 killed');
      await startApi(0);
      note('api-1 restarted');
    };
    const collectionAnswers = await Promise.all(collections.map((item) =>
      submit('/api/collections', item.user.apiToken, { address: item.sub, asset_symbol: item.symbol })));
    const withdrawalAnswers = await Promise.all(withdrawals.map((w) =>
      submit('/api/transfers', w.user.session, { from_address: w.from, to_address: w.to, asset_symbol: 'TRX', amount: w.amount.toString() })));
    const stakeAnswers = await Promise.all(stakes.map((st) =>
      submit(`/api/wallets/${st.address}/stake`, st.user.session, { resource: st.resource, amount: st.amount.toString() })));
    note('every request answered');
    for (const answer of [...collectionAnswers, ...withdrawalAnswers, ...stakeAnswers]) expect([answer.status, answer.code], JSON.stringify(answer.data)).toEqual([201, 'OK']);

    // Wait for every workflow to be terminal and every event delivered, while the chaos goes on to its minimum.
    const db = new pg.Pool({ connectionString: databaseUrl, max: 2 });
    db.on('error', () => undefined);
    const query = async <R extends pg.QueryResultRow>(sql: string, params: unknown[] = []): Promise<R[]> => {
      for (;;) {
        try {
          return (await db.query<R>(sql, params)).rows;
        } catch {
          await sleep(500);
        }
      }
    };
    const deadline = Date.now() + 420_000;
    for (;;) {
      const [open] = await query<{ commands: number; tasks: number; deliveries: number }>(`SELECT
        (SELECT count(*)::int FROM commands WHERE status IN (1, 2)) AS commands,
        (SELECT count(*)::int FROM collection_tasks WHERE status NOT IN (11, 12) OR reclaim_status = 'pending') AS tasks,
        (SELECT count(*)::int FROM webhook_events WHERE NOT dispatched) + (SELECT count(*)::int FROM webhook_deliveries WHERE status NOT IN (3, 5, 6)) AS deliveries`);
      if (open!.commands + open!.tasks + open!.deliveries === 0 && kills >= MIN_WORKER_KILLS) break;
      if (Date.now() > deadline) {
        const stuck = await query(`SELECT task_no, status, last_error, next_run_at, lease_owner, lease_expires_at, reclaim_status,
          jsonb_path_query_array(steps, '$[*].status') AS steps FROM collection_tasks WHERE status NOT IN (11, 12) OR reclaim_status = 'pending'`);
        const commands = await query('SELECT command_no, type, status, last_error, next_run_at, lease_owner, transaction FROM commands WHERE status IN (1, 2)');
        throw new Error(`not settled after the chaos (${kills} kills, now ${Date.now()}): ${JSON.stringify(open)}\n${JSON.stringify({ stuck, commands }, null, 1)}\n${report()}`);
      }
      if (kills >= MIN_WORKER_KILLS) stopChaos = true;
      superviseWorkers();
      if (progress.at(-1)?.includes(JSON.stringify(open)) !== true) note(`open: ${JSON.stringify(open)}`);
      await sleep(1_000);
    }
    stopChaos = true;
    await chaos;
    devnet.setFaults({ chaos: null });
    console.log(`crash test ${SEED}: ${kills} worker kills, 1 API kill (request ${apiKillAt}), PostgreSQL stopped immediate after kill ${postgresCrashAfterKill}`);

    // A withdrawal is SUCCESS once a node accepted it (spec §6): wait until each is in a block (the devnet makes one a
    // second) before reading the blocks' transfers, or one still in the pool would be missing from them.
    const paid = await query<{ txid: string }>(`SELECT transaction->>'txid' AS txid FROM commands WHERE type = 2 AND status = 3`);
    for (const included = Date.now() + 60_000; !paid.every(({ txid }) => devnet.chain.txs.has(txid.toLowerCase()));) {
      if (Date.now() > included) throw new Error(`withdrawals accepted but not in a block after 60 s: ${JSON.stringify(paid)}`);
      await sleep(500);
    }

    // Every collection: DONE, swept exactly once on chain, the amount the task records.
    const transfers = chainTransfers(devnet);
    const tasks = await query<{ task_no: string; address: string; status: number; swept_amount: string | null; sweep_tx_hash: string | null }>(
      'SELECT task_no, address, status, swept_amount::text, sweep_tx_hash FROM collection_tasks');
    expect(tasks).toHaveLength(collections.length);
    const sweptUsdt = new Map<string, bigint>();
    for (const item of collections) {
      const task = tasks.find((t) => t.address === item.sub)!;
      expect({ status: task.status, swept: task.swept_amount }, item.sub).toEqual({ status: 11, swept: (item.symbol === 'USDT' ? item.amount.toString() : task.swept_amount) });
      expect(sweepsOf(transfers, item).map((t) => [t.txid, t.amount.toString()])).toEqual([[task.sweep_tx_hash, task.swept_amount]]);
      if (item.symbol === 'USDT') sweptUsdt.set(item.user.main, (sweptUsdt.get(item.user.main) ?? 0n) + item.amount);
    }

    // Every withdrawal: one command per request, paid exactly once (the recipient holds exactly its amount).
    const commands = await query<{ command_no: string; type: number; status: number; address: string; params: { name: string; value: string }[] }>(
      'SELECT command_no, type, status, address, params FROM commands WHERE type = 2');
    expect(commands).toHaveLength(withdrawals.length);
    for (const w of withdrawals) {
      const command = commands.find((c) => c.address === w.from)!;
      expect(command.status, w.from).toBe(3);
      expect(await gateway.getTrxBalance(w.to)).toBe(w.amount);
      expect(transfers.filter((t) => t.kind === 'TRX' && t.toHex === Devnet.hex(w.to).toLowerCase())).toHaveLength(1);
    }

    // Every stake: one command per request, SUCCESS, its TRX in stake on chain exactly once.
    const stakeCommands = await query<{ command_no: string; status: number; address: string }>('SELECT command_no, status, address FROM commands WHERE type = 4');
    expect(stakeCommands).toHaveLength(stakes.length);
    for (const st of stakes) {
      expect(stakeCommands.find((c) => c.address === st.address)?.status, st.address).toBe(3);
      expect((await gateway.getTrxHoldings(st.address)).stakedSun, st.address).toBe(st.amount);
    }

    // The audit log (decision 144), an API process killed mid-request included: exactly one withdrawal.requested
    // entry per withdrawal command and none for a request that left no command; every account's chain intact.
    const requested = await query<{ command_no: string }>(`SELECT detail->>'command_no' AS command_no FROM audit_entries WHERE action = 'withdrawal.requested'`);
    expect(requested.map((r) => r.command_no).sort()).toEqual(commands.map((c) => c.command_no).sort());
    const store = await connectPostgres(databaseUrl, { migrate: false, poolSize: 2 });
    try {
      for (const user of users) {
        const report = await verifyStoredAuditChain(new PgAuditLog(store.pool), user.userId);
        expect({ ok: report.ok, ...(report.ok ? {} : { seq: report.seq, reason: report.reason }) }, `audit chain of ${user.userId}`).toEqual({ ok: true });
      }
    } finally {
      await store.close();
    }

    // One terminal event per workflow in the outbox; at the receiver, at most (here: exactly) one distinct event_id.
    const events = await query<{ event_id: string; event_type: string; payload_json: string }>('SELECT event_id, event_type, payload_json FROM webhook_events');
    const workflowOf = (payload: string): string => {
      const body = JSON.parse(payload) as Record<string, string>;
      return body['task_no'] ?? body['command_no']!;
    };
    const outboxByWorkflow = groupCount(events.map((e) => workflowOf(e.payload_json)));
    expect(outboxByWorkflow.size).toBe(collections.length + withdrawals.length);
    for (const [workflow, n] of outboxByWorkflow) expect(n, workflow).toBe(1);
    const delivered = new Map<string, Set<string>>();
    for (const r of receiver.received) {
      const body = JSON.parse(r.body) as Record<string, string>;
      const workflow = body['task_no'] ?? body['command_no']!;
      delivered.set(workflow, (delivered.get(workflow) ?? new Set()).add(body['event_id']!));
    }
    for (const workflow of outboxByWorkflow.keys()) expect(delivered.get(workflow)?.size, workflow).toBe(1);

    // No lock left, in the store or in Redis; the mains hold exactly what was swept to them.
    expect(await query('SELECT command_no FROM commands WHERE locked_address IS NOT NULL')).toEqual([]);
    const client = createRedisClient(redis.url);
    try {
      expect(await client.keys('custody:lock:*')).toEqual([]);
    } finally {
      await client.quit();
    }
    for (const user of users) expect(await gateway.getTokenBalance(user.main, devnet.usdtAddress)).toBe(sweptUsdt.get(user.main) ?? 0n);
    for (const item of collections.filter((c) => c.symbol === 'USDT')) expect(await gateway.getTokenBalance(item.sub, devnet.usdtAddress)).toBe(0n);

    // The books (issue #36) after the kills: every sweep, withdrawal and stake booked exactly once, none missing, none doubled,
    // each transaction balanced, every balance the sum of its entries, the amounts the chain's.
    const books = await booksAfterCrash(query, {
      collections: collections.map((item) => {
        const task = tasks.find((t) => t.address === item.sub)!;
        return { taskNo: task.task_no, symbol: item.symbol, main: item.user.main, swept: BigInt(task.swept_amount ?? '0') };
      }),
      withdrawals: withdrawals.map((w) => ({ commandNo: commands.find((c) => c.address === w.from)!.command_no, amount: w.amount })),
      stakes: stakes.map((st) => ({ commandNo: stakeCommands.find((c) => c.address === st.address)!.command_no, address: st.address, amount: st.amount })),
    });
    expect(books).toEqual([]);
    note('books verified');
    await db.end();
    note('verified');
  };
});

async function expectOk(answer: Promise<Answer>, what: string): Promise<void> {
  const a = await answer;
  if (a.status >= 300 || a.code !== 'OK') throw new Error(`${what}: HTTP ${a.status} ${a.code} ${JSON.stringify(a.data)}`);
}

function groupCount(keys: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const key of keys) counts.set(key, (counts.get(key) ?? 0) + 1);
  return counts;
}
