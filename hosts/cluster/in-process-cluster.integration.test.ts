/**
 * Issue #6, cluster: two API hosts and two workers, each its own composition, on ONE shared store (the memory
 * adapters), a REAL Redis (address locks and rate limits, one client per node) and one devnet. A batch of funded
 * sub-addresses is collected through both APIs at once, with same-key duplicates to both nodes and other-key
 * duplicates; both workers tick concurrently while the devnet mines. Nothing may run twice.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { pino } from 'pino';
import type { Redis } from 'ioredis';
import { COLLECTION_STATUS } from '../../core/domain/model/collection-task.js';
import { COMMAND_STATUS, COMMAND_TYPE } from '../../core/domain/model/command.js';
import { createMemoryAdapters, ManualClock, MemoryOperatorStatusStore, MemoryScanCursorStore, RecordingMailer, type MemoryAdapters } from '../../adapters/memory/index.js';
import { NodeSecretHasher, TEST_SCRYPT_COST } from '../../adapters/node/index.js';
import { createRedisClient, RedisAddressLock, RedisRateLimiter } from '../../adapters/redis/index.js';
import { Devnet, startDevnet } from '../../adapters/tron-devnet/index.js';
import { describeWithRedis } from '../../contracts-tests/harness/with-redis.js';
import { startApiServer, type RunningServer } from '../api/api-server.js';
import { loadConfig } from '../composition/config.js';
import { composeContainer, type Composition } from '../composition/container.js';
import { TOKENS } from '../composition/tokens.js';
import { startComposedWorker } from '../worker/compose-worker.js';
import type { RunningWorker } from '../worker/index.js';
import { BLOCK_MS } from '../worker/worker-drive.js';
import {
  apiNode, chainTransfers, duplicateStorm, refreshBalances, requestCollection, signUpOverNodes, sweepsOf, type ApiNode, type BatchItem, type ClusterUser,
} from './cluster-fixture.js';

const TRX = 1_000_000n;
const SUBS_PER_USER = 5;

describeWithRedis('cluster in one process: 2 API nodes + 2 workers on one store, Redis and devnet', (redisUrl) => {
  const prefix = `cluster-${randomUUID().slice(0, 8)}:`;
  const clock = new ManualClock();
  const mailer = new RecordingMailer();
  let devnet: Devnet;
  let stores: MemoryAdapters;
  const compositions: Composition[] = [];
  const clients: Redis[] = [];
  const servers: RunningServer[] = [];
  const workers: RunningWorker[] = [];
  let nodes: ApiNode[] = [];
  const key = randomBytes(32).toString('base64');
  const scanCursors = new MemoryScanCursorStore();

  /** One node: its own container on the shared store, its own Redis connection (same key prefix: one cluster). */
  const node = (): Composition => {
    const config = loadConfig({
      TRON_FULL_HOST: devnet.url, USDT_CONTRACT: devnet.usdtAddress, LOCKS: 'redis', REDIS_URL: redisUrl,
      ENERGY_PROVIDER: 'rental', CHAIN_CONFIRMATIONS: '1', ADMIN_TOKEN: 'admin-token-for-cluster-tests-0123456789',
      KEY_ENCRYPTION_KEY: key,
    }, { mode: 'dev' });
    const composition = composeContainer(config, {
      clock, mailer, logger: pino({ level: 'silent' }), hasher: new NodeSecretHasher({ cost: TEST_SCRYPT_COST }),
      // Raised so a user's batch and its duplicates (12 requests) fit one window; the count itself is checked below.
      rateLimits: { 'collection-create': 50 },
    });
    const client = createRedisClient(redisUrl);
    clients.push(client);
    composition.container.rebind(TOKENS.Stores).toConstantValue({ ...stores, scanCursors, operatorStatus: new MemoryOperatorStatusStore() });
    composition.container.rebind(TOKENS.AddressLock).toConstantValue(new RedisAddressLock(client, { keyPrefix: prefix }));
    composition.container.rebind(TOKENS.RateLimiter).toConstantValue(new RedisRateLimiter(client, { keyPrefix: prefix }));
    compositions.push(composition);
    return composition;
  };

  beforeAll(async () => {
    devnet = await startDevnet({ port: 0, blockMs: 0, seed: 'cluster-tests' });
    stores = createMemoryAdapters({ clock });
    for (let i = 0; i < 2; i++) {
      const server = await startApiServer(node().container.get(TOKENS.ApiHost).h3, { port: 0 });
      servers.push(server);
      nodes.push(apiNode(server.url));
    }
    for (let i = 0; i < 2; i++) {
      workers.push(startComposedWorker(node(), {}, { manual: true, collection: { owner: `worker-${i}`, pollMs: BLOCK_MS } }));
    }
  });

  afterAll(async () => {
    await Promise.all(workers.map((w) => w.stop()));
    await Promise.all(servers.map((s) => s.close()));
    await Promise.all(compositions.map((c) => c.close()));
    await Promise.all(clients.map((c) => c.quit().catch(() => undefined)));
    await devnet?.close();
    nodes = [];
  });

  it('completes the batch: every task DONE once, one sweep each on chain, one terminal event each, no lock left', async () => {
    const codeFor = async (email: string): Promise<string> => mailer.lastCodeFor(email) ?? '';
    const users: ClusterUser[] = [];
    for (let u = 0; u < 2; u++) users.push(await signUpOverNodes(nodes, codeFor, SUBS_PER_USER));
    const items: BatchItem[] = users.flatMap((user) => user.subs.map((sub, i) => ({
      user, sub, symbol: i === SUBS_PER_USER - 1 ? 'TRX' as const : 'USDT' as const,
      amount: i === SUBS_PER_USER - 1 ? 7n * TRX + BigInt(user.userId) : BigInt(1_000_000 * (i + 1) + 17 * user.userId),
    })));
    for (const user of users) devnet.fund(user.main, 2_000n * TRX);
    for (const item of items) (item.symbol === 'USDT' ? devnet.fundToken(item.sub, item.amount) : devnet.fund(item.sub, item.amount));
    devnet.mine(1);
    await refreshBalances(nodes, items);

    // The first item of each user gets the duplicate storm; the others are requested alternately, all at once.
    const stormed = users.map((user) => items.find((i) => i.user === user)!);
    const [storms, singles] = await Promise.all([
      Promise.all(stormed.map((item) => duplicateStorm(nodes, item))),
      Promise.all(items.filter((i) => !stormed.includes(i)).map((item, n) => requestCollection(nodes[n % 2]!, item))),
    ]);
    for (const answer of singles) expect({ status: answer.status, code: answer.code }).toEqual({ status: 201, code: 'OK' });
    const taskNos = new Map<BatchItem, string>();
    items.filter((i) => !stormed.includes(i)).forEach((item, n) => taskNos.set(item, singles[n]!.data.task_no));
    for (const [s, { answers, keys }] of storms.entries()) {
      const created = answers.filter((a) => a.status === 201);
      expect(new Set(created.map((a) => a.data.task_no)).size, JSON.stringify(answers)).toBe(1);
      for (const a of answers.filter((x) => x.status !== 201)) {
        expect([a.status, a.code]).toSatisfy(([status, code]) => status === 409 && ['BIZ-COMMAND-LOCKED', 'IDEMPOTENCY-KEY-IN-PROGRESS'].includes(code));
      }
      taskNos.set(stormed[s]!, created[0]!.data.task_no);
      // A replay of the winning key on either node is the stored 201; a new key is refused while the task runs.
      const winner = keys[answers.findIndex((a) => a.status === 201) < nodes.length ? 0 : 1]!;
      for (const n of nodes) {
        const replay = await requestCollection(n, stormed[s]!, winner);
        expect({ status: replay.status, task: replay.data?.task_no }).toEqual({ status: 201, task: created[0]!.data.task_no });
        expect((await requestCollection(n, stormed[s]!)).code).toBe('BIZ-COMMAND-LOCKED');
      }
    }
    // Both nodes counted every new collection request of a user in one Redis window: the storm's 2 keys, 4 singles, a
    // new key per node after. Replays and keys still in progress cost no quota (docs/decisions.md 61).
    for (const user of users) {
      expect(await clients[0]!.get(`${prefix}rate:rl:collection-create:u:${user.userId}`)).toBe(String(2 + (SUBS_PER_USER - 1) + nodes.length));
    }
    // One task and one COLLECTION command per sub-address, whatever reached the nodes.
    expect([...stores.store.tasks.values()].map((t) => t.address).sort()).toEqual(items.map((i) => i.sub).sort());
    expect([...stores.store.commands.values()].filter((c) => c.type === COMMAND_TYPE.COLLECTION)).toHaveLength(items.length);

    // Both workers tick concurrently while a block is mined; then the ManualClock moves one block on.
    const terminal = (): boolean => [...stores.store.tasks.values()]
      .every((t) => t.status === COLLECTION_STATUS.DONE || t.status === COLLECTION_STATUS.FAILED);
    let rounds = 0;
    const advancedBy = workers.map(() => 0);
    while (!terminal()) {
      if (++rounds > 150) throw new Error(`not done: ${JSON.stringify([...stores.store.tasks.values()].map((t) => [t.status, t.lastError]))}`);
      // The block lands while both passes are in flight (after their first await): a worker may see either side.
      const [reports] = await Promise.all([Promise.all(workers.map((w) => w.tick())), Promise.resolve().then(() => devnet.mine(1))]);
      reports.forEach((r, i) => { advancedBy[i]! += r.collections.filter((o) => o.outcome === 'advanced' || o.outcome === 'finished').length; });
      clock.advance(BLOCK_MS);
    }

    // Both workers took part: the leases shared the batch between them rather than one idling.
    expect(advancedBy.every((n) => n > 0), JSON.stringify(advancedBy)).toBe(true);
    const transfers = chainTransfers(devnet);
    const events = [...stores.store.events.values()];
    const sweptUsdt = new Map<string, bigint>();
    for (const item of items) {
      const task = stores.store.tasks.get(taskNos.get(item)!)!;
      expect({ status: task.status, error: task.lastError, lease: task.lease }).toEqual({ status: COLLECTION_STATUS.DONE, error: null, lease: null });
      expect(stores.store.commands.get(task.commandNo)!.status).toBe(COMMAND_STATUS.SUCCESS);
      const sweeps = sweepsOf(transfers, item);
      expect(sweeps.map((t) => [t.txid, t.amount])).toEqual([[task.sweepTxHash, task.sweptAmount]]);
      if (item.symbol === 'USDT') {
        expect(task.sweptAmount).toBe(item.amount);
        sweptUsdt.set(item.user.main, (sweptUsdt.get(item.user.main) ?? 0n) + item.amount);
        // The gas float went out once too.
        const funding = transfers.filter((t) => t.kind === 'TRX' && t.fromHex === Devnet.hex(item.user.main).toLowerCase()
          && t.toHex === Devnet.hex(item.sub).toLowerCase());
        expect(funding).toHaveLength(1);
      }
      expect(events.filter((e) => e.payload['task_no'] === task.taskNo).map((e) => e.eventType)).toEqual(['collection.completed']);
    }
    for (const user of users) expect(await mainUsdt(user.main)).toBe(sweptUsdt.get(user.main));
    // The webhook dispatchers of both workers turned each event into exactly one delivery (SKIPPED: no URL set).
    await Promise.all(workers.map((w) => w.tick()));
    const deliveries = [...stores.store.deliveries.values()];
    for (const event of events) expect(deliveries.filter((d) => d.eventId === event.eventId)).toHaveLength(1);
    const locks = await clients[0]!.keys(`${prefix}lock:*`);
    expect(locks).toEqual([]);
  });

  async function mainUsdt(address: string): Promise<bigint> {
    return compositions[0]!.container.get(TOKENS.Chain).getTokenBalance(address, devnet.usdtAddress);
  }
});
