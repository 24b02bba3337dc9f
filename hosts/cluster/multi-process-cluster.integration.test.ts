/**
 * Issues #6 and #22, cluster as real processes: two API processes (hosts/cluster/api-process.ts) and two worker
 * processes (`npm run worker`) on one durable database, one Redis and a devnet in this test process (a block a
 * second). The batch goes through both APIs over HTTP with duplicate storms; at the end every task is DONE once, the
 * chain holds one sweep per task, the outbox one terminal event per task, and Redis no lock.
 * PostgreSQL always runs (the harness's cluster); MongoDB when MONGODB_URL or a container runtime provides one, else
 * it is skipped loudly.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { describe, expect, inject, it } from 'vitest';
import { COLLECTION_STATUS } from '../../core/domain/model/collection-task.js';
import { COMMAND_STATUS } from '../../core/domain/model/command.js';
import type { CollectionTaskRepository } from '../../core/ports/collection-task-repository.port.js';
import type { CommandRepository } from '../../core/ports/command-repository.port.js';
import { COLLECTIONS } from '../../adapters/mongodb/collections.js';
import { createMongoAdapters } from '../../adapters/mongodb/index.js';
import { SystemClock } from '../../adapters/node/index.js';
import { connectPostgres, createPostgresAdapters } from '../../adapters/postgres/index.js';
import { createRedisClient } from '../../adapters/redis/index.js';
import { createDevnetChainGateway } from '../../adapters/tron/index.js';
import { startDevnet } from '../../adapters/tron-devnet/index.js';
import { openTestDatabase, provisionMongo } from '../../contracts-tests/harness/mongodb.js';
import { createTestDatabase } from '../../contracts-tests/harness/postgres.js';
import '../../contracts-tests/harness/with-redis.js';
import '../../contracts-tests/harness/with-postgres.js';
import { startProcess, type ClusterProcess } from './cluster-processes.js';
import {
  apiNode, chainTransfers, duplicateStorm, refreshBalances, requestCollection, signUpOverNodes, sweepsOf, type ApiNode, type BatchItem,
} from './cluster-fixture.js';

const TRX = 1_000_000n;
const redisUrl = inject('redisUrl');
const postgresUrl = inject('postgresUrl');

/** What the test reads back from a store: the ports' reads, plus the counts and events no port lists. */
interface StoreView {
  readonly env: Record<string, string>;
  readonly tasks: CollectionTaskRepository;
  readonly commands: CommandRepository;
  countByAddress(kind: 'tasks' | 'commands', addresses: readonly string[]): Promise<number>;
  events(): Promise<{ type: string; taskNo: string }[]>;
  close(): Promise<void>;
}

async function postgresView(serverUrl: string): Promise<StoreView> {
  const database = await createTestDatabase(serverUrl, 'cluster');
  const connection = await connectPostgres(database.url);
  const stores = createPostgresAdapters({ connection, clock: new SystemClock() });
  const count = async (sql: string, addresses: readonly string[]) => (await connection.pool.query<{ n: number }>(sql, [[...addresses]])).rows[0]!.n;
  return {
    env: { STORE: 'postgres', DATABASE_URL: database.url, DATABASE_POOL_SIZE: '5' },
    tasks: stores.tasks, commands: stores.commands,
    countByAddress: (kind, addresses) => count(`SELECT count(*)::bigint AS n FROM ${kind === 'tasks' ? 'collection_tasks' : 'commands'} WHERE address = ANY($1::text[])`, addresses),
    events: async () => (await connection.pool.query<{ event_type: string; payload_json: string }>('SELECT event_type, payload_json FROM webhook_events')).rows
      .map((row) => ({ type: row.event_type, taskNo: (JSON.parse(row.payload_json) as Record<string, string>)['task_no']! })),
    close: async () => {
      await connection.close();
      await database.drop();
    },
  };
}

async function mongoView(url: string, stop: () => Promise<void>): Promise<StoreView> {
  const database = await openTestDatabase(url, 'cluster');
  const stores = createMongoAdapters({ connection: database.connection, clock: new SystemClock() });
  const db = database.connection.db;
  return {
    env: { STORE: 'mongodb', MONGODB_URL: url, MONGODB_DB: db.databaseName },
    tasks: stores.tasks, commands: stores.commands,
    countByAddress: (kind, addresses) => db.collection(kind === 'tasks' ? COLLECTIONS.tasks : COLLECTIONS.commands).countDocuments({ address: { $in: [...addresses] } }),
    events: async () => (await db.collection(COLLECTIONS.events).find({}).toArray())
      .map((doc) => ({ type: doc['eventType'] as string, taskNo: JSON.parse(doc['payloadJson'] as string)['task_no'] as string })),
    close: async () => {
      await database.drop();
      await stop();
    },
  };
}

const mongo = await provisionMongo();
const stores: { name: string; missing: string | null; open: () => Promise<StoreView> }[] = [
  { name: 'PostgreSQL', missing: postgresUrl === '' ? `no PostgreSQL: ${inject('postgresSkipReason')}` : null, open: () => postgresView(postgresUrl) },
  {
    name: 'MongoDB', missing: mongo.kind === 'unavailable' ? `no MongoDB (set MONGODB_URL or provide a container runtime for testcontainers): ${mongo.reason}` : null,
    open: () => (mongo.kind === 'unavailable' ? Promise.reject(new Error(mongo.reason)) : mongoView(mongo.url, mongo.stop)),
  },
];

for (const store of stores) {
  const missing = store.missing ?? (redisUrl === '' ? `no Redis: ${inject('redisSkipReason')}` : null);
  if (missing !== null) console.warn(`SKIPPED: multi-process cluster test on ${store.name}: ${missing}`);

  describe.skipIf(missing !== null)(`cluster of processes: 2 API + 2 worker processes on ${store.name}, Redis and a devnet`, () => {
    it('completes the batch over HTTP with no double execution', async () => {
      const prefix = `cluster-mp-${randomUUID().slice(0, 8)}:`;
      const processes: ClusterProcess[] = [];
      const view = await store.open();
      // Virtual time starts at the wall clock, as in `npm start`: the workers' SystemClock and the chain agree.
      const devnet = await startDevnet({ port: 0, blockMs: 1_000, seed: 'cluster-processes', genesisTime: Math.floor(Date.now() / 3_000) * 3_000 });
      try {
        const env = {
          NODE_ENV: 'production', ...view.env, LOCKS: 'redis', REDIS_URL: redisUrl, CLUSTER_REDIS_PREFIX: prefix, CHAIN: 'devnet',
          TRON_FULL_HOST: devnet.url, USDT_CONTRACT: devnet.usdtAddress, ENERGY_PROVIDER: 'rental', CHAIN_CONFIRMATIONS: '1', CHAIN_BLOCK_MS: '1000', PORT: '0',
          METRICS_PORT: '0', KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64'), ADMIN_TOKEN: `adm_${randomBytes(24).toString('hex')}`,
        };
        for (const i of [1, 2]) processes.push(startProcess(`api-${i}`, 'hosts/cluster/api-process.ts', env));
        for (const i of [1, 2]) processes.push(startProcess(`worker-${i}`, 'hosts/worker/main.ts', env));
        const urls = await Promise.all(processes.slice(0, 2).map((p) => p.waitFor(/^api listening (\S+)$/, 60_000)));
        await Promise.all(processes.slice(2).map((p) => p.waitFor(/worker running/, 60_000)));
        const nodes: ApiNode[] = urls.map((m) => apiNode(m[1]!));
        await runBatch(nodes, processes, devnet, view, redisUrl, prefix);
      } finally {
        await Promise.all(processes.map((p) => p.stop()));
        await devnet.close();
        await view.close();
      }
    }, 300_000);
  });
}

async function runBatch(
  nodes: ApiNode[], processes: ClusterProcess[], devnet: Awaited<ReturnType<typeof startDevnet>>, view: StoreView, redisUrl: string, prefix: string,
): Promise<void> {
  const codeFor = async (email: string): Promise<string> => {
    const pattern = new RegExp(`verification code for ${email.replace(/[.+]/g, '\\$&')}: (\\S+)`);
    return (await Promise.any(processes.slice(0, 2).map((p) => p.waitFor(pattern, 10_000))))[1]!;
  };
  const users = [await signUpOverNodes(nodes, codeFor, 4), await signUpOverNodes(nodes, codeFor, 4)];
  const items: BatchItem[] = users.flatMap((user) => user.subs.map((sub, i) => ({
    user, sub, symbol: i === 3 ? 'TRX' as const : 'USDT' as const, amount: i === 3 ? 6n * TRX : BigInt(2_000_000 * (i + 1) + user.userId),
  })));
  for (const user of users) devnet.fund(user.main, 2_000n * TRX);
  for (const item of items) (item.symbol === 'USDT' ? devnet.fundToken(item.sub, item.amount) : devnet.fund(item.sub, item.amount));
  await refreshBalances(nodes, items);

  // Per user: 4 storm requests + 3 singles + 1 locked check, under the shared limit of 10 a minute.
  const stormed = users.map((user) => items.find((i) => i.user === user)!);
  const others = items.filter((i) => !stormed.includes(i));
  const [storms, singles] = await Promise.all([
    Promise.all(stormed.map((item) => duplicateStorm(nodes, item))),
    Promise.all(others.map((item, n) => requestCollection(nodes[n % 2]!, item))),
  ]);
  const taskNos = new Map<BatchItem, string>(others.map((item, n) => [item, singles[n]!.data?.task_no]));
  for (const answer of singles) expect([answer.status, answer.code]).toEqual([201, 'OK']);
  for (const [s, { answers }] of storms.entries()) {
    const created = answers.filter((a) => a.status === 201);
    expect(new Set(created.map((a) => a.data.task_no)).size, JSON.stringify(answers)).toBe(1);
    for (const a of answers.filter((x) => x.status !== 201)) expect(['BIZ-COMMAND-LOCKED', 'IDEMPOTENCY-KEY-IN-PROGRESS']).toContain(a.code);
    taskNos.set(stormed[s]!, created[0]!.data.task_no);
    expect((await requestCollection(nodes[1 - s]!, stormed[s]!)).code).toBe('BIZ-COMMAND-LOCKED');
  }

  const deadline = Date.now() + 150_000;
  for (;;) {
    const tasks = await Promise.all(items.map((item) => view.tasks.get(taskNos.get(item)!)));
    if (tasks.every((t) => t !== null && (t.status === COLLECTION_STATUS.DONE || t.status === COLLECTION_STATUS.FAILED))) break;
    if (Date.now() > deadline) {
      throw new Error(`not done: ${JSON.stringify(tasks.map((t) => [t?.status, t?.lastError]))}\n${processes.flatMap((p) => p.output.slice(-10)).join('\n')}`);
    }
    await sleep(500);
  }

  const subs = items.map((i) => i.sub);
  expect(await view.countByAddress('tasks', subs)).toBe(items.length);
  // One COLLECTION per item, beside the QUERY of the balance refresh that put its deposit in the cache.
  expect(await view.countByAddress('commands', subs)).toBe(2 * items.length);
  const events = await view.events();
  const transfers = chainTransfers(devnet);
  const sweptUsdt = new Map<string, bigint>();
  for (const item of items) {
    const task = (await view.tasks.get(taskNos.get(item)!))!;
    expect({ status: task.status, error: task.lastError, lease: task.lease }).toEqual({ status: COLLECTION_STATUS.DONE, error: null, lease: null });
    expect((await view.commands.get(task.commandNo))!.status).toBe(COMMAND_STATUS.SUCCESS);
    expect(sweepsOf(transfers, item).map((t) => [t.txid, t.amount])).toEqual([[task.sweepTxHash, task.sweptAmount]]);
    if (item.symbol === 'USDT') sweptUsdt.set(item.user.main, (sweptUsdt.get(item.user.main) ?? 0n) + item.amount);
    expect(events.filter((e) => e.taskNo === task.taskNo).map((e) => e.type)).toEqual(['collection.completed']);
  }
  const gateway = createDevnetChainGateway(devnet);
  for (const user of users) expect(await gateway.getTokenBalance(user.main, devnet.usdtAddress)).toBe(sweptUsdt.get(user.main));
  const redis = createRedisClient(redisUrl);
  try {
    expect(await redis.keys(`${prefix}lock:*`)).toEqual([]);
  } finally {
    await redis.quit();
  }
}
