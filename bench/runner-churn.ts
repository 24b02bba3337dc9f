/**
 * Worker memory across many finished tasks, for bench/collection.ts: BENCH_CHURN_TASKS (default 100,000) tasks run
 * through the real WorkflowRunner in waves of BENCH_CHURN_WAVE (10,000), each task one step whose transaction is
 * written ahead, sent, followed and confirmed at 1 block, on a ManualClock with an in-process stand-in chain (a Map
 * of txids to block numbers) — sweeps on the devnet are too slow for 100,000 (about 5 stages and 30 HTTP calls each).
 *
 * What is measured, honestly: the memory store is the database and keeps every row by design, so its growth is not
 * the worker's. The table here is the memory adapters' own IndexedTable with its due-time ClaimIndex (what the
 * collection claims use); after each wave its finished rows are deleted (archived), so what remains after a forced
 * GC is the worker's own state: the runner's per-subject maps (backoff, stuck reports), the index's heaps, and
 * anything leaked per task. Heap after GC and RSS are printed per wave; flat means no per-task growth.
 */
import { runInNewContext } from 'node:vm';
import { setFlagsFromString } from 'node:v8';
import type { PreparedTransaction } from '../core/domain/model/command.js';
import type { Lease, Versioned } from '../core/domain/model/common.js';
import type { TransactionState } from '../core/domain/model/chain.js';
import { ConcurrencyConflict } from '../core/domain/errors.js';
import type { ChainGateway } from '../core/ports/chain-gateway.port.js';
import type { Workflow, WorkflowStep } from '../core/application/worker/workflow.js';
import { WorkflowRunner } from '../core/application/worker/workflow-runner.js';
import { ManualClock } from '../adapters/memory/index.js';
import { ClaimIndex, IndexedTable } from '../adapters/memory/indexed-table.js';
import { storedCopy, outboundCopy } from '../adapters/memory/frozen-copy.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

interface Job extends Versioned {
  readonly key: string;
  readonly nextRunAt: number;
  readonly lease: Lease | null;
  readonly tx: PreparedTransaction | null;
  readonly done: boolean;
  readonly startedAt: number;
}

class JobTable extends IndexedTable<string, Job> {
  readonly due = this.index(new ClaimIndex<string, Job>((j) => j.done ? null : { due: j.nextRunAt, leaseUntil: j.lease?.expiresAt ?? null, rank: 0 }));
}

/** A chain of one Map: a sent txid is included in the next block. */
class StandInChain {
  block = 0;
  private readonly included = new Map<string, number>();

  readonly gateway = {
    broadcast: async (tx: { txid: string }) => {
      if (!this.included.has(tx.txid)) this.included.set(tx.txid, this.block + 1);
    },
    getTransaction: async (txid: string): Promise<TransactionState> => {
      const at = this.included.get(txid);
      if (at === undefined) return { state: 'unknown' };
      if (at > this.block) return { state: 'pending' };
      return { state: 'confirmed', blockNumber: at, confirmations: this.block - at + 1, solidified: false, feeSun: 0n, energyUsed: 0 };
    },
    head: async () => ({ number: this.block, timestamp: this.block * 3_000 }),
    solidifiedHead: async () => ({ number: this.block, timestamp: this.block * 3_000 }),
  } as unknown as ChainGateway;

  /** Forget confirmed transactions (the chain is not the worker's memory). */
  prune(): void {
    for (const [txid, at] of this.included) if (at <= this.block) this.included.delete(txid);
  }
}

function workflow(table: JobTable, clock: ManualClock): Workflow<Job> {
  const save = async (next: Job, readVersion: number): Promise<Job> => {
    const stored = table.get(next.key);
    if (stored === undefined || stored.version !== readVersion) throw new ConcurrencyConflict('job', next.key);
    const written = { ...next, version: readVersion + 1 };
    table.set(next.key, storedCopy(written));
    return outboundCopy(written);
  };
  const step: WorkflowStep<Job> = {
    name: 'send', completion: 1, depth: 1, mustFinish: false, awaits: null,
    plan: async (job) => ({
      kind: 'send',
      tx: { txid: job.key.padStart(64, '0'), signedJson: '{}', expiresAt: clock.now() + 60_000 },
      persist: (record) => ({ ...job, tx: record }),
    }),
  };
  return {
    name: 'churn',
    store: {
      key: (j) => j.key,
      claim: async (now, owner, leaseMs) => {
        const [first] = table.due.queue.first(now);
        if (first === undefined) return [];
        const due = table.get(first.key)!;
        const claimed = { ...due, lease: { owner, expiresAt: now + leaseMs }, version: due.version + 1 };
        table.set(claimed.key, storedCopy(claimed));
        return [outboundCopy(claimed)];
      },
      get: async (key) => { const j = table.get(key); return j === undefined ? null : outboundCopy(j); },
      holds: (j, owner) => j.lease?.owner === owner,
      leased: (j, dueAt, lease) => ({ ...j, lease, nextRunAt: dueAt }),
      keeps: false,
      save,
    },
    visit: (j) => j.done ? null : { step, open: j.tx, awaited: null, startedAt: j.startedAt },
    note: (j, record, seen) => (seen.kind === 'refused' ? { ...j, tx: { ...record, refusal: seen.refusal } } : seen.kind === 'dropped' ? { ...j, tx: null } : j),
    complete: async (j) => ({ ended: await save({ ...j, done: true, lease: null }, j.version) }),
    fail: async (j) => save({ ...j, done: true, lease: null }, j.version),
    statusOf: (j) => ({ status: j.done ? 'done' : 'pending', error: null }),
  };
}

/** One line per wave: finished so far, heap after GC, RSS, the due index's heap slots. */
export async function runnerChurn(total: number, wave: number): Promise<{ heapMb: number[]; rssMb: number[] }> {
  const clock = new ManualClock();
  const chain = new StandInChain();
  const table = new JobTable();
  const runner = new WorkflowRunner(workflow(table, clock), { clock, chain: chain.gateway }, { owner: 'churn', pollMs: 3_000 });
  const heapMb: number[] = [];
  const rssMb: number[] = [];
  let finished = 0;
  let n = 0;
  console.log(`worker memory across ${total} finished tasks (WorkflowRunner + the memory adapters' due index, waves of ${wave}, finished rows archived):`);
  while (finished < total) {
    for (let i = 0; i < wave; i++) {
      const key = `job-${n++}`;
      table.set(key, storedCopy({ key, nextRunAt: clock.now(), lease: null, tx: null, done: false, startedAt: clock.now(), version: 1 }));
    }
    for (let rounds = 0; ; rounds++) {
      await runner.runDue(Number.MAX_SAFE_INTEGER);
      if ([...table.values()].every((j) => j.done)) break;
      if (rounds > 20) throw new Error('churn wave did not finish');
      chain.block++;
      clock.advance(3_000);
    }
    finished += table.size;
    for (const key of [...table.keys()]) table.delete(key);
    chain.prune();
    gc();
    const m = process.memoryUsage();
    heapMb.push(m.heapUsed / 2 ** 20);
    rssMb.push(m.rss / 2 ** 20);
    console.log(`  ${String(finished).padStart(7)} finished: heap after GC ${(m.heapUsed / 2 ** 20).toFixed(1)} MB, RSS ${(m.rss / 2 ** 20).toFixed(1)} MB, due-index slots ${table.due.queue.slots}`);
  }
  return { heapMb, rssMb };
}
