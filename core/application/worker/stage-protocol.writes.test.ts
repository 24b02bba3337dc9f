/**
 * What a stage writes, and when (issue #39 review): the write-ahead record is stored before the first send, whatever
 * the send answers (the money policy's SENT table), and a step that must finish and decides to fail retries with the
 * transition an earlier step of the same stage left unsaved written with the retry's release (decision 157), so the
 * next stage plans that step again without following the earlier transaction once more.
 */
import { describe, expect, it } from 'vitest';
import { ChainError, ConcurrencyConflict } from '../../domain/errors.js';
import type { PreparedTransaction } from '../../domain/model/command.js';
import type { Lease } from '../../domain/model/common.js';
import type { ChainGateway } from '../../ports/chain-gateway.port.js';
import { SENT, onSent } from './money-policy.js';
import type { StepDecision, Workflow, WorkflowStep } from './workflow.js';
import type { Completion } from './write-ahead.js';
import { WorkflowRunner } from './workflow-runner.js';

interface Job {
  readonly key: string;
  readonly version: number;
  readonly nextRunAt: number;
  readonly lease: Lease | null;
  /** The step the job is in (an index into the world's steps). */
  readonly at: number;
  readonly tx: PreparedTransaction | null;
  readonly end: 'completed' | { readonly failed: string } | null;
}

const EXPIRES = 1_000_000;
const NOW = 10_000;

/**
 * A job whose steps plan `decisions` in turn (a send, or a failure), on a chain that accepts, refuses or does not
 * answer a send and shows every followed transaction in a block. Completing a step that is not the last leaves the
 * transition unsaved, as the collection's steps do.
 */
function world(steps: readonly { readonly mustFinish: boolean; readonly completion: Completion }[], decisions: ('send' | 'fail')[], answer: 'ok' | 'refused' | 'lost') {
  let stored: Job = { key: 'j', version: 1, nextRunAt: 0, lease: null, at: 0, tx: null, end: null };
  const seen = { broadcasts: [] as { txid: string; storedFirst: boolean }[], follows: [] as string[], plans: [] as number[], retried: [] as string[] };
  const save = async (next: Job, readVersion: number): Promise<Job> => {
    if (stored.version !== readVersion) throw new ConcurrencyConflict('job', next.key);
    stored = { ...next, version: readVersion + 1 };
    return stored;
  };
  let sent = 0;
  const plan = async (job: Job): Promise<StepDecision<Job>> => {
    seen.plans.push(job.at);
    if (decisions.shift() === 'fail') return { kind: 'fail', code: 'BIZ-NOTHING-TO-COLLECT', message: 'nothing' };
    const txid = `t${sent++}`.padStart(64, '0');
    return { kind: 'send', tx: { txid, signedJson: '{}', expiresAt: EXPIRES }, persist: (record) => ({ ...job, tx: record }) };
  };
  const table: WorkflowStep<Job>[] = steps.map((s, i) => ({ name: `step-${i}`, mustFinish: s.mustFinish, completion: s.completion, depth: 1, awaits: null, plan }));
  const workflow: Workflow<Job> = {
    name: 'test',
    store: {
      key: (j) => j.key,
      claim: async (now, owner, leaseMs) => (stored.end !== null || stored.nextRunAt > now || (stored.lease !== null && stored.lease.expiresAt > now) ? []
        : [await save({ ...stored, lease: { owner, expiresAt: now + leaseMs } }, stored.version)]),
      get: async () => stored,
      save,
      holds: (j, owner) => j.lease?.owner === owner,
      leased: (j, dueAt, lease) => ({ ...j, lease, nextRunAt: dueAt }),
      keeps: false,
    },
    visit: (j) => (j.end !== null ? null : { step: table[j.at]!, open: j.tx, awaited: null, startedAt: 0 }),
    note: (j, record, seen) => (seen.kind === 'refused' ? { ...j, tx: { ...record, refusal: seen.refusal } } : seen.kind === 'dropped' ? { ...j, tx: null } : j),
    complete: async (j) => (j.at === steps.length - 1
      ? { ended: await save({ ...j, tx: null, end: 'completed', lease: null }, j.version) }
      : { unsaved: { ...j, at: j.at + 1, tx: null } }),
    fail: async (j, code) => save({ ...j, end: { failed: code }, lease: null }, j.version),
    statusOf: (j) => ({ status: j.at, error: null }),
  };
  const chain = {
    getTransaction: async (txid: string) => {
      seen.follows.push(txid.replace(/^0+/, ''));
      return { state: 'confirmed', blockNumber: 10, confirmations: 20, solidified: true, feeSun: 0n, energyUsed: 0 };
    },
    head: async () => ({ number: 60, timestamp: 0 }),
    broadcast: async (tx: { txid: string }) => {
      seen.broadcasts.push({ txid: tx.txid.replace(/^0+/, ''), storedFirst: stored.tx?.txid === tx.txid });
      if (answer === 'refused') throw new ChainError('CHAIN-BROADCAST-FAILED', 'balance is not sufficient', { transient: false, nodeCode: 'CONTRACT_VALIDATE_ERROR' });
      if (answer === 'lost') throw new ChainError('CHAIN-NODE-UNAVAILABLE', 'no reply');
    },
  } as unknown as ChainGateway;
  let now = NOW;
  const runner = new WorkflowRunner(workflow, {
    clock: { now: () => now }, chain, hooks: { onRetry: (_w, _k, step) => seen.retried.push(step) },
  }, { owner: 'r', pollMs: 3_000, retryBaseMs: 1_000, keepMax: 0 });
  return {
    seen,
    stored: () => stored,
    async stage(advanceMs = 0) {
      now += advanceMs;
      const [result] = await runner.runDue(1);
      return result?.outcome ?? null;
    },
  };
}

describe('what a stage writes, and when', () => {
  it('SENT: the write-ahead record is stored before the send, and the send\'s answer acts as its cell says', async () => {
    const answers = { confirmed: 'ok', waiting: 'ok', refused: 'refused' } as const;
    for (const evidence of Object.keys(SENT) as (keyof typeof SENT)[]) {
      for (const mustFinish of [false, true]) {
        for (const answer of evidence === 'refused' ? (['refused', 'lost'] as const) : [answers[evidence]]) {
          const completion: Completion = evidence === 'confirmed' ? 'accepted' : 1;
          const w = world([{ mustFinish, completion }], ['send'], answer);
          const outcome = await w.stage();
          const job = w.stored();
          const label = `${evidence} (${answer}) mustFinish=${mustFinish}`;
          // Stored before it was handed to a node, and sent once.
          expect(w.seen.broadcasts, label).toEqual([{ txid: 't0', storedFirst: true }]);
          const expected = {
            complete: { outcome: 'finished', open: null, end: 'completed', lease: null },
            // Released to the next block's look in the write-ahead write itself (decision 156).
            advance: { outcome: 'advanced', open: 't0', end: null, lease: null },
            // Still open (only chain evidence ends it), the node's answer noted on it, looked at again after the backoff.
            retry: { outcome: 'retrying', open: 't0', end: null, lease: null },
          }[onSent(evidence, mustFinish)];
          expect({ outcome, open: job.tx?.txid.replace(/^0+/, '') ?? null, end: job.end, lease: job.lease }, label).toEqual(expected);
          if (expected.outcome === 'advanced') expect(job.nextRunAt, label).toBe(NOW + 3_000);
          if (expected.outcome === 'retrying') {
            expect(job.tx?.refusal, label).toMatch(answer === 'refused' ? /^CONTRACT_VALIDATE_ERROR: / : /^CHAIN-NODE-UNAVAILABLE: /);
            expect(job.nextRunAt, label).toBe(NOW + 1_000);
          }
        }
      }
    }
  });

  it('a step that must finish and decides to fail retries, the unsaved transition before it written with the release (decision 157)', async () => {
    // Step 0 sends and completes on acceptance; step 1 must finish and decides to fail, then sends.
    const w = world([{ mustFinish: false, completion: 'accepted' }, { mustFinish: true, completion: 'accepted' }], ['send', 'fail', 'send'], 'ok');
    expect(await w.stage()).toBe('retrying');
    // Never FAILED; released after the backoff, in step 1: step 0's completion is stored with the release.
    expect(w.stored()).toMatchObject({ at: 1, tx: null, end: null, lease: null, nextRunAt: NOW + 1_000 });
    expect(w.seen.retried).toEqual(['step-1']);
    // The next stage plans step 1 again at once: step 0's transaction is neither followed nor sent again.
    expect(await w.stage(1_000)).toBe('finished');
    expect(w.seen.plans).toEqual([0, 1, 1]);
    expect(w.seen.follows).toEqual([]);
    expect(w.seen.broadcasts.map((b) => b.txid)).toEqual(['t0', 't1']);
    expect(w.stored().end).toBe('completed');
  });
});
