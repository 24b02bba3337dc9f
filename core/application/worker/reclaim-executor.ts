import { MIN_TRX_SWEEP_SUN } from '../../domain/sweepable-amount.js';
import { collectionStatusName, RECLAIM_STEPS } from '../../domain/collection-machine.js';
import type { AssetRegistry } from '../../domain/assets.js';
import type { ErrorCode } from '../../domain/errors.js';
import { COLLECTION_STATUS, type CollectionTask, type ReclaimRecord, type StepRecord } from '../../domain/model/collection-task.js';
import type { PreparedTransaction } from '../../domain/model/command.js';
import type { Clock } from '../../ports/clock.port.js';
import type { CollectionTaskRepository } from '../../ports/collection-task-repository.port.js';
import type { IdGenerator } from '../../ports/id-generator.port.js';
import { notedOnTask, taskStore } from './task-workflow.js';
import { delegationRecords, planRecovery, planUndelegation, type StepDeps, type StepPlan, type StepSettings, type StepSubject } from './collection-steps.js';
import type { Confirmations } from './write-ahead.js';
import type { RunnerHooks, RunnerLog } from './stage-protocol.js';
import { listed, stepOfRow, WorkflowRefusal, type Seen, type StepDecision, type Visit, type Workflow, type WorkflowStep, type WorkflowStore } from './workflow.js';
import { WorkflowExecutor, type WorkflowOptions } from './workflow-executor.js';

/** The ports the reclaimer uses (a subset of the collection executor's). */
export interface ReclaimExecutorDeps extends StepDeps {
  readonly clock: Clock;
  readonly ids: IdGenerator;
  readonly assets: AssetRegistry;
  readonly tasks: CollectionTaskRepository;
  readonly log?: RunnerLog;
  readonly hooks?: RunnerHooks;
}

type PhaseName = keyof typeof RECLAIM_STEPS;
type Phase = (typeof COLLECTION_STATUS)[PhaseName];

/** The reclaim's phases in RECLAIM_STEPS's order (give the stake back, then sweep the float with its own bandwidth). */
const PHASES: readonly Phase[] = (Object.keys(RECLAIM_STEPS) as PhaseName[]).map((name) => COLLECTION_STATUS[name]);

/**
 * The reclaim a task gets in the unit of work that fails it: pending when the failed collection put something on
 * its sub-address, that is when its FUNDING_TRX step sent TRX (a burn's energy money, bandwidth the sub lacked;
 * not a mere 1 SUN activation) or it sent a self-delegation (or a top-up); else none. Only TRC20 collections have those steps, so a TRX
 * collection, a task that failed before funding (nothing to collect) and one whose funding was skipped (the
 * sub-address already held the float) get none. Either transaction may or may not have landed: the reclaim reads
 * the chain and skips what is not there. Whatever the path, the reclaim sweeps the sub-address's sweepable TRX to
 * main (as RECOVER_TRX does on success); it undelegates only after a self-delegation.
 */
export function reclaimAfterFailure(task: CollectionTask, now: number): { reclaim?: ReclaimRecord } {
  // A funding that only activated the sub-address (1 SUN; the creation fee is the chain's) left nothing to return.
  const funded = task.steps.some((s) => s.status === COLLECTION_STATUS.FUNDING_TRX && s.transaction !== null && (s.amount ?? 2n) > 1n);
  return funded || delegationRecords(task).length > 0
    ? { reclaim: { status: 'pending', steps: [], nextRunAt: now, lease: null, finishedAt: null } }
    : {};
}

/**
 * The post-failure reclaim as a child workflow of the runner: a FAILED task's `reclaim` record, leased on its own
 * (claimReclaimDue). Its two steps give back the delegated stake (only after a self-delegation: a rental's or a
 * burn's energy is not main's to take back) and sweep the TRX float to main, with the planners of the collection's
 * own UNDELEGATING_ENERGY and RECOVER_TRX steps. Both run after money moved, so they must finish: every error,
 * refusal and revert retries. It writes only `task.reclaim` (and the version): the task's status, error and
 * event stay as the failure left them.
 */
class ReclaimWorkflow implements Workflow<CollectionTask> {
  readonly name = 'reclaim';
  readonly store: WorkflowStore<CollectionTask>;
  private readonly steps: Record<Phase, WorkflowStep<CollectionTask>>;

  constructor(private readonly deps: ReclaimExecutorDeps, private readonly settings: StepSettings, confirmations: Confirmations) {
    // Leased on its own (task.reclaim.lease), never kept between stages.
    this.store = taskStore(deps.tasks, {
      claim: async (now, owner, leaseMs) => listed(await deps.tasks.claimReclaimDue(now, owner, leaseMs)),
      holds: (task, owner) => task.reclaim?.lease?.owner === owner,
      leased: (task, dueAt, lease) => withReclaim(task, { nextRunAt: dueAt, lease }),
      keeps: false,
    });
    // The planners are the workflow's code; everything else about a step is its RECLAIM_STEPS row.
    const step = (phase: Phase, planner: (d: StepDeps, s: StepSettings, subject: StepSubject) => Promise<StepPlan>) =>
      stepOfRow<CollectionTask>({ ...RECLAIM_STEPS[collectionStatusName(phase) as PhaseName], awaits: null }, confirmations, {
        plan: (task: CollectionTask) => this.plan(task, phase, planner),
      });
    this.steps = {
      [COLLECTION_STATUS.UNDELEGATING_ENERGY]: step(COLLECTION_STATUS.UNDELEGATING_ENERGY, planUndelegation),
      [COLLECTION_STATUS.RECOVER_TRX]: step(COLLECTION_STATUS.RECOVER_TRX, planRecovery),
    };
  }

  /** The first phase not completed yet, its open record and start; a reclaim awaits nothing. */
  visit(task: CollectionTask): Visit<CollectionTask> | null {
    const phase = phaseOf(task);
    if (phase === null) return null;
    const open = openPhaseRecord(task);
    return {
      step: this.steps[phase], open: open?.transaction ?? null, awaited: null,
      startedAt: open?.startedAt ?? task.reclaim?.steps.at(-1)?.completedAt ?? task.finishedAt ?? 0,
    };
  }

  /** A receipt or a dead transaction in the task's cost; a refusal on, or a drop of, the phase's open record. */
  note(task: CollectionTask, record: PreparedTransaction, seen: Seen): CollectionTask {
    if (seen.kind === 'receipt' || seen.kind === 'dead') return notedOnTask(task, record, seen);
    return this.withRecord(task, seen.kind === 'refused' ? { ...record, refusal: seen.refusal } : null);
  }

  private withRecord(task: CollectionTask, record: PreparedTransaction | null): CollectionTask {
    const open = openPhaseRecord(task);
    if (open === undefined) return task;
    const steps = task.reclaim!.steps;
    return withReclaim(task, {
      steps: record === null ? steps.filter((s) => s !== open) : steps.map((s) => (s === open ? { ...s, transaction: record } : s)),
    });
  }

  /** The reclaim's status; its errors stay the collection's. */
  statusOf(task: CollectionTask): { readonly status: string; readonly error: null } {
    return { status: task.reclaim?.status ?? 'none', error: null };
  }

  /** Closes the phase (its record, or a skipped one); after the last phase the reclaim is done. */
  async complete(task: CollectionTask, _record: PreparedTransaction | null): Promise<{ next: CollectionTask } | { ended: CollectionTask }> {
    const phase = phaseOf(task);
    if (phase === null) throw new WorkflowRefusal(`reclaim of ${task.taskNo} has no open phase`);
    const now = this.deps.clock.now();
    const open = openPhaseRecord(task);
    const steps = open !== undefined
      ? task.reclaim!.steps.map((s) => (s === open ? { ...s, completedAt: now } : s))
      : [...task.reclaim!.steps, { status: phase, transaction: null, orderRef: null, startedAt: now, completedAt: now }];
    const closed = withReclaim(task, { steps, nextRunAt: now });
    if (phaseOf(closed) !== null) return { next: await this.store.save(closed, task.version) };
    return { ended: await this.store.save(withReclaim(closed, { status: 'done', finishedAt: now, lease: null }), task.version) };
  }

  fail(task: CollectionTask, code: ErrorCode, message: string): Promise<CollectionTask> {
    // Never asked: both phases must finish. Refusing keeps the reclaim pending (the runner retries it).
    throw new WorkflowRefusal(`reclaim of ${task.taskNo} cannot fail (${code}: ${message})`);
  }

  /** A phase's first visit (or a visit after its transaction died or reverted): plan from the chain now. */
  private async plan(
    task: CollectionTask, phase: Phase, planner: (d: StepDeps, s: StepSettings, subject: StepSubject) => Promise<StepPlan>,
  ): Promise<StepDecision<CollectionTask>> {
    // A newer collection of the same sub-address owns its delegation and float: wait until it has ended.
    const latest = await this.deps.tasks.findLatestByAddress(task.address);
    if (latest !== null && latest.taskNo !== task.taskNo && latest.finishedAt === null) {
      return { kind: 'retry', reason: `the newer collection ${latest.taskNo} of ${task.address} runs first` };
    }
    const asset = this.deps.assets.find(task.networkCode, task.assetSymbol) ?? this.deps.assets.find(task.networkCode, 'TRX')!;
    // A rental's or a burn's energy is not main's stake: only a self-delegation is given back.
    if (phase === COLLECTION_STATUS.UNDELEGATING_ENERGY && delegationRecords(task).length === 0) return { kind: 'complete' };
    const plan = await planner(this.deps, this.settings, { task, asset });
    if (plan.kind === 'skip') return { kind: 'complete' };
    if (plan.kind === 'wait') return { kind: 'wait' };
    if (plan.kind !== 'send') throw new WorkflowRefusal(`reclaim ${phase} of ${task.taskNo}: ${plan.kind === 'fail' ? plan.message : 'unexpected order'}`);
    const now = this.deps.clock.now();
    return {
      kind: 'send', tx: plan.tx,
      persist: (record) => withReclaim(task, {
        steps: [...task.reclaim!.steps, { status: phase, transaction: record, orderRef: null, amount: plan.amount, startedAt: now, completedAt: null }],
      }),
    };
  }
}

/**
 * Gives back what a failed TRC20 collection left on its sub-address (see ReclaimWorkflow), on the one workflow
 * runner: leased and write-ahead like every chain workflow, so a crash anywhere never sends a reclaim transaction
 * twice. A refused or failed attempt (the delegation still inside its lock period, a node error, a revert) retries
 * after 3 s, doubling up to 5 min by default: a reclaim never gives up, it holds funds.
 */
export class ReclaimExecutor extends WorkflowExecutor<CollectionTask> {
  constructor(deps: ReclaimExecutorDeps, options: WorkflowOptions = {}) {
    // Only the sweep's bandwidth reserve is read by these planners; the funding amounts are unused.
    const settings: StepSettings = {
      burnEnabled: false, maxBurnSun: null, minRecoverSun: options.minRecoverSun ?? MIN_TRX_SWEEP_SUN, feeLimitSun: 0n,
      transferBytes: options.transferBytes ?? 300, sunPerByte: options.sunPerByte ?? 1_000n,
    };
    super(new ReclaimWorkflow(deps, settings, options.confirmations ?? 'solidified'), deps, options,
      { retryBaseMs: 3_000, retryMaxMs: 300_000, batch: 100 });
  }
}

/** The first phase not completed yet; null once both are (or there is no pending reclaim). */
function phaseOf(task: CollectionTask): Phase | null {
  const reclaim = task.reclaim;
  if (reclaim === undefined || reclaim.status !== 'pending') return null;
  return PHASES.find((p) => !reclaim.steps.some((s) => s.status === p && s.completedAt !== null)) ?? null;
}

function openPhaseRecord(task: CollectionTask): StepRecord | undefined {
  const phase = phaseOf(task);
  return phase === null ? undefined : task.reclaim!.steps.find((s) => s.status === phase && s.completedAt === null);
}

function withReclaim(task: CollectionTask, patch: Partial<ReclaimRecord>): CollectionTask {
  return { ...task, reclaim: { ...task.reclaim!, ...patch } };
}
