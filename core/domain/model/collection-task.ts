import type { Lease, Millis, NetworkCode, UserId, Versioned } from './common.js';
import type { SweepPlan } from '../sweep-plan.js';
import type { SweepCost } from '../sweep-cost.js';
import type { PreparedTransaction } from './command.js';

export const COLLECTION_STATUS = {
  PENDING: 1,
  FUNDING_TRX: 2,
  COLLECTING: 6,
  RECOVER_TRX: 8,
  DONE: 11,
  FAILED: 12,
  UNDELEGATING_ENERGY: 15,
  ACQUIRING_ENERGY: 16,
  WAIT_ENERGY_READY: 17,
} as const;
export type CollectionStatus = (typeof COLLECTION_STATUS)[keyof typeof COLLECTION_STATUS];

/** How the task got its energy: planned at PENDING (core/domain/sweep-plan.ts), acquired in ACQUIRING_ENERGY. */
export type EnergyPath = 'self' | 'rental' | 'burn';

/** One step's write-ahead record: the transaction (or rental order) it sent, so a resume never sends twice. */
export interface StepRecord {
  readonly status: CollectionStatus;
  readonly transaction: PreparedTransaction | null;
  /** Third-party rental order reference (idempotency reference sent to the provider). */
  readonly orderRef: string | null;
  /**
   * What the step moves, read from the chain when the step was planned (SUN, or token units for the sweep); for a
   * self-delegation the SUN of stake delegated, which the undelegation step gives back. Absent on older records.
   */
  readonly amount?: bigint | null;
  readonly startedAt: Millis;
  readonly completedAt: Millis | null;
  /**
   * An UNDELEGATING_ENERGY record whose transaction shares a block with the recovery (`pipelined`: the step completes
   * on acceptance and RECOVER_TRX waits for it), or a RECOVER_TRX record that undelegates again (`purpose`) because
   * that pipelined undelegation never landed. Absent on ordinary records.
   */
  readonly pipelined?: boolean;
  readonly purpose?: 'undelegate';
}

/**
 * The post-failure reclaim of a self-delegation task (spec §3 keeps FAILED terminal, so this is not a status):
 * the stake still delegated to the sub-address and its leftover TRX float go back to the main address. Set
 * `pending` in the unit of work that fails the task; the reclaimer leases it (its own lease and schedule, the
 * task's stay untouched) and writes its transactions write-ahead in `steps` (UNDELEGATING_ENERGY, then RECOVER_TRX).
 */
export interface ReclaimRecord {
  readonly status: 'pending' | 'done';
  readonly steps: readonly StepRecord[];
  readonly nextRunAt: Millis;
  readonly lease: Lease | null;
  readonly finishedAt: Millis | null;
}

export interface CollectionTask extends Versioned {
  readonly taskNo: string;
  readonly commandNo: string;
  readonly userId: UserId;
  readonly networkCode: NetworkCode;
  readonly assetSymbol: string;
  /** The sub-address being swept. */
  readonly address: string;
  /** The user's main address for the network, captured at creation. */
  readonly mainAddress: string;
  readonly status: CollectionStatus;
  readonly energyPath: EnergyPath | null;
  readonly steps: readonly StepRecord[];
  readonly sweptAmount: bigint | null;
  readonly sweepTxHash: string | null;
  readonly errorCode: string | null;
  readonly lastError: string | null;
  /** When the worker should look at the task next (claims take due tasks only). */
  readonly nextRunAt: Millis;
  readonly lease: Lease | null;
  readonly startedAt: Millis;
  readonly finishedAt: Millis | null;
  /** Absent: nothing to reclaim (the task did not fail after a self-delegation landed). */
  readonly reclaim?: ReclaimRecord;
  /** The sweep plan decided at PENDING (TRC20 only; absent before that, and on TRX sweeps). */
  readonly plan?: SweepPlan;
  /** What the collection (and its reclaim) actually cost so far, from receipts; absent until a receipt is seen. */
  readonly cost?: SweepCost;
}
