import { collectionStatusName } from '../../domain/collection-machine.js';
import type { AssetRegistry } from '../../domain/assets.js';
import type { ErrorCode } from '../../domain/errors.js';
import type { TransactionState } from '../../domain/model/chain.js';
import { COLLECTION_STATUS, type CollectionStatus, type StepRecord } from '../../domain/model/collection-task.js';
import type { Command, PreparedTransaction } from '../../domain/model/command.js';
import { addReceipt, NO_COST, settleDead } from '../../domain/sweep-cost.js';
import {
  fundingStepRow, fundingTaskView, nextFundingPhase, openFundingRecord, reclaimPhaseAfterFailure, type WithdrawalFunding,
} from '../../domain/withdrawal-funding.js';
import {
  energyReadiness, mayRecover, planAcquireEnergy, planCollecting, planFunding, planRecovery, planTopUp, planUndelegation,
  type StepDeps, type StepPlan, type StepSettings, type StepSubject,
} from './collection-steps.js';
import type { Confirmations } from './write-ahead.js';
import { stepOfRow, WorkflowRefusal, type StepDecision, type WorkflowStep } from './workflow.js';

/** The ports the funded steps read (the collection's step planners' and the asset registry). */
export interface FundedWithdrawalDeps extends StepDeps {
  readonly assets: AssetRegistry;
}

const PHASES = [
  COLLECTION_STATUS.FUNDING_TRX, COLLECTION_STATUS.ACQUIRING_ENERGY, COLLECTION_STATUS.WAIT_ENERGY_READY, COLLECTION_STATUS.COLLECTING,
  COLLECTION_STATUS.UNDELEGATING_ENERGY, COLLECTION_STATUS.RECOVER_TRX,
] as const;

/**
 * The RUNNING steps of a funded withdrawal (core/domain/withdrawal-funding.ts) for the command workflow: each phase
 * is the collection's step-table row (mustFinish, completion, awaits) with the collection's planner
 * (collection-steps.ts) run on the funding seen as a task, so the money protocol stays the runner's alone. The
 * transfer (COLLECTING) is the command's own `transaction`, followed to the funding depth before the delegation is
 * given back; every other transaction is a record in `funding.steps`. What differs from a collection: the transfer
 * moves the withdrawal's amount to its destination (StepSubject.payout), and the end is the command's, with its
 * withdrawal.* event (the workflow's finish).
 */
export class FundedWithdrawalSteps {
  private readonly steps: ReadonlyMap<CollectionStatus, WorkflowStep<Command>>;

  constructor(
    private readonly deps: FundedWithdrawalDeps, private readonly settings: StepSettings, depth: Confirmations,
    private readonly energyTimeoutMs: number,
  ) {
    const planned = (planner: (d: StepDeps, s: StepSettings, subject: StepSubject) => Promise<StepPlan>) =>
      async (command: Command) => this.decide(command, await planner(this.deps, this.settings, this.subjectOf(command)));
    const code: Record<(typeof PHASES)[number], Pick<WorkflowStep<Command>, 'plan' | 'afterConfirmed'>> = {
      [COLLECTION_STATUS.FUNDING_TRX]: { plan: planned(planFunding) },
      [COLLECTION_STATUS.ACQUIRING_ENERGY]: { plan: (c) => this.acquireEnergy(c) },
      [COLLECTION_STATUS.WAIT_ENERGY_READY]: { plan: (c) => this.awaitEnergy(c), afterConfirmed: (c, record, now) => closeRecord(c, record, now) },
      [COLLECTION_STATUS.COLLECTING]: { plan: (c) => this.transfer(c) },
      [COLLECTION_STATUS.UNDELEGATING_ENERGY]: { plan: planned(planUndelegation) },
      [COLLECTION_STATUS.RECOVER_TRX]: { plan: (c) => this.recover(c) },
    };
    const pipelined = (c: Command) => openFundingRecord(c.funding!)?.pipelined === true;
    this.steps = new Map(PHASES.map((phase) => {
      const step = stepOfRow<Command>(fundingStepRow(phase), depth, code[phase], pipelined);
      return [phase, { ...step, name: `withdrawal-${step.name}` }];
    }));
  }

  stepOf(funding: WithdrawalFunding): WorkflowStep<Command> {
    const step = this.steps.get(funding.phase);
    if (step === undefined) throw new WorkflowRefusal(`no funded withdrawal step in ${collectionStatusName(funding.phase)}`);
    return step;
  }

  /** The transfer's record in COLLECTING; else the phase's open funding record. */
  openRecord(command: Command, funding: WithdrawalFunding): PreparedTransaction | null {
    if (funding.phase === COLLECTION_STATUS.COLLECTING) return command.transaction;
    return openFundingRecord(funding)?.transaction ?? null;
  }

  /** As the collection's withRecord: a dropped undelegation stays as a closed record without a transaction. */
  withRecord(command: Command, funding: WithdrawalFunding, record: PreparedTransaction | null): Command {
    if (funding.phase === COLLECTION_STATUS.COLLECTING) return { ...command, transaction: record };
    const open = openFundingRecord(funding);
    if (open === undefined) return command;
    const now = this.deps.clock.now();
    const steps = record === null && open.status === COLLECTION_STATUS.UNDELEGATING_ENERGY
      ? funding.steps.map((s) => (s === open ? { ...s, transaction: null, completedAt: now } : s))
      : record === null ? funding.steps.filter((s) => s !== open) : funding.steps.map((s) => (s === open ? { ...s, transaction: record } : s));
    return { ...command, funding: { ...funding, steps } };
  }

  /** The transaction the phase's row awaits (sent earlier, completed on acceptance), not settled yet. */
  awaited(funding: WithdrawalFunding): PreparedTransaction | null {
    const awaits = fundingStepRow(funding.phase).awaits;
    if (awaits === null) return null;
    const settled = new Set(funding.cost?.txids ?? []);
    const status = COLLECTION_STATUS[awaits.status];
    return funding.steps.find((s) => s.status === status && s.transaction !== null && !settled.has(s.transaction.txid))?.transaction ?? null;
  }

  noteReceipt(funding: WithdrawalFunding, record: PreparedTransaction, state: TransactionState): WithdrawalFunding {
    if (state.state !== 'confirmed' && state.state !== 'failed') return funding;
    const step = funding.steps.find((s) => s.transaction?.txid === record.txid);
    const moved = step?.status === COLLECTION_STATUS.FUNDING_TRX ? { lentSun: step.amount ?? 0n }
      : step?.status === COLLECTION_STATUS.RECOVER_TRX ? { returnedSun: step.amount ?? 0n } : {};
    return { ...funding, cost: addReceipt(funding.cost ?? NO_COST, record.txid, state, moved) };
  }

  noteDead(funding: WithdrawalFunding, record: PreparedTransaction): WithdrawalFunding {
    return { ...funding, cost: settleDead(funding.cost ?? NO_COST, record.txid) };
  }

  /**
   * The phase done: its records closed; after the transfer, the outcome is success. `next`: the funding in its next
   * phase; `end`: the recovery was the last phase, the command ends with the outcome.
   */
  completed(funding: WithdrawalFunding): { readonly next: WithdrawalFunding } | { readonly end: WithdrawalFunding } {
    const now = this.deps.clock.now();
    const closed: WithdrawalFunding = {
      ...funding,
      steps: funding.steps.map((s) => (s.status === funding.phase && s.completedAt === null ? { ...s, completedAt: now } : s)),
      ...(funding.phase === COLLECTION_STATUS.COLLECTING ? { outcome: { ok: true, errorCode: null, lastError: null } } : {}),
    };
    const next = nextFundingPhase(closed);
    return next === null ? { end: closed } : { next: { ...closed, phase: next } };
  }

  /**
   * A failure before the transfer succeeded: null when nothing went out that could be given back (the command ends
   * FAILED at once); else the funding in its reclaim phase with the failure kept as the outcome (the command ends
   * FAILED once the delegation and the float are back).
   */
  failed(funding: WithdrawalFunding, code: ErrorCode, message: string): WithdrawalFunding | null {
    const phase = reclaimPhaseAfterFailure(funding);
    if (phase === null) return null;
    return { ...funding, phase, outcome: { ok: false, errorCode: code, lastError: message } };
  }

  /** ACQUIRING_ENERGY, as a collection's (collection-steps.ts planAcquireEnergy): a recorded rental order is followed; else the plan's source. */
  private async acquireEnergy(command: Command): Promise<StepDecision<Command>> {
    return this.decide(command, await planAcquireEnergy(this.deps, this.settings, this.subjectOf(command), openFundingRecord(command.funding!)?.orderRef));
  }

  /**
   * WAIT_ENERGY_READY, as a collection's (collection-steps.ts energyReadiness and planTopUp): the energy the transfer
   * needs, or the sub-address's TRX to burn for what is missing; on the self-delegation path one top-up delegation;
   * polled up to energyTimeoutMs (then BIZ-ENERGY-TIMEOUT, and the reclaim). A TRX withdrawal needs none.
   */
  private async awaitEnergy(command: Command): Promise<StepDecision<Command>> {
    const funding = command.funding!;
    const now = this.deps.clock.now();
    const waiting = funding.steps.filter((s) => s.status === COLLECTION_STATUS.WAIT_ENERGY_READY);
    const record: StepRecord = { status: COLLECTION_STATUS.WAIT_ENERGY_READY, transaction: null, orderRef: null, startedAt: now, completedAt: null };
    const recorded: Command = waiting.length > 0 ? command : { ...command, funding: { ...funding, steps: [...funding.steps, record] } };
    const subject = this.subjectOf(command);
    if (subject.asset.kind !== 'trc20' || funding.energyPath === 'burn') return { kind: 'complete', subject: recorded };
    const readiness = await energyReadiness(this.deps, subject);
    if (readiness.ready) return { kind: 'complete', subject: recorded };
    const { needed, available } = readiness;
    if (funding.energyPath === 'self' && !waiting.some((s) => s.transaction !== null)) {
      const topUp = await planTopUp(this.deps, subject, needed - available);
      if (topUp !== null) return this.decide(recorded, topUp);
    }
    const since = waiting.length > 0 ? Math.min(...waiting.map((s) => s.startedAt)) : now;
    if (now - since >= this.energyTimeoutMs) {
      return { kind: 'fail', code: 'BIZ-ENERGY-TIMEOUT', message: `sub-address has ${available} of ${needed} energy after ${Math.round(this.energyTimeoutMs / 1000)} s` };
    }
    return { kind: 'wait', subject: recorded };
  }

  /** COLLECTING: the withdrawal's transfer, its record the command's `transaction` (the withdrawal.* event's txid). */
  private async transfer(command: Command): Promise<StepDecision<Command>> {
    const plan = await planCollecting(this.deps, this.settings, this.subjectOf(command));
    if (plan.kind === 'fail') return { kind: 'fail', code: plan.code, message: plan.message };
    if (plan.kind !== 'send') throw new WorkflowRefusal(`withdrawal ${command.commandNo}: the transfer planned no transaction`);
    return { kind: 'send', tx: plan.tx, persist: (record) => ({ ...command, transaction: record }) };
  }

  /** RECOVER_TRX: the TRX float back to the main address once, when the sub-address may hold TRX worth it. */
  private async recover(command: Command): Promise<StepDecision<Command>> {
    const funding = command.funding!;
    const task = fundingTaskView(command, funding);
    const recovered = funding.steps.some((s) => s.status === COLLECTION_STATUS.RECOVER_TRX && s.transaction !== null);
    if (recovered || !mayRecover(this.settings, task)) return { kind: 'complete' };
    const plan = await planRecovery(this.deps, this.settings, this.subjectOf(command));
    return plan.kind === 'send' ? this.decide(command, plan) : { kind: 'complete' };
  }

  /** A planner's answer as the runner's decision, its record and energy path written into the funding. */
  private decide(command: Command, plan: StepPlan): StepDecision<Command> {
    const funding = command.funding!;
    const now = this.deps.clock.now();
    const withFunding = (patch: Partial<WithdrawalFunding>): Command => ({ ...command, funding: { ...funding, ...patch } });
    switch (plan.kind) {
      case 'fail':
        return { kind: 'fail', code: plan.code, message: plan.message };
      case 'skip':
        return { kind: 'complete', subject: plan.energyPath === undefined ? command : withFunding({ energyPath: plan.energyPath }) };
      case 'wait':
        return { kind: 'wait' };
      case 'order': {
        const record: StepRecord = { status: funding.phase, transaction: null, orderRef: plan.orderRef, startedAt: now, completedAt: null };
        return { kind: 'wait', subject: withFunding({ energyPath: plan.energyPath, steps: [...funding.steps, record] }) };
      }
      case 'send':
        return {
          kind: 'send', tx: plan.tx,
          persist: (record) => withFunding({
            energyPath: plan.energyPath ?? funding.energyPath,
            steps: [...funding.steps, {
              status: funding.phase, transaction: record, orderRef: null, amount: plan.amount,
              ...(plan.pipelined === true ? { pipelined: true } : {}), startedAt: now, completedAt: null,
            }],
          }),
        };
    }
  }

  private subjectOf(command: Command): StepSubject {
    const asset = this.deps.assets.find('TRON', command.assetSymbol ?? 'TRX');
    if (asset === null) throw new WorkflowRefusal(`asset ${command.assetSymbol ?? ''} of ${command.commandNo} is not configured`);
    const amount = BigInt(command.params['amount'] ?? '0');
    return { task: fundingTaskView(command, command.funding!), asset, payout: { to: command.params['to_address'] ?? '', amount } };
  }
}

/** The command with the funding record of `tx` completed (a top-up delegation that landed; the energy wait goes on). */
function closeRecord(command: Command, tx: PreparedTransaction, now: number): Command {
  const funding = command.funding!;
  return { ...command, funding: { ...funding, steps: funding.steps.map((s) => (s.transaction?.txid === tx.txid ? { ...s, completedAt: now } : s)) } };
}
