import { collectionStatusName, collectionTransition } from '../../domain/collection-machine.js';
import { commandTransition } from '../../domain/command-machine.js';
import { ConcurrencyConflict, DomainError, InfrastructureError, type ErrorCode } from '../../domain/errors.js';
import type { AssetRegistry } from '../../domain/assets.js';
import { COLLECTION_STATUS, type CollectionStatus, type CollectionTask, type StepRecord } from '../../domain/model/collection-task.js';
import { COMMAND_STATUS, type Command } from '../../domain/model/command.js';
import type { Clock } from '../../ports/clock.port.js';
import type { CollectionTaskRepository } from '../../ports/collection-task-repository.port.js';
import type { CommandRepository } from '../../ports/command-repository.port.js';
import type { IdGenerator } from '../../ports/id-generator.port.js';
import type { UnitOfWork } from '../../ports/unit-of-work.port.js';
import { collectionEvent } from '../webhook-events.js';
import { collectableAmount, energyNeed, STEP_PLANNERS, type StepDeps, type StepPlan, type StepSettings, type StepSubject } from './collection-steps.js';
import { reclaimAfterFailure } from './reclaim-executor.js';
import { RetryBackoff } from './retry-backoff.js';
import { broadcastPrepared, followUp, toPrepared, type Confirmations } from './write-ahead.js';

/** The ports the collection executor uses. */
export interface CollectionExecutorDeps extends StepDeps {
  readonly clock: Clock;
  readonly ids: IdGenerator;
  readonly assets: AssetRegistry;
  readonly tasks: CollectionTaskRepository;
  readonly commands: CommandRepository;
  readonly uow: UnitOfWork;
}

/** Tunables; every one has a default. */
export interface CollectionExecutorOptions {
  /** Lease owner name (default: a fresh UUID per executor). */
  readonly owner?: string;
  /** Lease on a claimed task (default 60 s): longer than one stage's few node calls, so a live worker keeps it. */
  readonly leaseMs?: number;
  /** Depth before the next step starts (default 'solidified'). */
  readonly confirmations?: Confirmations;
  /** Clock time between two looks at a transaction or at the energy (default 3 s, one TRON block). */
  readonly pollMs?: number;
  /** Spec §8: wait for energy readiness up to 60 s, then FAILED BIZ-ENERGY-TIMEOUT. */
  readonly energyTimeoutMs?: number;
  /** Transient failures retry after retryBaseMs, doubling up to retryMaxMs (defaults 1 s and 60 s). */
  readonly retryBaseMs?: number;
  readonly retryMaxMs?: number;
  /** Burn TRX for energy when no provider can (default false). */
  readonly burnEnabled?: boolean;
  /** TRX float the main address sends in FUNDING_TRX (default 1 TRX: activates the account, pays bandwidth). */
  readonly gasSun?: bigint;
  /** Extra float when burning is enabled (default 30 TRX, enough for a USDT transfer to a new holder at 100 SUN/energy). */
  readonly burnFundingSun?: bigint;
  /** fee_limit of the TRC20 transfer (default 100 TRX). */
  readonly feeLimitSun?: bigint;
  /** Bytes of a TRX transfer and SUN per byte when bandwidth is burnt (defaults 300 and 1,000). */
  readonly transferBytes?: number;
  readonly sunPerByte?: bigint;
}

/** What one claimed stage did to its task. */
export interface StageOutcome {
  readonly taskNo: string;
  /** advanced: a step completed or a transaction went out; waiting: for the chain; retrying: after a transient failure. */
  readonly outcome: 'advanced' | 'waiting' | 'retrying' | 'finished' | 'lost-lease';
  readonly status: CollectionStatus;
}

const TRX = 1_000_000n;

/**
 * The crash-safe collection worker. A stage = claim one due task under a lease, do the next piece of its current
 * step, persist, release. Every transaction is persisted (txid + signed bytes) in the task's StepRecord BEFORE it is
 * broadcast, and a resumed step looks the txid up first (write-ahead.ts), so a crash anywhere never sends funds
 * twice. Each write names the version it read: a worker whose lease was taken over loses its next write
 * (ConcurrencyConflict) and stops. The terminal transition, the command's terminal status (which releases the
 * address lock and balance_locked) and the webhook event land in one unit of work.
 *
 * Errors: DomainError and non-transient InfrastructureError fail the task with their code; transient ones retry
 * with backoff on the Clock; anything else escapes untouched (like a crash) and the task resumes after its lease.
 */
export class CollectionExecutor {
  private readonly owner: string;
  private readonly leaseMs: number;
  private readonly confirmations: Confirmations;
  private readonly pollMs: number;
  private readonly energyTimeoutMs: number;
  private readonly settings: StepSettings;
  private readonly backoff: RetryBackoff;

  constructor(private readonly deps: CollectionExecutorDeps, options: CollectionExecutorOptions = {}) {
    this.owner = options.owner ?? deps.ids.uuid();
    this.leaseMs = options.leaseMs ?? 60_000;
    this.confirmations = options.confirmations ?? 'solidified';
    this.pollMs = options.pollMs ?? 3_000;
    this.energyTimeoutMs = options.energyTimeoutMs ?? 60_000;
    this.backoff = new RetryBackoff(options.retryBaseMs ?? 1_000, options.retryMaxMs ?? 60_000);
    this.settings = {
      gasSun: options.gasSun ?? TRX,
      burnEnabled: options.burnEnabled ?? false,
      burnFundingSun: options.burnFundingSun ?? 30n * TRX,
      feeLimitSun: options.feeLimitSun ?? 100n * TRX,
      transferBytes: options.transferBytes ?? 300,
      sunPerByte: options.sunPerByte ?? 1_000n,
    };
  }

  /** Runs stages until no task is due or `maxStages` ran; returns what each did. */
  async runDue(maxStages = 100): Promise<StageOutcome[]> {
    const outcomes: StageOutcome[] = [];
    while (outcomes.length < maxStages) {
      const outcome = await this.runOnce();
      if (outcome === null) break;
      outcomes.push(outcome);
    }
    return outcomes;
  }

  /** Claims one due task and runs one stage of it; null when nothing is due. */
  async runOnce(): Promise<StageOutcome | null> {
    const claimed = await this.deps.tasks.claimDue(this.deps.clock.now(), this.owner, this.leaseMs);
    if (claimed === null) return null;
    try {
      try {
        const outcome = await this.stage(claimed);
        this.backoff.reset(claimed.taskNo);
        return outcome;
      } catch (error) {
        return await this.onError(claimed.taskNo, error);
      }
    } catch (error) {
      if (error instanceof ConcurrencyConflict) return { taskNo: claimed.taskNo, outcome: 'lost-lease', status: claimed.status };
      // Recording the failure failed too (the store is down, or applied a write and reported an error): the task
      // keeps its lease and is resumed when the lease ends, which is exactly what a crash here would lead to.
      if (error instanceof InfrastructureError || error instanceof DomainError) {
        return { taskNo: claimed.taskNo, outcome: 'retrying', status: claimed.status };
      }
      throw error;
    }
  }

  /** Business and permanent failures end the task; transient ones come back later; the rest escapes like a crash. */
  private async onError(taskNo: string, error: unknown): Promise<StageOutcome> {
    const transient = error instanceof InfrastructureError && error.transient;
    if (!(error instanceof DomainError) && !(error instanceof InfrastructureError)) throw error;
    // Re-read: the stage may have persisted a record before failing, and this write must name that version.
    const task = await this.deps.tasks.get(taskNo);
    if (task === null || task.lease?.owner !== this.owner) throw new ConcurrencyConflict('collection task', taskNo);
    // A store failure once a transaction is persisted must not end the task: the transaction may still land.
    const sent = openRecord(task)?.transaction != null;
    if (transient || (sent && error instanceof InfrastructureError && !error.code.startsWith('CHAIN-'))) {
      const delay = this.backoff.next(taskNo);
      await this.save(task, { nextRunAt: this.deps.clock.now() + delay, lease: null });
      return { taskNo, outcome: 'retrying', status: task.status };
    }
    this.backoff.reset(taskNo);
    return this.finish(task, 'FAILED', error.code, error.message);
  }

  private async stage(task: CollectionTask): Promise<StageOutcome> {
    const asset = this.deps.assets.find(task.networkCode, task.assetSymbol);
    if (asset === null) return this.finish(task, 'FAILED', 'BIZ-ASSET-NOT-FOUND', `asset ${task.assetSymbol} is not configured`);
    const subject: StepSubject = { task, asset };
    if (task.status === COLLECTION_STATUS.PENDING) return this.start(subject);
    if (task.status === COLLECTION_STATUS.WAIT_ENERGY_READY) return this.waitEnergy(subject);
    const record = openRecord(task);
    if (record === undefined) return this.begin(subject);
    if (record.transaction !== null) return this.follow(subject, record);
    if (record.orderRef !== null) return this.followOrder(subject, record);
    return this.complete(task, record);
  }

  /** PENDING: fail early when there is nothing to collect; else the first transition and the command RUNNING. */
  private async start({ task, asset }: StepSubject): Promise<StageOutcome> {
    const amount = await collectableAmount(this.deps, this.settings, { task, asset });
    if (amount <= 0n) return this.finish(task, 'FAILED', 'BIZ-NOTHING-TO-COLLECT', `${task.address} holds no ${asset.symbol} to collect`);
    const next = collectionTransition(task.status, 'start', { assetKind: asset.kind, energyPath: task.energyPath });
    if (next === null) throw new Error(`collection machine refused start of ${task.taskNo}`);
    const now = this.deps.clock.now();
    const command = await this.deps.commands.get(task.commandNo);
    const running = command === null ? null : startedCommand(command, now);
    await this.deps.uow.commit({
      tasks: [{ ...task, status: next, nextRunAt: now, lease: null, version: task.version + 1 }],
      ...(running === null ? {} : { commands: [running] }),
    });
    return { taskNo: task.taskNo, outcome: 'advanced', status: next };
  }

  /** A step's first visit: plan from the chain, then persist the transaction before it goes out. */
  private async begin(subject: StepSubject): Promise<StageOutcome> {
    const { task } = subject;
    const planner = STEP_PLANNERS[task.status as keyof typeof STEP_PLANNERS];
    if (planner === undefined) throw new Error(`no step for status ${collectionStatusName(task.status)}`);
    const plan: StepPlan = await planner(this.deps, this.settings, subject);
    const now = this.deps.clock.now();
    const energyPath = plan.kind !== 'fail' && plan.energyPath !== undefined ? plan.energyPath : task.energyPath;
    switch (plan.kind) {
      case 'fail':
        return this.finish(task, 'FAILED', plan.code, plan.message);
      case 'skip':
        return this.complete({ ...task, energyPath }, null);
      case 'order': {
        const record: StepRecord = { status: task.status, transaction: null, orderRef: plan.orderRef, startedAt: now, completedAt: null };
        await this.save(task, { energyPath, steps: [...task.steps, record], nextRunAt: now + this.pollMs, lease: null });
        return { taskNo: task.taskNo, outcome: 'advanced', status: task.status };
      }
      case 'send': {
        const prepared = toPrepared(plan.tx);
        const record: StepRecord = {
          status: task.status, transaction: prepared, orderRef: null, amount: plan.amount, startedAt: now, completedAt: null,
        };
        const persisted = await this.save(task, { energyPath, steps: [...task.steps, record] });
        await broadcastPrepared(this.deps.chain, prepared);
        const sent: StepRecord = { ...record, transaction: { ...prepared, broadcastAt: this.deps.clock.now() } };
        await this.save(persisted, { steps: [...task.steps, sent], nextRunAt: this.deps.clock.now() + this.pollMs, lease: null });
        return { taskNo: task.taskNo, outcome: 'advanced', status: task.status };
      }
    }
  }

  /** A step with a persisted transaction: confirmed → complete; unknown and expired → drop it and plan again. */
  private async follow(subject: StepSubject, record: StepRecord): Promise<StageOutcome> {
    const { task } = subject;
    const state = await followUp(this.deps.chain, record.transaction!, this.confirmations);
    switch (state.kind) {
      case 'confirmed':
        return this.complete(task, record);
      case 'waiting':
        return this.wait(task);
      case 'failed':
        return this.finish(task, 'FAILED', 'CHAIN-TRANSACTION-FAILED',
          `${collectionStatusName(task.status)} transaction ${record.transaction!.txid} failed on chain: ${state.reason}`);
      case 'rebuild': {
        const dropped = await this.save(task, { steps: task.steps.filter((s) => s !== record) });
        return this.begin({ ...subject, task: dropped });
      }
    }
  }

  /** A rental order: delivered → complete; failed → FAILED BIZ-ENERGY-UNAVAILABLE. */
  private async followOrder({ task }: StepSubject, record: StepRecord): Promise<StageOutcome> {
    const rental = this.deps.energy.rental;
    if (rental === undefined) return this.finish(task, 'FAILED', 'BIZ-ENERGY-UNAVAILABLE', 'rental order recorded but no rental provider configured');
    const status = await rental.orderStatus(record.orderRef!);
    if (status === 'delivered') return this.complete(task, record);
    if (status === 'failed') return this.finish(task, 'FAILED', 'BIZ-ENERGY-UNAVAILABLE', `energy rental order ${record.orderRef!} failed`);
    return this.wait(task);
  }

  /** WAIT_ENERGY_READY: energy >= what the transfer needs now, polled up to energyTimeoutMs of Clock time. */
  private async waitEnergy(subject: StepSubject): Promise<StageOutcome> {
    const { task } = subject;
    const now = this.deps.clock.now();
    let record = openRecord(task);
    let current = task;
    if (record === undefined) {
      record = { status: task.status, transaction: null, orderRef: null, startedAt: now, completedAt: null };
      current = await this.save(task, { steps: [...task.steps, record] });
    }
    // Burning pays for energy in TRX: nothing arrives, so there is nothing to wait for.
    if (task.energyPath === 'burn') return this.complete(current, record);
    const { needed, available } = await energyNeed(this.deps, subject);
    if (available >= needed) return this.complete(current, record);
    if (now - record.startedAt >= this.energyTimeoutMs) {
      return this.finish(current, 'FAILED', 'BIZ-ENERGY-TIMEOUT',
        `sub-address has ${available} of ${needed} energy after ${Math.round(this.energyTimeoutMs / 1000)} s`);
    }
    return this.wait(current);
  }

  /** Completes the open step and applies the machine's transition; DONE goes through finish(). */
  private async complete(task: CollectionTask, record: StepRecord | null): Promise<StageOutcome> {
    const asset = this.deps.assets.find(task.networkCode, task.assetSymbol)!;
    const event = task.status === COLLECTION_STATUS.WAIT_ENERGY_READY ? 'threshold-met' : 'step-completed';
    const next = collectionTransition(task.status, event, { assetKind: asset.kind, energyPath: task.energyPath });
    if (next === null) throw new Error(`collection machine refused ${event} in ${collectionStatusName(task.status)} for ${task.taskNo}`);
    const now = this.deps.clock.now();
    const steps = record === null ? task.steps : task.steps.map((s) => (s === record ? { ...s, completedAt: now } : s));
    const swept = task.status === COLLECTION_STATUS.COLLECTING && record?.transaction
      ? { sweptAmount: record.amount ?? null, sweepTxHash: record.transaction.txid }
      : {};
    const completed: CollectionTask = { ...task, ...swept, steps };
    if (next === COLLECTION_STATUS.DONE) return this.finish(completed, 'DONE', null, null);
    await this.save(completed, { status: next, nextRunAt: now, lease: null }, task.version);
    return { taskNo: task.taskNo, outcome: 'advanced', status: next };
  }

  private async wait(task: CollectionTask): Promise<StageOutcome> {
    await this.save(task, { nextRunAt: this.deps.clock.now() + this.pollMs, lease: null });
    return { taskNo: task.taskNo, outcome: 'waiting', status: task.status };
  }

  /**
   * DONE or FAILED in one unit of work: the task (lease released), its command's terminal status (releasing the
   * address lock and balance_locked), the collection.* event and, on a failure after the task funded its sub-address
   * or self-delegated to it, the pending reclaim (reclaimAfterFailure in reclaim-executor.ts). A concurrent writer
   * makes it write nothing.
   */
  private async finish(task: CollectionTask, end: 'DONE' | 'FAILED', errorCode: ErrorCode | null, lastError: string | null): Promise<StageOutcome> {
    const now = this.deps.clock.now();
    const asset = this.deps.assets.find(task.networkCode, task.assetSymbol);
    const status = end === 'DONE'
      ? collectionTransition(task.status, 'step-completed', { assetKind: asset?.kind ?? 'native', energyPath: task.energyPath })
      : collectionTransition(task.status, 'unrecoverable-error', { assetKind: asset?.kind ?? 'native', energyPath: task.energyPath });
    if (status !== COLLECTION_STATUS[end]) throw new Error(`collection machine refused ${end} from ${collectionStatusName(task.status)}`);
    const terminal: CollectionTask = {
      ...task, status, errorCode, lastError, finishedAt: now, nextRunAt: now, lease: null, version: task.version + 1,
      ...(end === 'FAILED' ? reclaimAfterFailure(task, now) : {}),
    };
    const command = await this.deps.commands.get(task.commandNo);
    const closed = command === null ? null : finishedCommand(command, end === 'DONE', errorCode, lastError, now);
    await this.deps.uow.commit({
      tasks: [terminal],
      ...(closed === null ? {} : { commands: [closed] }),
      events: [collectionEvent(terminal, this.deps.ids.uuid(), now)],
    });
    return { taskNo: task.taskNo, outcome: 'finished', status };
  }

  /** Optimistic write of the task as read at `readVersion` (default: its own version). */
  private async save(task: CollectionTask, patch: Partial<CollectionTask>, readVersion = task.version): Promise<CollectionTask> {
    const next: CollectionTask = { ...task, ...patch, version: readVersion + 1 };
    await this.deps.tasks.update(next);
    return next;
  }
}

/** The current step's record: the last one for this status, not completed yet. */
function openRecord(task: CollectionTask): StepRecord | undefined {
  const last = task.steps.at(-1);
  return last !== undefined && last.status === task.status && last.completedAt === null ? last : undefined;
}

function startedCommand(command: Command, now: number): Command | null {
  const status = commandTransition(command.status, 'start');
  return status === null ? null : { ...command, status, startedAt: now, version: command.version + 1 };
}

/**
 * SUCCESS or FAILED for the task's command; a PENDING one (the task failed before its first step) starts first,
 * since the command machine only ends RUNNING commands. A command already terminal is left alone.
 */
function finishedCommand(command: Command, ok: boolean, errorCode: string | null, lastError: string | null, now: number): Command | null {
  const running = command.status === COMMAND_STATUS.PENDING ? startedCommand(command, now) : command;
  if (running === null) return null;
  const status = commandTransition(running.status, ok ? 'succeed' : 'fail');
  if (status === null) return null;
  return {
    ...running, status, errorCode, lastError, startedAt: running.startedAt ?? now, finishedAt: now, version: command.version + 1,
  };
}
