/**
 * Collections on the devnet through real tronweb, with the worker's executor on the memory store (and on PostgreSQL).
 * `npm run bench:collection` (or `npx tsx bench/collection.ts`); every figure is printed beside its goal.
 * 1. (BENCH_COST_TABLE=0 skips) What one sweep costs per energy path (bench/sweep-costs.ts), and block intervals per
 *    TRC20 self-delegation collection at 1 confirmation and at the solidified depth: in-process devnet, manual blocks.
 * 2. Chain time (bench/collection-chain-time.ts): the devnet runs in a child process and mines a block every 3 s of
 *    wall time on its own timer; BENCH_WORKERS (default 4) executors, each running BENCH_CONCURRENCY (default 16)
 *    stages at once (the runner's `concurrency`), run freely between blocks with no stage budget.
 *    One sweep, then each size of BENCH_SWEEPS (default "1000,10000") queued at once: blocks until all are DONE,
 *    wall time, and CPU per sweep split between the worker (this process) and the simulator (the child). Goals:
 *    1,000 within 2x the single sweep's blocks (same run); worker CPU per sweep within 1.2x from 1,000 to the
 *    largest size. BENCH_MS (default 1,800,000) caps each size's wall time. BENCH_PROFILE=1 (or =postgres) adds a
 *    profiled run of the first size (on that store) and prints the worker's top functions by self time, and the
 *    simulator's (the child run with node --cpu-prof). BENCH_ROWS=memory or =postgres runs only that row after the
 *    single sweep (default both); the PostgreSQL row takes 1,000 sweeps, or the first size when 1,000 is not one,
 *    and prints its server's CPU (the cluster's process tree, from /proc) and its statements per sweep, then books
 *    every DONE task in the ledger as the worker does and prints the booking's statements per sweep beside them (issue #36)
 *    (BENCH_PG_TIMING=1: and their mean round trips; BENCH_PG_POOL: the pool size, default 20; BENCH_PG_TRACE=1
 *    prints each statement with its first parameters, for a run of BENCH_SWEEPS=1).
 *    Then (BENCH_POSTGRES=0 skips) the same 1,000 sweeps with the worker's store on PostgreSQL (a throwaway cluster of
 *    its own, started by the test harness): goal within 2x the single sweep's blocks, worker CPU per sweep printed
 *    beside the memory run's (PostgreSQL's own CPU is not counted; issue #22).
 * 1b. (BENCH_CALLS=0 skips) Node calls per sweep for each energy path and a TRX sweep, first and repeat, beside the
 *    floor, a same-run baseline and sweeps a day on one free key (bench/node-calls.ts; issue #27).
 * 3. Worker memory across BENCH_CHURN_TASKS (default 100,000; 0 skips) finished tasks through the real
 *    WorkflowRunner (bench/runner-churn.ts, which says exactly what is and is not measured): goal flat.
 * 10,000 concurrent sweeps take longer than the 30-minute cap on a loaded 2-core machine: the simulator, not the
 * worker, is then the bottleneck (its CPU per sweep grows about 7x from 1,000 to 10,000), and an unfinished run's
 * worker CPU is compared per stage and reported as not met. BENCH_SWEEPS=1000 (or 1000,3000) for a quicker run.
 */
import { CollectionExecutor } from '../core/application/worker/collection-executor.js';
import type { WorkflowOptions } from '../core/application/worker/workflow-executor.js';
import { COLLECTION_STATUS, type CollectionTask } from '../core/domain/model/collection-task.js';
import { SelfDelegationEnergyProvider } from '../adapters/tron/index.js';
import { buildWorkerWorld, type WorkerWorld } from '../hosts/worker/worker-test-fixture.js';
import { driveUntil, type Runnable } from '../hosts/worker/worker-drive.js';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { childProfileTop, concurrentSweeps, startChildDevnet, type BenchStore, type SweepRun } from './collection-chain-time.js';
import { runnerChurn } from './runner-churn.js';
import { sweepCostTable } from './sweep-costs.js';
import { nodeCallTable } from './node-calls.js';

const WORKERS = Number(process.env['BENCH_WORKERS'] ?? 4);
/** Stages each executor runs at once on the chain-time runs (the runner's `concurrency`). */
const CONCURRENCY = Number(process.env['BENCH_CONCURRENCY'] ?? 16);
/**
 * This bench on the code before the indexes, the runner's concurrency and the shared head reads (commit 0c014bb,
 * 4 executors one stage at a time, same machine, loaded): the baseline printed beside the goals.
 */
const BASELINE = '55 blocks, 167.7 s, worker 29.0 ms + simulator 25.5 ms CPU per sweep at 1,000 (commit 0c014bb);'
  + ' 15 blocks, worker 33.8 ms + simulator 27.0 ms before decisions 150-155 (commit 0d24784)';
const CAP_MS = Number(process.env['BENCH_MS'] ?? 1_800_000);
/** Which chain-time rows run after the single sweep: BENCH_ROWS=memory, =postgres, or both (the default). */
const ROWS = new Set((process.env['BENCH_ROWS'] ?? 'memory,postgres').split(','));

/** Executors for the manual-block measurements: each round runs whatever is due, then one block is mined. */
function executors(w: WorkerWorld, count: number, options: WorkflowOptions): Runnable[] {
  return Array.from({ length: count }, (_, i) => {
    const executor = new CollectionExecutor({
      ...w.stores, chain: w.gateway, cipher: w.cipher, assets: w.assets,
      energy: { self: new SelfDelegationEnergyProvider(w.gateway) },
    }, { owner: `bench-${i}`, pollMs: 1, ...options });
    return { runDue: () => executor.runDue() };
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
    await driveUntil(w, executors(w, 1, { confirmations }), async () => isEnd(await w.stores.tasks.get(task.taskNo)), { maxRounds: 1_000 });
    const end = (await w.stores.tasks.get(task.taskNo))!;
    if (end.status !== COLLECTION_STATUS.DONE) throw new Error(`bench collection ended ${end.status}: ${end.lastError ?? ''}`);
    return w.devnet.info().head_number - start;
  } finally {
    await w.close();
  }
}

function printRun(r: SweepRun): void {
  console.log(`  ${String(r.sweeps).padStart(6)} sweeps: done ${r.done}, failed ${r.failed}${r.firstFailure === null ? '' : ` (first: ${r.firstFailure})`},`
    + ` unfinished ${r.sweeps - r.done - r.failed}; ${r.blocks} blocks, wall ${(r.wallMs / 1000).toFixed(1)} s, ${(r.done / (r.wallMs / 1000)).toFixed(1)} sweeps/s,`
    + ` ${r.stages} stages`);
  console.log(`         CPU per sweep: worker ${(r.workerCpuMs / r.sweeps).toFixed(1)} ms, simulator ${(r.simCpuMs / r.sweeps).toFixed(1)} ms;`
    + ` per stage: worker ${(r.workerCpuMs / Math.max(1, r.stages)).toFixed(2)} ms, simulator ${(r.simCpuMs / Math.max(1, r.stages)).toFixed(2)} ms`
    + ` (totals ${(r.workerCpuMs / 1000).toFixed(1)} s / ${(r.simCpuMs / 1000).toFixed(1)} s)`
    + `${Number.isNaN(r.storeCpuMs) ? '' : `; PostgreSQL server ${(r.storeCpuMs / r.sweeps).toFixed(1)} ms per sweep (${(r.storeCpuMs / 1000).toFixed(1)} s)`}; worker RSS peak ${r.peakRssMb.toFixed(0)} MB, end ${r.endRssMb.toFixed(0)} MB`);
  const calls = Object.entries(r.nodeCalls).sort((a, b) => b[1] - a[1]);
  const total = calls.reduce((sum, [, n]) => sum + n, 0);
  console.log(`         node calls per sweep: ${(total / r.sweeps).toFixed(1)} (${calls.slice(0, 8).map(([name, n]) => `${name} ${(n / r.sweeps).toFixed(1)}`).join(', ')})`);
  const statements = Object.entries(r.storeStatements).filter(([head]) => !head.startsWith('ms ')).sort((a, b) => b[1] - a[1]);
  if (statements.length > 0) {
    const all = statements.reduce((sum, [, n]) => sum + n, 0);
    const ms = (head: string): string => ((r.storeStatements[`ms ${head}`] ?? 0) / Math.max(1, r.storeStatements[head] ?? 0)).toFixed(1);
    console.log(`         PostgreSQL statements per sweep: ${(all / r.sweeps).toFixed(1)} (${statements.slice(0, 10).map(([head, n]) => `${head} ${(n / r.sweeps).toFixed(1)}`).join(', ')})`);
    if (Object.keys(r.storeStatements).some((head) => head.startsWith('ms '))) {
      console.log(`         PostgreSQL round trip, mean ms: ${statements.slice(0, 6).map(([head]) => `${head} ${ms(head)}`).join(', ')}`);
    }
    // The ledger's cost per sweep (issue #36): booking each DONE task, beside the statements the sweep itself took.
    if (r.ledger !== null) {
      const booking = Object.entries(r.ledger.statements).sort((a, b) => b[1] - a[1]);
      const n = Math.max(1, r.ledger.booked);
      const perSweep = booking.reduce((sum, [, c]) => sum + c, 0) / n;
      console.log(`         ledger booking per sweep: ${perSweep.toFixed(1)} statements beside the sweep's ${(all / r.sweeps).toFixed(1)} (+${(100 * perSweep / (all / r.sweeps)).toFixed(0)} %),`
        + ` ${r.ledger.booked} booked (${booking.slice(0, 8).map(([head, c]) => `${head} ${(c / n).toFixed(1)}`).join(', ')})`);
    }
  }
}

/** One sweep, then each size of BENCH_SWEEPS, each on a fresh devnet child; prints figures beside their goals. */
async function chainTime(): Promise<void> {
  const sizes = (process.env['BENCH_SWEEPS'] ?? '1000,10000').split(',').map(Number).filter((n) => n > 0);
  console.log(`concurrent USDT sweeps of new sub-addresses on chain time (devnet in a child process, a block every ${process.env['DEVNET_BLOCK_MS'] ?? 3_000} ms;`
    + ` ${WORKERS} free-running executors running ${CONCURRENCY} stages at once each, 1 confirmation, memory store):`);
  const run = async (n: number, profile = false, store: BenchStore = 'memory'): Promise<SweepRun> => {
    const devnet = await startChildDevnet(`bench-chain-time-${n}`);
    try {
      return await concurrentSweeps(devnet, n, WORKERS, CONCURRENCY, CAP_MS, profile, store);
    } finally {
      await devnet.close();
    }
  };
  const single = await run(1);
  printRun(single);
  const runs: SweepRun[] = [];
  for (const n of ROWS.has('memory') ? sizes : []) {
    const r = await run(n);
    runs.push(r);
    printRun(r);
    if (r.done !== n) process.exitCode = 1;
  }
  const thousand = runs.find((r) => r.sweeps === 1_000);
  if (thousand !== undefined) {
    const ok = thousand.done === 1_000 && thousand.blocks <= 2 * single.blocks;
    if (!ok) process.exitCode = 1;
    console.log(`  goal: 1,000 concurrent within 2x the single sweep's blocks: ${thousand.blocks} blocks vs 2 x ${single.blocks} = ${2 * single.blocks}`
      + ` — ${ok ? 'ok' : 'MISSED'} (baseline: ${BASELINE})`);
    const largest = runs[runs.length - 1]!;
    if (largest.sweeps > 1_000) {
      const finished = largest.done + largest.failed === largest.sweeps && thousand.done + thousand.failed === thousand.sweeps;
      // An unfinished run has spent CPU on sweeps it did not end: compare per stage then (a sweep is 5 stages at both
      // sizes), and say so.
      const ratio = finished
        ? (largest.workerCpuMs / largest.sweeps) / (thousand.workerCpuMs / thousand.sweeps)
        : (largest.workerCpuMs / largest.stages) / (thousand.workerCpuMs / thousand.stages);
      const ok = ratio <= 1.2;
      if (!ok || !finished) process.exitCode = 1;
      console.log(`  goal: worker CPU per sweep from 1,000 to ${largest.sweeps} within 1.2x: ${ratio.toFixed(2)}x`
        + `${finished ? '' : ` per STAGE (the ${largest.sweeps} run did not finish: ${largest.done} done in ${(largest.wallMs / 1000).toFixed(0)} s)`}`
        + ` — ${ok ? 'ok' : 'MISSED'}${finished ? '' : ' (not met: unfinished)'}`);
    }
  }
  if (process.env['BENCH_POSTGRES'] !== '0' && ROWS.has('postgres')) {
    // The same sweeps on PostgreSQL (a cluster of the bench's own, in its own processes; issue #22).
    const n = thousand?.sweeps ?? sizes[0] ?? 1_000;
    console.log(`  the same ${n} concurrent sweeps with the worker on PostgreSQL:`);
    const pg = await run(n, false, 'postgres');
    printRun(pg);
    const ok = pg.done === n && pg.blocks <= 2 * single.blocks;
    if (!ok) process.exitCode = 1;
    const memory = runs.find((r) => r.sweeps === n);
    console.log(`  goal: ${n} concurrent on PostgreSQL within 2x the single sweep's blocks: ${pg.blocks} blocks vs 2 x ${single.blocks} = ${2 * single.blocks}`
      + ` — ${ok ? 'ok' : 'MISSED'}; worker CPU per sweep ${(pg.workerCpuMs / pg.sweeps).toFixed(1)} ms on PostgreSQL`
      + `${memory === undefined ? '' : ` vs ${(memory.workerCpuMs / memory.sweeps).toFixed(1)} ms on memory`}`
      + `; PostgreSQL server ${(pg.storeCpuMs / pg.sweeps).toFixed(1)} ms`);
  }
  const profileStore = process.env['BENCH_PROFILE'];
  if (profileStore === '1' || profileStore === 'memory' || profileStore === 'postgres') {
    const n = sizes[0] ?? 1_000;
    const store: BenchStore = profileStore === 'postgres' ? 'postgres' : 'memory';
    const profileDir = mkdtempSync(join(tmpdir(), 'bench-devnet-prof-'));
    const devnet = await startChildDevnet(`bench-chain-time-${n}`, profileDir);
    let r: SweepRun;
    try {
      r = await concurrentSweeps(devnet, n, WORKERS, CONCURRENCY, CAP_MS, true, store);
    } finally {
      await devnet.close();
    }
    console.log(`  worker profile of ${n} concurrent sweeps on ${store} (self time, sampled every 1 ms; this run is slowed by the profiler):`);
    printRun(r);
    for (const line of r.profileTop) console.log(`    ${line}`);
    console.log(`  the simulator's profile of the same run (node --cpu-prof of the devnet child, its whole life; ${profileDir}):`);
    for (const line of childProfileTop(profileDir)) console.log(`    ${line}`);
  }
}

async function churn(): Promise<void> {
  const total = Number(process.env['BENCH_CHURN_TASKS'] ?? 100_000);
  if (total <= 0) return;
  const { heapMb, rssMb } = await runnerChurn(total, Number(process.env['BENCH_CHURN_WAVE'] ?? 10_000));
  const heapGrowth = heapMb[heapMb.length - 1]! - heapMb[0]!;
  const rssGrowth = rssMb[rssMb.length - 1]! - rssMb[0]!;
  const ok = heapGrowth < 5;
  if (!ok) process.exitCode = 1;
  console.log(`  goal: worker memory flat across ${total} finished tasks: heap after GC ${heapGrowth >= 0 ? '+' : ''}${heapGrowth.toFixed(1)} MB,`
    + ` RSS ${rssGrowth >= 0 ? '+' : ''}${rssGrowth.toFixed(1)} MB from the first wave to the last — ${ok ? 'ok' : 'MISSED'} (heap growth under 5 MB)`);
}

if (process.env['BENCH_COST_TABLE'] !== '0') {
  await sweepCostTable();
  console.log(`blocks per TRC20 self-delegation collection of a new sub-address, 1 confirmation: ${await blocksPerCollection(1)} (goal <= 4)`);
  console.log(`blocks per TRC20 self-delegation collection of a new sub-address, solidified (lag 19): ${await blocksPerCollection('solidified')}`);
  console.log(`blocks per TRC20 self-delegation collection of an activated sub-address, solidified (lag 19): ${await blocksPerCollection('solidified', true)}`
    + ' (goal <= 3 x 20)');
}
// Node calls per sweep per path, first and repeat (issue #27); BENCH_CALLS=0 skips.
if (process.env['BENCH_CALLS'] !== '0') await nodeCallTable();
await chainTime();
await churn();
