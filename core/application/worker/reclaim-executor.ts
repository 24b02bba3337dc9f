import { ConcurrencyConflict, DomainError, InfrastructureError } from '../../domain/errors.js';
import type { AssetRegistry } from '../../domain/assets.js';
import {
  COLLECTION_STATUS, type CollectionTask, type ReclaimRecord, type StepRecord,
} from '../../domain/model/collection-task.js';
import type { Clock } from '../../ports/clock.port.js';
import type { CollectionTaskRepository } from '../../ports/collection-task-repository.port.js';
import type { IdGenerator } from '../../ports/id-generator.port.js';
import { planRecovery, planUndelegation, type StepDeps, type StepPlan, type StepSettings, type StepSubject } from './collection-steps.js';
import { RetryBackoff } from './retry-backoff.js';
import { broadcastPrepared, followUp, toPrepared, type Confirmations } from './write-ahead.js';

/** The ports the reclaimer uses (a subset of the collection executor's). */
export interface ReclaimExecutorDeps extends StepDeps {
  readonly clock: Clock;
  readonly ids: IdGenerator;
  readonly assets: AssetRegistry;
  readonly tasks: CollectionTaskRepository;
}

/** Tunables; every one has a default (the collection executor's where they share a meaning). */
export interface ReclaimExecutorOptions {
  readonly owner?: string;
  /** Lease on a claimed reclaim (default 60 s). */
  readonly leaseMs?: number;
  readonly confirmations?: Confirmations;
  /** Clock time between two looks at a sent transaction (default 3 s). */
  readonly pollMs?: number;
  /**
   * A refused or failed attempt (the delegation still inside its lock period, a node error, a revert) retries
   * after retryBaseMs, doubling up to retryMaxMs (defaults 3 s and 5 min). A reclaim never gives up: it holds funds.
   */
  readonly retryBaseMs?: number;
  readonly retryMaxMs?: number;
  readonly transferBytes?: number;
  readonly sunPerByte?: bigint;
}

/** What one reclaim stage did. */
export interface ReclaimOutcome {
  readonly taskNo: string;
  readonly outcome: 'advanced' | 'waiting' | 'retrying' | 'done' | 'lost-lease';
}

/** The reclaim's two steps, in order: give the stake back, then sweep the float (the sweep uses its own bandwidth). */
const PHASES = [COLLECTION_STATUS.UNDELEGATING_ENERGY, COLLECTION_STATUS.RECOVER_TRX] as const;
type Phase = (typeof PHASES)[number];
const PLANNERS = { [COLLECTION_STATUS.UNDELEGATING_ENERGY]: planUndelegation, [COLLECTION_STATUS.RECOVER_TRX]: planRecovery } as const;

/**
 * Whether the task sent a self-delegation transaction (it may have landed): the only stake the reclaim gives back.
 * Energy on a rental or burn path is not the main address's to take back, so those tasks never undelegate.
 */
function selfDelegated(task: CollectionTask): boolean {
  return task.energyPath === 'self'
    && task.steps.some((s) => s.status === COLLECTION_STATUS.ACQUIRING_ENERGY && s.transaction !== null);
}

/**
 * The reclaim a task gets in the unit of work that fails it: pending when the failed collection put something on
 * its sub-address, that is when its FUNDING_TRX step sent a transaction (the gas float, plus the burn float when
 * burning) or its energy step sent a self-delegation; else none. Only TRC20 collections have those steps, so a TRX
 * collection, a task that failed before funding (nothing to collect) and one whose funding was skipped (the
 * sub-address already held the float) get none. Either transaction may or may not have landed: the reclaim reads
 * the chain and skips what is not there. Whatever the path, the reclaim sweeps the sub-address's sweepable TRX to
 * main (as RECOVER_TRX does on success); it undelegates only after a self-delegation.
 */
export function reclaimAfterFailure(task: CollectionTask, now: number): { reclaim?: ReclaimRecord } {
  const funded = task.steps.some((s) => s.status === COLLECTION_STATUS.FUNDING_TRX && s.transaction !== null);
  return funded || selfDelegated(task) ? { reclaim: { status: 'pending', steps: [], nextRunAt: now, lease: null, finishedAt: null } } : {};
}

/**
 * Gives back what a failed TRC20 collection left on its sub-address: the delegated stake after a self-delegation
 * (undelegated by the main address, never more than recorded nor than still received; any other path records a
 * skipped UNDELEGATING_ENERGY step and sends nothing) and the TRX float (swept to main less the bandwidth fee), with the planners of the collection's own UNDELEGATING_ENERGY and RECOVER_TRX steps. Leased and
 * write-ahead like the collection executor (prepare → persist → broadcast → confirm; resume by txid), so a crash
 * anywhere never sends a reclaim transaction twice. It writes only `task.reclaim` (and the version): the task's
 * status, error and event stay as the failure left them.
 */
export class ReclaimExecutor {
  private readonly owner: string;
  private readonly leaseMs: number;
  private readonly confirmations: Confirmations;
  private readonly pollMs: number;
  private readonly settings: StepSettings;
  private readonly backoff: RetryBackoff;

  constructor(private readonly deps: ReclaimExecutorDeps, options: ReclaimExecutorOptions = {}) {
    this.owner = options.owner ?? deps.ids.uuid();
    this.leaseMs = options.leaseMs ?? 60_000;
    this.confirmations = options.confirmations ?? 'solidified';
    this.pollMs = options.pollMs ?? 3_000;
    this.backoff = new RetryBackoff(options.retryBaseMs ?? 3_000, options.retryMaxMs ?? 300_000);
    // Only the sweep's bandwidth reserve is read by these planners; the funding amounts are unused.
    this.settings = {
      gasSun: 0n, burnEnabled: false, burnFundingSun: 0n, feeLimitSun: 0n,
      transferBytes: options.transferBytes ?? 300, sunPerByte: options.sunPerByte ?? 1_000n,
    };
  }

  /** Runs stages until no reclaim is due or `maxStages` ran. */
  async runDue(maxStages = 100): Promise<ReclaimOutcome[]> {
    const outcomes: ReclaimOutcome[] = [];
    while (outcomes.length < maxStages) {
      const outcome = await this.runOnce();
      if (outcome === null) break;
      outcomes.push(outcome);
    }
    return outcomes;
  }

  /** Claims one due reclaim and runs one stage of it; null when none is due. */
  async runOnce(): Promise<ReclaimOutcome | null> {
    const claimed = await this.deps.tasks.claimReclaimDue(this.deps.clock.now(), this.owner, this.leaseMs);
    if (claimed === null) return null;
    try {
      try {
        const outcome = await this.stage(claimed);
        if (outcome.outcome !== 'retrying') this.backoff.reset(claimed.taskNo);
        return outcome;
      } catch (error) {
        if (!(error instanceof DomainError) && !(error instanceof InfrastructureError)) throw error;
        return await this.retryLater(claimed.taskNo);
      }
    } catch (error) {
      if (error instanceof ConcurrencyConflict) return { taskNo: claimed.taskNo, outcome: 'lost-lease' };
      // The store failed while recording the retry: the lease runs out and the reclaim resumes, as after a crash.
      if (error instanceof InfrastructureError || error instanceof DomainError) return { taskNo: claimed.taskNo, outcome: 'retrying' };
      throw error;
    }
  }

  private async stage(task: CollectionTask): Promise<ReclaimOutcome> {
    const reclaim = task.reclaim!;
    const phase = PHASES.find((p) => !reclaim.steps.some((s) => s.status === p && s.completedAt !== null));
    if (phase === undefined) {
      await this.save(task, { status: 'done', finishedAt: this.deps.clock.now(), lease: null });
      return { taskNo: task.taskNo, outcome: 'done' };
    }
    // A newer collection of the same sub-address owns its delegation and float: wait until it has ended.
    const latest = await this.deps.tasks.findLatestByAddress(task.address);
    if (latest !== null && latest.taskNo !== task.taskNo && latest.finishedAt === null) return this.retryLater(task.taskNo, task);
    const open = reclaim.steps.find((s) => s.status === phase && s.completedAt === null);
    if (open === undefined || open.transaction === null) return this.begin(task, phase);
    const state = await followUp(this.deps.chain, open.transaction, this.confirmations);
    switch (state.kind) {
      case 'confirmed': {
        const now = this.deps.clock.now();
        await this.save(task, { steps: reclaim.steps.map((s) => (s === open ? { ...s, completedAt: now } : s)), nextRunAt: now, lease: null });
        return { taskNo: task.taskNo, outcome: 'advanced' };
      }
      case 'waiting':
        await this.save(task, { nextRunAt: this.deps.clock.now() + this.pollMs, lease: null });
        return { taskNo: task.taskNo, outcome: 'waiting' };
      case 'failed': {
        // A reverted transaction moved nothing: drop it and plan again from the chain, later.
        const dropped = await this.save(task, { steps: reclaim.steps.filter((s) => s !== open) });
        return this.retryLater(task.taskNo, dropped);
      }
      case 'rebuild': {
        const dropped = await this.save(task, { steps: reclaim.steps.filter((s) => s !== open) });
        return this.begin(dropped, phase);
      }
    }
  }

  /** A phase's first visit: plan from the chain now, persist the transaction, then broadcast it. */
  private async begin(task: CollectionTask, phase: Phase): Promise<ReclaimOutcome> {
    const subject: StepSubject = { task, asset: this.deps.assets.find(task.networkCode, task.assetSymbol) ?? this.deps.assets.find(task.networkCode, 'TRX')! };
    // A rental's or a burn's energy is not main's stake: only a self-delegation is given back.
    const plan: StepPlan = phase === COLLECTION_STATUS.UNDELEGATING_ENERGY && !selfDelegated(task)
      ? { kind: 'skip' }
      : await PLANNERS[phase](this.deps, this.settings, subject);
    const now = this.deps.clock.now();
    const steps = task.reclaim!.steps;
    if (plan.kind !== 'send') {
      if (plan.kind !== 'skip') return this.retryLater(task.taskNo, task);
      const skipped: StepRecord = { status: phase, transaction: null, orderRef: null, startedAt: now, completedAt: now };
      await this.save(task, { steps: [...steps, skipped], nextRunAt: now, lease: null });
      return { taskNo: task.taskNo, outcome: 'advanced' };
    }
    const prepared = toPrepared(plan.tx);
    const record: StepRecord = { status: phase, transaction: prepared, orderRef: null, amount: plan.amount, startedAt: now, completedAt: null };
    const persisted = await this.save(task, { steps: [...steps, record] });
    await broadcastPrepared(this.deps.chain, prepared);
    const sent: StepRecord = { ...record, transaction: { ...prepared, broadcastAt: this.deps.clock.now() } };
    await this.save(persisted, { steps: [...steps, sent], nextRunAt: this.deps.clock.now() + this.pollMs, lease: null });
    return { taskNo: task.taskNo, outcome: 'advanced' };
  }

  /** Releases the lease with a backoff delay; re-reads first when the stage may have written since the claim. */
  private async retryLater(taskNo: string, known?: CollectionTask): Promise<ReclaimOutcome> {
    const task = known ?? await this.deps.tasks.get(taskNo);
    if (task?.reclaim?.lease?.owner !== this.owner) throw new ConcurrencyConflict('collection task', taskNo);
    await this.save(task, { nextRunAt: this.deps.clock.now() + this.backoff.next(taskNo), lease: null });
    return { taskNo, outcome: 'retrying' };
  }

  /** Optimistic write of the reclaim record as read at the task's version. */
  private async save(task: CollectionTask, patch: Partial<ReclaimRecord>): Promise<CollectionTask> {
    const next: CollectionTask = { ...task, reclaim: { ...task.reclaim!, ...patch }, version: task.version + 1 };
    await this.deps.tasks.update(next);
    return next;
  }
}
