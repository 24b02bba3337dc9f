/**
 * The stage protocol acts on the money policy's tables and on nothing else: for every cell of DECIDED, FOLLOWED and
 * AWAITED (each decision or piece of evidence, in a step that may fail and in one that must finish), one stage on a
 * scripted chain does what the cell's action means. money-policy.test.ts says what the cells must be; this says the
 * runner does what they say (a flipped cell changes what the stage does).
 */
import { describe, expect, it } from 'vitest';
import { ChainError, ConcurrencyConflict, DomainError, InfrastructureError, type ErrorCode } from '../../domain/errors.js';
import type { TransactionState } from '../../domain/model/chain.js';
import type { PreparedTransaction } from '../../domain/model/command.js';
import type { Lease } from '../../domain/model/common.js';
import type { ChainGateway } from '../../ports/chain-gateway.port.js';
import { DECIDED, FOLLOWED, ON_ERROR, onAwaited, onDecided, onError, onFollowed, type Decision, type ErrorClass, type Evidence } from './money-policy.js';
import { WorkflowRefusal, type StepDecision, type Workflow, type WorkflowStep } from './workflow.js';
import { WorkflowRunner } from './workflow-runner.js';

interface Job {
  readonly key: string;
  readonly version: number;
  readonly nextRunAt: number;
  readonly lease: Lease | null;
  /** The step's open transaction. */
  readonly tx: PreparedTransaction | null;
  /** An earlier step's transaction the step awaits, until noted. */
  readonly earlier: PreparedTransaction | null;
  readonly noted: readonly string[];
  readonly end: 'completed' | { readonly failed: ErrorCode } | null;
}

const EXPIRES = 1_000_000;
const record = (txid: string, refusal: string | null = null): PreparedTransaction =>
  ({ txid: txid.padStart(64, '0'), signedJson: '{}', expiresAt: EXPIRES, broadcastAt: 1, refusal });

/** A chain whose every answer about any transaction gives `evidence` (a new send is accepted). */
function chainGiving(evidence: Evidence): ChainGateway {
  const receipt: Record<string, TransactionState> = {
    confirmed: { state: 'confirmed', blockNumber: 10, confirmations: 20, solidified: true, feeSun: 0n, energyUsed: 0 },
    waiting: { state: 'pending' },
    reverted: { state: 'failed', blockNumber: 10, reason: 'REVERT', feeSun: 0n },
  };
  const dead = evidence === 'dead' || evidence === 'dead-refused';
  return {
    getTransaction: async () => receipt[evidence] ?? { state: 'unknown' },
    solidifiedHead: async () => ({ number: 50, timestamp: dead ? EXPIRES + 1 : 0 }),
    head: async () => ({ number: 60, timestamp: 0 }),
    findInSolidified: async () => 'absent',
    broadcast: async (tx: { txid: string }) => {
      // A resend of the followed transaction is refused (TaPoS); a new one is accepted.
      if (evidence === 'refused' && !tx.txid.endsWith('new')) throw new ChainError('CHAIN-BROADCAST-FAILED', 'refused', { transient: false, nodeCode: 'TAPOS_ERROR' });
    },
  } as unknown as ChainGateway;
}

/** One subject in one step, stored in memory; `plan` decides as told and records whether it was told of a loss. */
function world(options: { mustFinish: boolean; awaits: 'plan' | null; decision: Decision; job: Partial<Job>; throws?: () => Error }) {
  let stored: Job = { key: 'j', version: 1, nextRunAt: 0, lease: null, tx: null, earlier: null, noted: [], end: null, ...options.job };
  const planned: { lost: boolean }[] = [];
  const save = async (next: Job, readVersion: number): Promise<Job> => {
    if (stored.version !== readVersion) throw new ConcurrencyConflict('job', next.key);
    stored = { ...next, version: readVersion + 1 };
    return stored;
  };
  const step: WorkflowStep<Job> = {
    name: 'step', completion: 1, depth: 1, mustFinish: options.mustFinish, awaits: options.awaits,
    plan: async (job, lost): Promise<StepDecision<Job>> => {
      planned.push({ lost: lost !== undefined });
      if (options.throws !== undefined) throw options.throws();
      // After a loss, or once a transaction went out, the step has nothing more to do.
      if (lost !== undefined || planned.length > 1) return { kind: 'complete' };
      switch (options.decision) {
        case 'send':
          return { kind: 'send', tx: { txid: 'new'.padStart(64, '0'), signedJson: '{}', expiresAt: EXPIRES }, persist: (r) => ({ ...job, tx: r }) };
        case 'complete':
          return { kind: 'complete' };
        case 'wait':
          return { kind: 'wait' };
        case 'retry':
          return { kind: 'retry', reason: 'not now' };
        case 'fail':
          return { kind: 'fail', code: 'BIZ-NOTHING-TO-COLLECT', message: 'nothing' };
      }
    },
  };
  const workflow: Workflow<Job> = {
    name: 'test',
    store: {
      key: (j) => j.key,
      claim: async (now, owner, leaseMs) => (stored.end !== null || stored.nextRunAt > now ? []
        : [await save({ ...stored, lease: { owner, expiresAt: now + leaseMs } }, stored.version)]),
      get: async () => stored,
      save,
      holds: (j, owner) => j.lease?.owner === owner,
      leased: (j, dueAt, lease) => ({ ...j, lease, nextRunAt: dueAt }),
      keeps: false,
    },
    visit: (j) => (j.end !== null ? null : { step, open: j.tx, awaited: j.noted.includes(j.earlier?.txid ?? '') ? null : j.earlier, startedAt: 0 }),
    note: (j, r, seen) => (seen.kind === 'refused' ? { ...j, tx: { ...r, refusal: seen.refusal } } : seen.kind === 'dropped' ? { ...j, tx: null }
      : { ...j, noted: [...j.noted, r.txid] }),
    complete: async (j) => ({ ended: await save({ ...j, end: 'completed', lease: null }, j.version) }),
    fail: async (j, code) => save({ ...j, end: { failed: code }, lease: null }, j.version),
    statusOf: (j) => ({ status: j.end === null ? 'running' : 'ended', error: null }),
  };
  return { workflow, planned, stored: () => stored };
}

/** One stage of the subject against a chain that answers `evidence`. */
async function oneStage(evidence: Evidence, options: Parameters<typeof world>[0]) {
  const w = world(options);
  const chain = chainGiving(evidence);
  // A follow meets the error as the plan would.
  if (options.throws !== undefined) chain.getTransaction = async () => { throw options.throws!(); };
  const runner = new WorkflowRunner(w.workflow, { clock: { now: () => 10_000 }, chain }, { owner: 'r', pollMs: 3_000, keepMax: 0 });
  const [result] = await runner.runDue(1);
  const job = w.stored();
  return { outcome: result!.outcome, job, planned: w.planned };
}

const EVIDENCE = Object.keys(FOLLOWED) as Evidence[];
const ERRORS = Object.keys(ON_ERROR) as ErrorClass[];
/** An error of each class, as a stage meets it. */
const ERROR_OF: Record<ErrorClass, () => Error> = {
  business: () => new DomainError('BIZ-NOTHING-TO-COLLECT'),
  'chain-permanent': () => new ChainError('CHAIN-BROADCAST-FAILED', 'refused', { transient: false }),
  'chain-transient': () => new ChainError('CHAIN-NODE-UNAVAILABLE', 'socket hang up'),
  'infra-permanent': () => new InfrastructureError('INTERNAL-ERROR', 'broken', { transient: false }),
  'infra-transient': () => new InfrastructureError('INTERNAL-ERROR', 'down', { transient: true }),
  'workflow-refusal': () => new WorkflowRefusal('inconsistent'),
  'lost-lease': () => new ConcurrencyConflict('job', 'j'),
  unknown: () => new TypeError('a bug'),
};
const DECISIONS = Object.keys(DECIDED) as Decision[];
const BOOL = [false, true];

describe('the stage protocol does what the money policy\'s cell says', () => {
  it('DECIDED: a step\'s own decision, nothing open', async () => {
    for (const decision of DECISIONS) {
      for (const mustFinish of BOOL) {
        const { outcome, job } = await oneStage('waiting', { mustFinish, awaits: null, decision, job: {} });
        const seen = { outcome, sent: job.tx !== null, end: job.end };
        const expected = {
          send: { outcome: 'advanced', sent: true, end: null },
          complete: { outcome: 'finished', sent: false, end: 'completed' },
          wait: { outcome: 'waiting', sent: false, end: null },
          retry: { outcome: 'retrying', sent: false, end: null },
          fail: { outcome: 'finished', sent: false, end: { failed: 'BIZ-NOTHING-TO-COLLECT' } },
        }[onDecided(decision, mustFinish)];
        expect(seen, `${decision} mustFinish=${mustFinish}`).toEqual(expected);
      }
    }
  });

  it('FOLLOWED: the step\'s own open transaction, by its evidence', async () => {
    for (const evidence of EVIDENCE) {
      for (const mustFinish of BOOL) {
        const open = record('own', evidence === 'dead-refused' ? 'CONTRACT_VALIDATE_ERROR: balance is not sufficient' : null);
        const { outcome, job, planned } = await oneStage(evidence, { mustFinish, awaits: null, decision: 'send', job: { tx: open } });
        const seen = { outcome, open: job.tx?.txid.replace(/^0+/, '') ?? null, planned: planned.length, end: job.end };
        const failed = { failed: evidence === 'reverted' ? 'CHAIN-TRANSACTION-FAILED' : 'CHAIN-BROADCAST-FAILED' };
        const expected = {
          complete: { outcome: 'finished', open: 'own', planned: 0, end: 'completed' },
          wait: { outcome: 'waiting', open: 'own', planned: 0, end: null },
          retry: { outcome: 'retrying', open: 'own', planned: 0, end: null },
          // Dropped, and planned again at once: the new transaction goes out in the same stage.
          replan: { outcome: 'advanced', open: 'new', planned: 1, end: null },
          'drop-and-retry': { outcome: 'retrying', open: null, planned: 0, end: null },
          fail: { outcome: 'finished', open: 'own', planned: 0, end: failed },
        }[onFollowed(evidence, mustFinish)];
        expect(seen, `${evidence} mustFinish=${mustFinish}`).toEqual(expected);
        // A refusal the node gave is noted on the open record.
        if (evidence === 'refused') expect(job.tx?.refusal).toMatch(/^TAPOS_ERROR: /);
      }
    }
  });

  it('AWAITED: an earlier step\'s transaction the step waits for before it plans', async () => {
    for (const evidence of EVIDENCE) {
      for (const mustFinish of BOOL) {
        const earlier = record('earlier');
        const { outcome, job, planned } = await oneStage(evidence, { mustFinish, awaits: 'plan', decision: 'complete', job: { earlier } });
        const seen = { outcome, planned: planned.map((p) => p.lost), settled: job.noted.includes(earlier.txid), end: job.end };
        const failed = { failed: evidence === 'reverted' ? 'CHAIN-TRANSACTION-FAILED' : 'CHAIN-BROADCAST-FAILED' };
        const expected = {
          // Landed: noted, and the step plans (and here completes).
          complete: { outcome: 'finished', planned: [false], settled: true, end: 'completed' },
          wait: { outcome: 'waiting', planned: [], settled: false, end: null },
          fail: { outcome: 'finished', planned: [], settled: evidence === 'reverted', end: failed },
          // Lost: settled, and the step plans knowing the loss.
          replan: { outcome: 'finished', planned: [true], settled: true, end: 'completed' },
        }[onAwaited(evidence, mustFinish)];
        expect(seen, `${evidence} mustFinish=${mustFinish}`).toEqual(expected);
      }
    }
  });

  it('ON_ERROR: an error a stage raises, before anything is sent and with a transaction open', async () => {
    for (const error of ERRORS) {
      for (const open of BOOL) {
        for (const mustFinish of BOOL) {
          const job = open ? { tx: record('own') } : {};
          const seen = await oneStage('waiting', { mustFinish, awaits: null, decision: 'send', job, throws: ERROR_OF[error] })
            .then(({ outcome, job: after }) => ({ outcome, end: after.end }), () => 'escaped');
          const expected = {
            retry: { outcome: 'retrying', end: null },
            fail: { outcome: 'finished', end: { failed: ERROR_OF[error]() instanceof DomainError ? 'BIZ-NOTHING-TO-COLLECT' : (ERROR_OF[error]() as InfrastructureError).code } },
            stop: { outcome: 'lost-lease', end: null },
            crash: 'escaped',
          }[onError(error, open, mustFinish)];
          expect(seen, `${error} open=${open} mustFinish=${mustFinish}`).toEqual(expected);
        }
      }
    }
  });
});
