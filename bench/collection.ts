/**
 * Collections on the devnet through real tronweb, with the worker's executor on the memory store:
 * 1. block intervals per TRC20 self-delegation collection (FUNDING_TRX … RECOVER_TRX → DONE) at 1 confirmation
 *    (the design target is at most 5) and at the solidified depth;
 * 2. BENCH_COLLECTIONS (default 1000) USDT collections started at once and run by BENCH_WORKERS executors
 *    (default 4) on one store: wall time, collections per second, blocks until the last is DONE.
 * `npx tsx bench/collection.ts` (or `npm run bench:collection`). Bounded: stops after BENCH_MS (default 600000) of
 * wall time and reports how far it got. Blocks are mined by the bench (manual mode), one per round of the workers.
 */
import { performance } from 'node:perf_hooks';
import { CollectionExecutor, type CollectionExecutorOptions } from '../core/application/worker/collection-executor.js';
import { COLLECTION_STATUS, type CollectionTask } from '../core/domain/model/collection-task.js';
import { SelfDelegationEnergyProvider } from '../adapters/tron/index.js';
import { buildWorkerWorld, type WorkerWorld } from '../hosts/worker/worker-test-fixture.js';
import { driveUntil, type Runnable } from '../hosts/worker/worker-drive.js';
import { sweepCostTable } from './sweep-costs.js';

const COLLECTIONS = Number(process.env['BENCH_COLLECTIONS'] ?? 1_000);
const WORKERS = Number(process.env['BENCH_WORKERS'] ?? 4);
const CAP_MS = Number(process.env['BENCH_MS'] ?? 600_000);
/** Stages one executor runs per round (one block): a busy worker keeps working while the chain moves on. */
const STAGES_PER_PASS = Number(process.env['BENCH_STAGES_PER_BLOCK'] ?? 50);
let stages = 0;

function executors(w: WorkerWorld, count: number, options: CollectionExecutorOptions, perPass = STAGES_PER_PASS): Runnable[] {
  return Array.from({ length: count }, (_, i) => {
    const executor = new CollectionExecutor({
      ...w.stores, chain: w.gateway, cipher: w.cipher, assets: w.assets,
      energy: { self: new SelfDelegationEnergyProvider(w.gateway) },
    }, { owner: `bench-${i}`, pollMs: 1, ...options });
    return {
      runDue: async () => {
        // Read the count only after the await: `stages += await …` would add to a stale value across executors.
        const ran = (await executor.runDue(perPass)).length;
        stages += ran;
      },
    };
  });
}

const isEnd = (t: CollectionTask | null): boolean => t !== null && (t.status === COLLECTION_STATUS.DONE || t.status === COLLECTION_STATUS.FAILED);

async function blocksPerCollection(confirmations: number | 'solidified', activated = false): Promise<number> {
  const w = await buildWorkerWorld({ seed: `bench-blocks-${confirmations}` });
  try {
    const sub = await w.addSub();
    if (activated) w.devnet.fund(sub, 1);
    w.devnet.fundToken(sub, 1_000_000n);
    const task = await w.collect(sub, 'USDT');
    const start = w.devnet.info().head_number;
    await driveUntil(w, executors(w, 1, { confirmations }, 100_000), async () => isEnd(await w.stores.tasks.get(task.taskNo)), { maxRounds: 1_000 });
    const end = (await w.stores.tasks.get(task.taskNo))!;
    if (end.status !== COLLECTION_STATUS.DONE) throw new Error(`bench collection ended ${end.status}: ${end.lastError ?? ''}`);
    return w.devnet.info().head_number - start;
  } finally {
    await w.close();
  }
}

async function throughput(): Promise<void> {
  // ≈ 65-130k energy per sweep ≈ 6.5-13k TRX of stake each while delegated: enough stake for all at once.
  const w = await buildWorkerWorld({ seed: 'bench-throughput', stakeTrx: BigInt(COLLECTIONS) * 14_000n, liquidTrx: BigInt(COLLECTIONS) * 5n });
  try {
    const tasks: CollectionTask[] = [];
    for (let i = 0; i < COLLECTIONS; i++) {
      const sub = await w.addSub();
      w.devnet.fundToken(sub, 1_000_000n + BigInt(i));
      tasks.push(await w.collect(sub, 'USDT'));
    }
    const startBlock = w.devnet.info().head_number;
    stages = 0;
    const started = performance.now();
    let ended = 0;
    let timedOut = false;
    await driveUntil(w, executors(w, WORKERS, { confirmations: 1 }), async () => {
      ended = (await Promise.all(tasks.map((t) => w.stores.tasks.get(t.taskNo)))).filter(isEnd).length;
      timedOut = performance.now() - started > CAP_MS;
      return ended === tasks.length || timedOut;
    }, { maxRounds: 10_000, concurrent: true });
    const ms = performance.now() - started;
    const finals = await Promise.all(tasks.map((t) => w.stores.tasks.get(t.taskNo)));
    const done = finals.filter((t) => t!.status === COLLECTION_STATUS.DONE).length;
    const failed = finals.filter((t) => t!.status === COLLECTION_STATUS.FAILED);
    console.log(`${COLLECTIONS} concurrent USDT collections, ${WORKERS} executors, 1 confirmation${timedOut ? ` (stopped at the ${CAP_MS} ms cap)` : ''}:`);
    console.log(`  done ${done}, failed ${failed.length}${failed.length > 0 ? ` (first: ${failed[0]!.errorCode}: ${failed[0]!.lastError})` : ''}, unfinished ${COLLECTIONS - ended}`);
    const byStatus = new Map<number, number>();
    for (const t of finals) byStatus.set(t!.status, (byStatus.get(t!.status) ?? 0) + 1);
    console.log(`  wall ${(ms / 1000).toFixed(1)} s, ${(done / (ms / 1000)).toFixed(2)} collections/s, ${(stages / (ms / 1000)).toFixed(1)} stages/s (${stages} stages),`
      + ` ${w.devnet.info().head_number - startBlock} blocks mined (${STAGES_PER_PASS} stages per executor per block)`);
    console.log(`  tasks by status: ${[...byStatus].map(([k, v]) => `${k}=${v}`).join(' ')}`);
  } finally {
    await w.close();
  }
}

await sweepCostTable();
console.log(`blocks per TRC20 self-delegation collection of a new sub-address, 1 confirmation: ${await blocksPerCollection(1)} (goal <= 4)`);
console.log(`blocks per TRC20 self-delegation collection of a new sub-address, solidified (lag 19): ${await blocksPerCollection('solidified')}`);
console.log(`blocks per TRC20 self-delegation collection of an activated sub-address, solidified (lag 19): ${await blocksPerCollection('solidified', true)}`
  + ' (goal <= 3 x 20)');
await throughput();
