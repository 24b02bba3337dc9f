import { MIN_TRX_SWEEP_SUN } from '../../domain/sweepable-amount.js';
import { COLLECTION_STEPS, collectionStatusName, collectionStepOf, collectionTransition, type CollectionStepName, type CollectionStepRow } from '../../domain/collection-machine.js';
import { commandTransition, finishedCommand } from '../../domain/command-machine.js';
import type { ErrorCode } from '../../domain/errors.js';
import type { AssetRegistry } from '../../domain/assets.js';
import { COLLECTION_STATUS, type CollectionStatus, type CollectionTask, type StepRecord } from '../../domain/model/collection-task.js';
import { COMMAND_STATUS, type Command, type PreparedTransaction } from '../../domain/model/command.js';
import type { Asset } from '../../domain/model/asset.js';
import type { BalanceRepository } from '../../ports/balance-repository.port.js';
import type { Clock } from '../../ports/clock.port.js';
import type { CollectionTaskRepository } from '../../ports/collection-task-repository.port.js';
import type { CommandRepository } from '../../ports/command-repository.port.js';
import type { IdGenerator } from '../../ports/id-generator.port.js';
import type { UnitOfWork } from '../../ports/unit-of-work.port.js';
import { collectionEvent } from '../webhook-events.js';
import {
  collectableAmount, energyReadiness, mayRecover, planAcquireEnergy, planCollecting, planFunding, planRecovery, planTopUp, planTrc20Sweep, planUndelegation,
  planRecoveryAmount, withRentalPaid,
  type StepDeps, type StepPlan, type StepSettings, type StepSubject,
} from './collection-steps.js';
import { reclaimAfterFailure } from './reclaim-executor.js';
import type { RunnerHooks, RunnerLog } from './stage-protocol.js';
import { notedOnTask, taskStore } from './task-workflow.js';
import { STALE_READ_GRACE_MS, type Confirmations } from './write-ahead.js';
import { listed, stepOfRow, WorkflowRefusal, type Seen, type StepDecision, type Visit, type Workflow, type WorkflowStep, type WorkflowStore } from './workflow.js';
import { WorkflowExecutor, type WorkflowOptions } from './workflow-executor.js';

/** The ports the collection executor uses. */
export interface CollectionExecutorDeps extends StepDeps {
  readonly clock: Clock;
  readonly ids: IdGenerator;
  readonly assets: AssetRegistry;
  readonly tasks: CollectionTaskRepository;
  readonly commands: CommandRepository;
  readonly uow: UnitOfWork;
  readonly log?: RunnerLog;
  readonly hooks?: RunnerHooks;
  /** The scanner's cached balances: where the main address shows the token, the plan's warning needs no node call. */
  readonly balances?: Pick<BalanceRepository, 'get'>;
}

const TRX = 1_000_000n;

/**
 * The most energy a USDT transfer to an address that already holds USDT costs: 64,285 at the dynamic-energy maximum
 * factor (34,000, where USDT sits), against 130,285 to one holding none (a new storage slot; tron-facts). The main
 * address's token balance is read for the new-holder warning only when the sweep's dry run costs more than this (a
 * transfer to a holder never does, whatever the factor): a dry run at or under it is the holder price at the maximum
 * factor, or a new holder's at a factor below about 11,700 (29,6xx base energy), where the sweep costs no more than a
 * holder's does at the maximum. A token dearer than this to transfer keeps the read every time.
 */
export const HOLDER_TRANSFER_ENERGY_MAX = 64_285;

/**
 * What completing a step writes into the task beside closing its records: the sweep's amount and txid; the rental's
 * price once its order delivered.
 */
const ON_COMPLETE: Partial<Record<CollectionStepName, (task: CollectionTask, record: PreparedTransaction | null) => CollectionTask>> = {
  sweep: (task, record) => (record === null ? task : { ...task, sweptAmount: openStepRecord(task)?.amount ?? null, sweepTxHash: record.txid }),
  'acquire-energy': (task) => (openStepRecord(task)?.orderRef != null ? withRentalPaid(task) : task),
};

/**
 * The collection task as a workflow of the runner (workflow-runner.ts): the step table COLLECTION_STEPS says which
 * step runs in each status and which event completes it; this class supplies the steps and writes the
 * transitions. The terminal transition, the command's terminal status (which releases the address lock and
 * balance_locked), the collection.* event and, on a failure after gas or a delegation went out, the pending
 * reclaim land in one unit of work.
 */
class CollectionWorkflow implements Workflow<CollectionTask> {
  readonly name = 'collection';
  readonly store: WorkflowStore<CollectionTask>;
  private readonly steps: Record<CollectionStepName, WorkflowStep<CollectionTask>>;
  private readonly confirmations: Confirmations;

  constructor(
    private readonly deps: CollectionExecutorDeps,
    private readonly settings: StepSettings,
    confirmations: Confirmations,
    private readonly energyTimeoutMs: number,
    private readonly staleReadGraceMs: number,
  ) {
    this.store = taskStore(deps.tasks, {
      claim: async (now, owner, leaseMs, limit) => (limit === 1 ? listed(await deps.tasks.claimDue(now, owner, leaseMs))
        : deps.tasks.claimSeveralDue(now, owner, leaseMs, limit)),
      holds: (task, owner) => task.lease?.owner === owner,
      leased: (task, dueAt, lease) => ({ ...task, nextRunAt: dueAt, lease }),
      // Kept by its runner between stages (decision 160): no one else writes a task once it has started.
      keeps: true,
    });
    this.confirmations = confirmations;
    const planned = (planner: (d: StepDeps, s: StepSettings, subject: StepSubject) => Promise<StepPlan>) =>
      async (task: CollectionTask) => this.decide(task, await planner(this.deps, this.settings, this.subjectOf(task)));
    // The workflow's code per step; everything else about a step is its COLLECTION_STEPS row.
    const code: Record<CollectionStepName, Pick<WorkflowStep<CollectionTask>, 'plan' | 'afterConfirmed'>> = {
      'check-collectable': { plan: (task) => this.checkCollectable(task) },
      'fund-gas': { plan: planned(planFunding) },
      'acquire-energy': { plan: (task) => this.acquireEnergy(task) },
      'await-energy': { plan: (task) => this.awaitEnergy(task), afterConfirmed: (task, record, now) => closeRecord(task, record, now) },
      sweep: { plan: planned(planCollecting) },
      undelegate: { plan: (task) => this.undelegate(task) },
      // The recovery (or a repeated undelegation) closes, and the step goes on: it ends once the pipelined
      // undelegation it awaits has landed too.
      'recover-trx': { plan: (task, lost) => this.recover(task, lost), afterConfirmed: (task, record, now) => closeRecord(task, record, now) },
    };
    const pipelined = (task: CollectionTask) => openStepRecord(task)?.pipelined === true;
    const rows: readonly CollectionStepRow[] = Object.values(COLLECTION_STEPS);
    this.steps = Object.fromEntries(rows.map((row) => [row.step, stepOfRow(row, confirmations, code[row.step], pipelined)])) as Record<CollectionStepName, WorkflowStep<CollectionTask>>;
  }

  /**
   * The status's step (its COLLECTION_STEPS row), the open record (the status's last record, not completed), the
   * transaction of an earlier status the row awaits that has no receipt noted yet, and the step's start.
   */
  visit(task: CollectionTask): Visit<CollectionTask> | null {
    const row = collectionStepOf(task.status);
    if (row === null) return null;
    return { step: this.steps[row.step], open: openStepRecord(task)?.transaction ?? null, awaited: awaitedOf(task, row), startedAt: stepStartedAt(task) };
  }

  /** A receipt or a dead transaction in the task's cost; a refusal on, or a drop of, the status's open record. */
  note(task: CollectionTask, record: PreparedTransaction, seen: Seen): CollectionTask {
    if (seen.kind === 'receipt' || seen.kind === 'dead') return notedOnTask(task, record, seen);
    return this.withRecord(task, seen.kind === 'refused' ? { ...record, refusal: seen.refusal } : null);
  }

  private withRecord(task: CollectionTask, record: PreparedTransaction | null): CollectionTask {
    const open = openStepRecord(task);
    if (open === undefined) return task;
    if (record === null && open.status === COLLECTION_STATUS.UNDELEGATING_ENERGY) {
      // A dropped undelegation stays as a closed record without a transaction: the next plan reads what is still
      // delegated instead of giving back the recorded amounts again (planUndelegation).
      const now = this.deps.clock.now();
      return { ...task, steps: task.steps.map((s) => (s === open ? { ...s, transaction: null, completedAt: now } : s)) };
    }
    return { ...task, steps: record === null ? task.steps.filter((s) => s !== open) : task.steps.map((s) => (s === open ? { ...s, transaction: record } : s)) };
  }

  statusOf(task: CollectionTask): { readonly status: CollectionStatus; readonly error: { readonly code: string; readonly message: string | null } | null } {
    return { status: task.status, error: task.errorCode === null ? null : { code: task.errorCode, message: task.lastError } };
  }

  /**
   * Completes the status's step: its open records closed, what the step's completion writes (ON_COMPLETE), and the
   * transition its table row's event fires. The first step's event starts the command with the task; DONE ends both.
   */
  async complete(task: CollectionTask, record: PreparedTransaction | null): Promise<{ next: CollectionTask } | { ended: CollectionTask } | { unsaved: CollectionTask }> {
    const row = collectionStepOf(task.status)!;
    const next = collectionTransition(task.status, row.completedBy, this.contextOf(task));
    if (next === null) throw new WorkflowRefusal(`collection machine refused ${row.completedBy} in ${collectionStatusName(task.status)} for ${task.taskNo}`);
    const now = this.deps.clock.now();
    const written = ON_COMPLETE[row.step]?.(task, record) ?? task;
    const completed: CollectionTask = {
      ...written, steps: written.steps.map((s) => (s.status === task.status && s.completedAt === null ? { ...s, completedAt: now } : s)),
    };
    if (next === COLLECTION_STATUS.DONE) return { ended: await this.finish(completed, 'DONE', null, null) };
    if (row.completedBy === 'start') return { next: await this.start(completed, next) };
    // Only the task changes: the stage's next write (a write-ahead, a release, the end) carries it (decision 157).
    return { unsaved: { ...completed, status: next, nextRunAt: now } };
  }

  fail(task: CollectionTask, code: ErrorCode, message: string): Promise<CollectionTask> {
    return this.finish(task, 'FAILED', code, message);
  }

  /** PENDING → the first working status, and the command RUNNING, in one unit of work (the lease stays: the stage goes on). */
  private async start(task: CollectionTask, next: CollectionStatus): Promise<CollectionTask> {
    const now = this.deps.clock.now();
    const command = await this.deps.commands.get(task.commandNo);
    const running = command === null ? null : startedCommand(command, now);
    const started: CollectionTask = { ...task, status: next, nextRunAt: now, version: task.version + 1 };
    await this.deps.uow.commit({ tasks: [started], ...(running === null ? {} : { commands: [running] }) });
    return started;
  }

  /**
   * DONE or FAILED in one unit of work: the task (lease released), its command's terminal status (releasing the
   * address lock and balance_locked), the collection.* event and, on a failure after the task funded its sub-address
   * or self-delegated to it, the pending reclaim (reclaimAfterFailure in reclaim-executor.ts). A concurrent writer
   * makes it write nothing.
   */
  private async finish(task: CollectionTask, end: 'DONE' | 'FAILED', errorCode: ErrorCode | null, lastError: string | null): Promise<CollectionTask> {
    const now = this.deps.clock.now();
    const status = collectionTransition(task.status, end === 'DONE' ? 'step-completed' : 'unrecoverable-error', this.contextOf(task));
    if (status !== COLLECTION_STATUS[end]) throw new WorkflowRefusal(`collection machine refused ${end} from ${collectionStatusName(task.status)}`);
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
    return terminal;
  }

  /** PENDING: something to collect and (TRC20) the sweep's plan; nothing is spent yet. */
  private async checkCollectable(task: CollectionTask): Promise<StepDecision<CollectionTask>> {
    const subject = this.subjectOf(task);
    const amount = await collectableAmount(this.deps, this.settings, subject);
    if (amount <= 0n) return this.decide(task, { kind: 'fail', code: 'BIZ-NOTHING-TO-COLLECT', message: `${task.address} holds no ${subject.asset.symbol} to collect` });
    if (subject.asset.kind !== 'trc20') return { kind: 'complete' };
    // Plan before spending: the node's dry run (a blacklisted sub or a paused token fails here), every energy source
    // priced, the cheapest that fits; nothing fits → FAILED with nothing sent.
    const plan = await planTrc20Sweep(this.deps, this.settings, subject, amount);
    // A dry run no dearer than a holder's transfer at the maximum factor: no warning to give, nothing to read.
    if ((plan.dryRun?.energy ?? plan.energy) > HOLDER_TRANSFER_ENERGY_MAX && !(await this.mainHolds(task.mainAddress, subject.asset))) {
      // A transfer to an address holding none of the token writes a new storage slot: about twice the energy.
      this.deps.log?.warn({ taskNo: task.taskNo, mainAddress: task.mainAddress, asset: subject.asset.symbol, energy: plan.energy },
        'main address holds none of the token: this sweep pays the new-holder energy price (130,285 for USDT instead of 64,285)');
    }
    return { kind: 'complete', subject: { ...task, plan } };
  }

  /**
   * Whether the main address holds some of the token, for a warning only: its cached balance when that shows some
   * (the scanner's; no node call), else the chain.
   */
  private async mainHolds(main: string, asset: Asset): Promise<boolean> {
    const cached = (await this.deps.balances?.get(main))?.items.find((i) => i.symbol === asset.symbol)?.available ?? 0n;
    return cached > 0n || await this.deps.chain.getTokenBalance(main, asset.contractAddress!) > 0n;
  }

  /** ACQUIRING_ENERGY: a recorded rental order is followed; else the energy decision (collection-steps.ts planAcquireEnergy). */
  private async acquireEnergy(task: CollectionTask): Promise<StepDecision<CollectionTask>> {
    return this.decide(task, await planAcquireEnergy(this.deps, this.settings, this.subjectOf(task), openStepRecord(task)?.orderRef));
  }

  /**
   * WAIT_ENERGY_READY: the energy the transfer needs now, polled up to energyTimeoutMs of Clock time. The network's
   * energy weight moves every block, so a delegation sized a few minutes ago can come up short. A shortfall the
   * sub-address's TRX can burn for (at the chain's energy price, beside the transfer's bandwidth) does not hold the
   * sweep up; on the self-delegation path one top-up delegation covers a larger one.
   */
  private async awaitEnergy(task: CollectionTask): Promise<StepDecision<CollectionTask>> {
    const now = this.deps.clock.now();
    // The funding sent in the same block as the delegation has landed: the runner followed it first (`awaits`).
    const waiting = task.steps.filter((s) => s.status === COLLECTION_STATUS.WAIT_ENERGY_READY);
    // The first visit records when the wait started (the spec's 60 s count from there).
    const recorded: CollectionTask = waiting.length > 0 ? task
      : { ...task, steps: [...task.steps, { status: task.status, transaction: null, orderRef: null, startedAt: now, completedAt: null }] };
    if (task.energyPath === 'burn') return { kind: 'complete', subject: recorded };
    const subject = this.subjectOf(task);
    const readiness = await energyReadiness(this.deps, subject);
    if (readiness.ready) return { kind: 'complete', subject: recorded };
    const { needed, available } = readiness;
    const toppedUp = waiting.some((s) => s.transaction !== null);
    if (task.energyPath === 'self' && !toppedUp) {
      const topUp = await planTopUp(this.deps, subject, needed - available);
      if (topUp !== null) return this.decide(recorded, topUp);
    }
    const since = Math.min(...(waiting.length > 0 ? waiting : recorded.steps.slice(-1)).map((s) => s.startedAt));
    if (now - since >= this.energyTimeoutMs) {
      return { kind: 'fail', code: 'BIZ-ENERGY-TIMEOUT', message: `sub-address has ${available} of ${needed} energy after ${Math.round(this.energyTimeoutMs / 1000)} s` };
    }
    return { kind: 'wait', subject: recorded };
  }

  /** UNDELEGATING_ENERGY: the stake back; pipelined with the recovery when the sub-address holds TRX worth returning. */
  private async undelegate(task: CollectionTask): Promise<StepDecision<CollectionTask>> {
    const subject = this.subjectOf(task);
    const decision = this.decide(task, await planUndelegation(this.deps, this.settings, subject));
    if (decision.kind !== 'send' || !mayRecover(this.settings, task)) return decision;
    const recovery = await planRecoveryAmount(this.deps, this.settings, subject);
    if (recovery === 0n) return decision;
    return {
      ...decision,
      persist: (record) => {
        const persisted = decision.persist(record);
        return { ...persisted, steps: persisted.steps.map((s, i, all) => (i === all.length - 1 ? { ...s, pipelined: true } : s)) };
      },
    };
  }

  /**
   * RECOVER_TRX: whatever TRX is worth returning goes to the main address (in the same block as a pipelined
   * undelegation, which the runner awaits before the step completes). If that undelegation was `lost` (dead or
   * reverted), this step undelegates again (a record with `purpose: 'undelegate'`).
   */
  private async recover(task: CollectionTask, lost?: PreparedTransaction): Promise<StepDecision<CollectionTask>> {
    if (lost !== undefined) {
      const again = await planUndelegation(this.deps, this.settings, this.subjectOf(task));
      if (again.kind !== 'send') return { kind: 'complete', subject: task };
      const now = this.deps.clock.now();
      return {
        kind: 'send', tx: again.tx,
        persist: (record) => ({
          ...task,
          steps: [...task.steps, {
            status: COLLECTION_STATUS.RECOVER_TRX, transaction: record, orderRef: null, amount: again.amount, purpose: 'undelegate', startedAt: now, completedAt: null,
          }],
        }),
      };
    }
    const recovered = task.steps.some((s) => s.status === COLLECTION_STATUS.RECOVER_TRX && s.purpose === undefined && s.transaction !== null);
    if (!recovered && mayRecover(this.settings, task)) {
      const plan = await planRecovery(this.deps, this.settings, this.subjectOf(task));
      if (plan.kind === 'send') return this.decide(task, plan);
    }
    return { kind: 'complete' };
  }

  /** A planner's answer as the runner's decision: its transaction, record and energy path written into the task. */
  private decide(task: CollectionTask, plan: StepPlan): StepDecision<CollectionTask> {
    const now = this.deps.clock.now();
    switch (plan.kind) {
      case 'fail':
        // An empty answer soon after the task started may come from a node behind the deposit: read again a poll later.
        if (plan.code === 'BIZ-NOTHING-TO-COLLECT' && now - task.startedAt < this.staleReadGraceMs) return { kind: 'wait' };
        return { kind: 'fail', code: plan.code, message: plan.message };
      case 'skip':
        return { kind: 'complete', subject: plan.energyPath === undefined ? task : { ...task, energyPath: plan.energyPath } };
      case 'wait':
        return { kind: 'wait' };
      case 'order': {
        const record: StepRecord = { status: task.status, transaction: null, orderRef: plan.orderRef, startedAt: now, completedAt: null };
        return { kind: 'wait', subject: { ...task, energyPath: plan.energyPath, steps: [...task.steps, record] } };
      }
      case 'send':
        return {
          kind: 'send', tx: plan.tx,
          persist: (record) => ({
            ...task,
            energyPath: plan.energyPath ?? task.energyPath,
            steps: [...task.steps, {
              status: task.status, transaction: record, orderRef: null, amount: plan.amount, ...(plan.pipelined === true ? { pipelined: true } : {}),
              startedAt: now, completedAt: null,
            }],
          }),
        };
    }
  }

  private subjectOf(task: CollectionTask): StepSubject {
    const asset = this.deps.assets.find(task.networkCode, task.assetSymbol);
    if (asset === null) throw new WorkflowRefusal(`asset ${task.assetSymbol} of ${task.taskNo} is not configured`);
    return { task, asset };
  }

  private contextOf(task: CollectionTask) {
    return { assetKind: this.deps.assets.find(task.networkCode, task.assetSymbol)?.kind ?? 'native', energyPath: task.energyPath } as const;
  }
}

/**
 * The crash-safe collection worker: the collection workflow on the one workflow runner (workflow-runner.ts). A
 * stage claims one due task under a lease and runs its steps until one has to wait for the chain; every
 * transaction is persisted (txid + signed bytes) in the task's StepRecord before it is sent, and only chain
 * evidence ends a step whose transaction may be out (the money rule).
 */
export class CollectionExecutor extends WorkflowExecutor<CollectionTask> {
  constructor(deps: CollectionExecutorDeps, options: WorkflowOptions = {}) {
    const settings = collectionStepSettings(options);
    const workflow = new CollectionWorkflow(deps, settings, options.confirmations ?? 'solidified', options.energyTimeoutMs ?? 60_000,
      options.staleReadGraceMs ?? STALE_READ_GRACE_MS);
    super(workflow, deps, options, { batch: 100 });
  }
}

/** The plans' settings from the collection workflow options (their defaults here); the fee cap's quote uses them too. */
export function collectionStepSettings(options: WorkflowOptions): StepSettings {
  return {
    burnEnabled: options.burnEnabled ?? false,
    maxBurnSun: options.maxBurnSun ?? null,
    minRecoverSun: options.minRecoverSun ?? MIN_TRX_SWEEP_SUN,
    feeLimitSun: options.feeLimitSun ?? 100n * TRX,
    transferBytes: options.transferBytes ?? 300,
    sunPerByte: options.sunPerByte ?? 1_000n,
  };
}

/** The current step's record: the last one for this status, not completed yet. */
function openStepRecord(task: CollectionTask): StepRecord | undefined {
  const last = task.steps.at(-1);
  return last !== undefined && last.status === task.status && last.completedAt === null ? last : undefined;
}

/** When the status's step started: its first record's start, else when the previous step completed (or the task started). */
function stepStartedAt(task: CollectionTask): number {
  const mine = task.steps.filter((s) => s.status === task.status);
  return mine.length > 0 ? Math.min(...mine.map((s) => s.startedAt)) : task.steps.at(-1)?.completedAt ?? task.startedAt;
}

/** The transaction of an earlier status the step's row awaits, not settled yet (no receipt noted, not proven dead). */
function awaitedOf(task: CollectionTask, row: CollectionStepRow): PreparedTransaction | null {
  if (row.awaits === null) return null;
  const settled = new Set(task.cost?.txids ?? []);
  const status = COLLECTION_STATUS[row.awaits.status];
  return task.steps.find((s) => s.status === status && s.transaction !== null && !settled.has(s.transaction.txid))?.transaction ?? null;
}

/** The task with the record of `tx` completed (a top-up delegation that landed; the wait goes on). */
function closeRecord(task: CollectionTask, tx: PreparedTransaction, now: number): CollectionTask {
  return { ...task, steps: task.steps.map((s) => (s.transaction?.txid === tx.txid ? { ...s, completedAt: now } : s)) };
}

function startedCommand(command: Command, now: number): Command | null {
  const status = commandTransition(command.status, 'start');
  return status === null ? null : { ...command, status, startedAt: now, version: command.version + 1 };
}
