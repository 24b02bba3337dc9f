/**
 * The runner's `concurrency` (several stages of one runDue at once): every subject still runs one stage at a time
 * (leases), sends exactly one transaction (the write-ahead record is followed, never replaced), and ends; with random
 * node latencies interleaving the stages at every await. A scripted chain and an in-test store keep this in core.
 */
import { runs } from '../../../contracts-tests/support/depth.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ConcurrencyConflict } from '../../domain/errors.js';
import type { TransactionState } from '../../domain/model/chain.js';
import type { PreparedTransaction } from '../../domain/model/command.js';
import type { Lease } from '../../domain/model/common.js';
import type { ChainGateway } from '../../ports/chain-gateway.port.js';
import type { Workflow, WorkflowStep } from './workflow.js';
import { WorkflowRunner } from './workflow-runner.js';

interface Job {
  readonly key: string;
  readonly version: number;
  readonly nextRunAt: number;
  readonly lease: Lease | null;
  readonly tx: PreparedTransaction | null;
  readonly done: boolean;
}

function world(jobs: number, delays: readonly number[]) {
  let now = 0;
  let block = 0;
  let tick = 0;
  const pause = async (): Promise<void> => {
    for (let i = delays[tick++ % delays.length]!; i > 0; i--) await Promise.resolve();
  };
  const rows = new Map<string, Job>();
  for (let i = 0; i < jobs; i++) rows.set(`j${i}`, { key: `j${i}`, version: 1, nextRunAt: 0, lease: null, tx: null, done: false });
  const sends = new Map<string, Set<string>>();
  const included = new Map<string, number>();
  const active = new Set<string>();
  let overlap = false;
  let claims = 0;
  let mostActive = 0;
  const chain = {
    broadcast: async (tx: { txid: string }) => {
      await pause();
      if (!included.has(tx.txid)) included.set(tx.txid, block + 1);
    },
    getTransaction: async (txid: string): Promise<TransactionState> => {
      await pause();
      const at = included.get(txid);
      if (at === undefined) return { state: 'unknown' };
      if (at > block) return { state: 'pending' };
      return { state: 'confirmed', blockNumber: at, confirmations: block - at + 1, solidified: false, feeSun: 0n, energyUsed: 0 };
    },
    head: async () => ({ number: block, timestamp: block * 3_000 }),
    solidifiedHead: async () => ({ number: block, timestamp: block * 3_000 }),
  } as unknown as ChainGateway;
  const save = async (next: Job, readVersion: number): Promise<Job> => {
    await pause();
    const stored = rows.get(next.key);
    if (stored === undefined || stored.version !== readVersion) throw new ConcurrencyConflict('job', next.key);
    const written = { ...next, version: readVersion + 1 };
    rows.set(next.key, written);
    if (written.lease === null || written.done) active.delete(next.key);
    return written;
  };
  const step: WorkflowStep<Job> = {
    name: 'send', completion: 1, depth: 1, mustFinish: false, awaits: null,
    plan: async (job) => {
      await pause();
      const txid = `${job.key}-${(sends.get(job.key)?.size ?? 0) + 1}`.padStart(64, '0');
      (sends.get(job.key) ?? sends.set(job.key, new Set()).get(job.key)!).add(txid);
      return { kind: 'send', tx: { txid, signedJson: '{}', expiresAt: now + 600_000 }, persist: (record) => ({ ...job, tx: record }) };
    },
  };
  const workflow: Workflow<Job> = {
    name: 'test',
    store: {
      key: (j) => j.key,
      claim: async (at, owner, leaseMs) => {
        claims += 1;
        const due = [...rows.values()].find((j) => !j.done && j.nextRunAt <= at && (j.lease === null || j.lease.expiresAt <= at));
        if (due === undefined) return [];
        const claimed = { ...due, lease: { owner, expiresAt: at + leaseMs }, version: due.version + 1 };
        rows.set(due.key, claimed);
        if (active.has(due.key)) overlap = true;
        active.add(due.key);
        mostActive = Math.max(mostActive, active.size);
        return [claimed];
      },
      get: async (key) => rows.get(key) ?? null,
      holds: (j, owner) => j.lease?.owner === owner,
      leased: (j, dueAt, lease) => ({ ...j, lease, nextRunAt: dueAt }),
      keeps: false,
      save,
    },
    visit: (j) => (j.done ? null : { step, open: j.tx, awaited: null, startedAt: 0 }),
    note: (j, record, seen) => (seen.kind === 'refused' ? { ...j, tx: { ...record, refusal: seen.refusal } } : seen.kind === 'dropped' ? { ...j, tx: null } : j),
    complete: async (j) => ({ ended: await save({ ...j, done: true, lease: null }, j.version) }),
    fail: async (j) => save({ ...j, done: true, lease: null }, j.version),
    statusOf: (j) => ({ status: j.done ? 'done' : 'pending', error: null }),
  };
  const clock = { now: () => now };
  return {
    rows, sends, workflow, clock, chain,
    overlap: () => overlap,
    claims: () => claims,
    mostActive: () => mostActive,
    mine: () => { block++; now += 3_000; },
    /** The clock set `ms` after the head block's time. */
    intoSlot: (ms: number) => { now = block * 3_000 + ms; },
  };
}

describe('WorkflowRunner concurrency', () => {
  it('runs each subject one stage at a time, sends once per subject and ends them all', async () => {
    await fc.assert(fc.asyncProperty(
      fc.integer({ min: 1, max: 30 }), fc.integer({ min: 1, max: 8 }), fc.array(fc.integer({ min: 0, max: 5 }), { minLength: 1, maxLength: 20 }),
      async (jobs, concurrency, delays) => {
        const w = world(jobs, delays);
        const runners = [1, 2].map((n) => new WorkflowRunner(w.workflow, { clock: w.clock, chain: w.chain }, { owner: `r${n}`, concurrency, pollMs: 3_000 }));
        for (let round = 0; round < 10 && [...w.rows.values()].some((j) => !j.done); round++) {
          await Promise.all(runners.map((r) => r.runDue(1_000)));
          w.mine();
        }
        expect([...w.rows.values()].every((j) => j.done)).toBe(true);
        expect([...w.sends.values()].every((txids) => txids.size === 1)).toBe(true);
        expect(w.sends.size).toBe(jobs);
        expect(w.overlap()).toBe(false);
      },
    ), { numRuns: runs(100) });
  });

  it('opens lanes one by one: an idle pass is one claim, k due subjects cost at most k + min(k + 1, concurrency) claims, and all lanes fill', async () => {
    await fc.assert(fc.asyncProperty(
      fc.integer({ min: 0, max: 30 }), fc.integer({ min: 2, max: 8 }), fc.array(fc.integer({ min: 0, max: 5 }), { minLength: 1, maxLength: 20 }),
      async (jobs, concurrency, delays) => {
        const w = world(jobs, delays);
        const runner = new WorkflowRunner(w.workflow, { clock: w.clock, chain: w.chain }, { owner: 'r', concurrency, pollMs: 3_000 });
        const results = await runner.runDue(1_000);
        expect(results.length).toBe(jobs);
        expect(w.claims()).toBeLessThanOrEqual(jobs + Math.min(jobs + 1, concurrency));
        // Nothing due now (each waits a poll): one claim, not one per lane.
        const before = w.claims();
        expect(await runner.runDue(1_000)).toEqual([]);
        expect(w.claims() - before).toBe(1);
      },
    ), { numRuns: runs(100) });
    // Stages that wait on the node: the lanes fill up to the concurrency.
    const w = world(20, [5]);
    await new WorkflowRunner(w.workflow, { clock: w.clock, chain: w.chain }, { owner: 'r', concurrency: 6, pollMs: 3_000 }).runDue(1_000);
    expect(w.mostActive()).toBe(6);
  });

  it('a transaction sent is looked for just after the next block (its head time + a poll + 600 ms), not a poll after the send; a head off this clock falls back to a poll', async () => {
    for (const [intoSlot, expected] of [[100, 3_600], [2_500, 3_600], [2_950, 3_600], [9_000, 9_000 + 3_000], [-500, -500 + 3_000]] as const) {
      const w = world(1, [0]);
      w.mine();
      w.intoSlot(intoSlot);
      const runner = new WorkflowRunner(w.workflow, { clock: w.clock, chain: w.chain }, { owner: 'r', pollMs: 3_000 });
      expect((await runner.runDue(1))[0]!.outcome).toBe('advanced');
      // The head block is block 1, made at 3,000.
      expect(w.rows.get('j0')!.nextRunAt - 3_000).toBe(expected);
    }
  });
});
