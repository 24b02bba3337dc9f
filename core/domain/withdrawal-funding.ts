import { collectionTransition, COLLECTION_STEPS, collectionStatusName, type CollectionStepRow, type WorkingStatusName } from './collection-machine.js';
import { COLLECTION_STATUS, type CollectionStatus, type CollectionTask, type EnergyPath, type StepRecord } from './model/collection-task.js';
import type { Command, PreparedTransaction } from './model/command.js';
import { ACTIVATION_BANDWIDTH_FEE_SUN, ACTIVATION_FEE_SUN, type SweepPlan } from './sweep-plan.js';
import type { SweepCost } from './sweep-cost.js';

/**
 * A withdrawal from a sub-address that cannot pay its own fees (issue #34 item 3: a refund from the paying
 * sub-address): the main address funds them exactly as it funds a collection's sweep, and the withdrawal walks the
 * collection's TRC20 flow from FUNDING_TRX to RECOVER_TRX (COLLECTION_TRANSITIONS and COLLECTION_STEPS, not a copy):
 * fund the TRX it lacks, acquire the energy, wait for it, send the withdrawal's transfer (its COLLECTING step; the
 * record is the command's `transaction`), give the delegation back, return the TRX float. A TRX withdrawal passes
 * the energy steps through. The command stays RUNNING (and holds its address) until that float is back; then it ends
 * with `outcome`, the transfer's result, and its withdrawal.* event.
 */
export interface WithdrawalFunding {
  /** The main address that pays, captured when the funding was planned. */
  readonly mainAddress: string;
  /** The step of the collection flow the withdrawal is in (FUNDING_TRX … RECOVER_TRX). */
  readonly phase: CollectionStatus;
  /** The plan decided at PENDING (sweep-plan.ts; a TRX withdrawal's has path `none`). */
  readonly plan: SweepPlan;
  readonly energyPath: EnergyPath | null;
  /** The write-ahead records of the funding, energy, undelegation and recovery transactions (never the transfer's). */
  readonly steps: readonly StepRecord[];
  readonly cost?: SweepCost;
  /**
   * The transfer's result, set when it completed or when the withdrawal failed after the funding had put something
   * on the sub-address (the recovery steps then run first); null while the transfer has not ended.
   */
  readonly outcome: { readonly ok: boolean; readonly errorCode: string | null; readonly lastError: string | null } | null;
}

/** The funding steps' table: the collection's own rows, by phase. */
export function fundingStepRow(phase: CollectionStatus): CollectionStepRow {
  return COLLECTION_STEPS[collectionStatusName(phase) as WorkingStatusName];
}

/** The phase after `phase` completes (the collection's TRC20 flow); null when the recovery was the last one. */
export function nextFundingPhase(funding: WithdrawalFunding): CollectionStatus | null {
  const row = fundingStepRow(funding.phase);
  const next = collectionTransition(funding.phase, row.completedBy, { assetKind: 'trc20', energyPath: funding.energyPath });
  return next === null || next === COLLECTION_STATUS.DONE ? null : next;
}

/**
 * Where a withdrawal that failed after its funding went out goes: the delegation back first (only a
 * self-delegation's stake is main's to take back), then the TRX float (reclaim-executor.ts does the same for a
 * failed collection). Null: nothing went out that could be given back (a 1 SUN activation, a rental's energy).
 */
export function reclaimPhaseAfterFailure(funding: WithdrawalFunding): CollectionStatus | null {
  const delegated = funding.energyPath === 'self' && funding.steps.some((s) => s.transaction !== null
    && (s.status === COLLECTION_STATUS.ACQUIRING_ENERGY || s.status === COLLECTION_STATUS.WAIT_ENERGY_READY));
  if (delegated) return COLLECTION_STATUS.UNDELEGATING_ENERGY;
  const funded = funding.steps.some((s) => s.status === COLLECTION_STATUS.FUNDING_TRX && s.transaction !== null && (s.amount ?? 2n) > 1n);
  return funded ? COLLECTION_STATUS.RECOVER_TRX : null;
}

/** Whether the command has put anything on chain: its transfer, or one of its funding's transactions. */
export function commandBroadcast(command: Pick<Command, 'transaction' | 'funding'>): boolean {
  return command.transaction?.broadcastAt != null || (command.funding?.steps ?? []).some((s) => s.transaction !== null);
}

/** The funding's open record: the last one of its phase, not completed (a transaction, or a rental order). */
export function openFundingRecord(funding: WithdrawalFunding): StepRecord | undefined {
  const last = funding.steps.at(-1);
  return last !== undefined && last.status === funding.phase && last.completedAt === null ? last : undefined;
}

/**
 * The funded withdrawal seen as the collection task the collection's step planners read (collection-steps.ts): its
 * addresses, plan, records and cost. The command number stands for the task number (a rental order's reference).
 */
export function fundingTaskView(command: Command, funding: WithdrawalFunding): CollectionTask {
  return {
    taskNo: command.commandNo, commandNo: command.commandNo, userId: command.userId, networkCode: 'TRON',
    assetSymbol: command.assetSymbol ?? 'TRX', address: command.address ?? '', mainAddress: funding.mainAddress,
    status: funding.phase, energyPath: funding.energyPath, steps: funding.steps, sweptAmount: null, sweepTxHash: null,
    errorCode: null, lastError: null, nextRunAt: command.nextRunAt, lease: null, startedAt: command.startedAt ?? command.createdAt,
    finishedAt: null, version: command.version, plan: funding.plan, ...(funding.cost === undefined ? {} : { cost: funding.cost }),
  };
}

/** What the planner of a TRX withdrawal's funding reads from the chain. */
export interface TrxFundingInput {
  readonly amount: bigint;
  readonly subExists: boolean;
  readonly subTrxSun: bigint;
  /** The fees the transfer burns from the sub-address (trxTransferReserveSun: bandwidth, a recipient's creation). */
  readonly reserveSun: bigint;
  readonly mainTrxSun: bigint;
}

/**
 * A TRX withdrawal's plan: FUNDING_TRX sends the sub-address what its transfer's fees need beyond what it holds (the
 * amount itself is never funded: the caller checked the sub-address holds it); path `none`, no energy. Refused when
 * the main address cannot pay that (and, for a sub-address that does not exist yet, the creation fee).
 */
export function planTrxFunding(input: TrxFundingInput): { readonly plan: SweepPlan } | { readonly refusal: string } {
  const need = input.amount + input.reserveSun;
  const missing = need > input.subTrxSun ? need - input.subTrxSun : 0n;
  const fundSun = missing > 0n ? missing : input.subExists ? 0n : 1n;
  const creation = input.subExists ? 0n : ACTIVATION_FEE_SUN + ACTIVATION_BANDWIDTH_FEE_SUN;
  const mainSpends = fundSun + creation;
  if (mainSpends > input.mainTrxSun) return { refusal: `the main address holds ${input.mainTrxSun} SUN, ${mainSpends} SUN needed` };
  const costSun = input.reserveSun + creation;
  return {
    plan: {
      path: 'none', provider: null, energy: 0, activate: !input.subExists, subNeedsSun: need, fundSun, sourceSun: 0n,
      estimatedCostSun: costSun, options: [{ path: 'none', provider: null, costSun, refusal: null }],
    },
  };
}

/** The withdrawal's transfer record while the funding is at its COLLECTING step (null before it was signed). */
export function transferRecord(command: Command): PreparedTransaction | null {
  return command.funding?.phase === COLLECTION_STATUS.COLLECTING ? command.transaction : null;
}
