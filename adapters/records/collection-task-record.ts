import type { NetworkCode } from '../../core/domain/model/common.js';
import type { CollectionStatus, CollectionTask, EnergyPath, ReclaimRecord, StepRecord } from '../../core/domain/model/collection-task.js';
import type { SweepPlan } from '../../core/domain/sweep-plan.js';
import type { SweepCost } from '../../core/domain/sweep-cost.js';
import { fromStoredTransaction, toStoredTransaction, type StoredPreparedTransaction } from './command-record.js';
import { decodeMoney, decodeOptionalMoney, encodeMoney, encodeOptionalMoney, nullable } from './record-support.js';
import { describeRecord } from './record-descriptor.js';
import { fromStoredLease, leaseColumns, toStoredLease, type StoredLease } from './lease-record.js';

/** One step of a collection task as stored (its prepared transaction embedded). */
export interface StoredStep {
  status: CollectionStatus;
  transaction: StoredPreparedTransaction | null;
  orderRef: string | null;
  /** StepRecord.amount as a decimal string; absent on records written before the field existed. */
  amount?: string | null;
  startedAt: number;
  completedAt: number | null;
  pipelined?: boolean;
  purpose?: 'undelegate';
}

/** The post-failure reclaim as stored (its own lease and schedule, its steps like the task's). */
export interface StoredReclaim {
  status: 'pending' | 'done';
  steps: StoredStep[];
  nextRunAt: number;
  lease: StoredLease | null;
  finishedAt: number | null;
}

/** `collection_tasks`: `id` is task_no; claims filter on (status, nextRunAt) and the lease. */
export interface StoredCollectionTask {
  id: string;
  commandNo: string;
  userId: number;
  networkCode: NetworkCode;
  assetSymbol: string;
  address: string;
  mainAddress: string;
  status: CollectionStatus;
  energyPath: EnergyPath | null;
  steps: StoredStep[];
  sweptAmount: string | null;
  sweepTxHash: string | null;
  errorCode: string | null;
  lastError: string | null;
  nextRunAt: number;
  lease: StoredLease | null;
  startedAt: number;
  finishedAt: number | null;
  version: number;
  /** Absent when the task has nothing to reclaim. */
  reclaim?: StoredReclaim;
  /** The sweep plan (amounts as decimal strings); absent before PENDING planned it and on TRX sweeps. */
  plan?: StoredSweepPlan;
  /** What the sweep cost so far (receipts); absent until one was seen. */
  cost?: StoredSweepCost;
}

/** A sweep's cost as stored: SUN amounts as decimal strings. */
export interface StoredSweepCost {
  bandwidthSun: string;
  energySun: string;
  activationSun: string;
  rentalSun: string;
  lentSun: string;
  returnedSun: string;
  txids: string[];
}

export function toStoredCost(cost: SweepCost): StoredSweepCost {
  return {
    bandwidthSun: encodeMoney(cost.bandwidthSun), energySun: encodeMoney(cost.energySun), activationSun: encodeMoney(cost.activationSun),
    rentalSun: encodeMoney(cost.rentalSun), lentSun: encodeMoney(cost.lentSun), returnedSun: encodeMoney(cost.returnedSun), txids: [...cost.txids],
  };
}

export function fromStoredCost(doc: StoredSweepCost): SweepCost {
  const m = (v: string, f: string) => decodeMoney(v, `cost ${f}`);
  return {
    bandwidthSun: m(doc.bandwidthSun, 'bandwidthSun'), energySun: m(doc.energySun, 'energySun'), activationSun: m(doc.activationSun, 'activationSun'),
    rentalSun: m(doc.rentalSun, 'rentalSun'), lentSun: m(doc.lentSun, 'lentSun'), returnedSun: m(doc.returnedSun, 'returnedSun'), txids: [...doc.txids],
  };
}

/** A sweep plan as stored: its SUN amounts as decimal strings. */
export interface StoredSweepPlan {
  path: SweepPlan['path'];
  provider: string | null;
  energy: number;
  activate: boolean;
  subNeedsSun: string;
  fundSun: string;
  sourceSun: string;
  estimatedCostSun: string;
  options: { path: SweepPlan['path']; provider: string | null; costSun: string; refusal: string | null }[];
  /** SweepPlan.dryRun, amounts as decimal strings. */
  dryRun?: { amount: string; energy: number; subTrxSun: string; at: number; factor?: number; period?: number };
}

export function toStoredPlan(plan: SweepPlan): StoredSweepPlan {
  return {
    path: plan.path, provider: plan.provider, energy: plan.energy, activate: plan.activate,
    subNeedsSun: encodeMoney(plan.subNeedsSun), fundSun: encodeMoney(plan.fundSun), sourceSun: encodeMoney(plan.sourceSun),
    estimatedCostSun: encodeMoney(plan.estimatedCostSun),
    options: plan.options.map((o) => ({ path: o.path, provider: o.provider, costSun: encodeMoney(o.costSun), refusal: o.refusal })),
    ...(plan.dryRun === undefined ? {} : {
      dryRun: {
        amount: encodeMoney(plan.dryRun.amount), energy: plan.dryRun.energy, subTrxSun: encodeMoney(plan.dryRun.subTrxSun), at: plan.dryRun.at,
        ...(plan.dryRun.factor === undefined ? {} : { factor: plan.dryRun.factor }),
        ...(plan.dryRun.period === undefined ? {} : { period: plan.dryRun.period }),
      },
    }),
  };
}

export function fromStoredPlan(doc: StoredSweepPlan): SweepPlan {
  return {
    path: doc.path, provider: nullable(doc.provider), energy: doc.energy, activate: doc.activate,
    subNeedsSun: decodeMoney(doc.subNeedsSun, 'plan subNeedsSun'), fundSun: decodeMoney(doc.fundSun, 'plan fundSun'),
    sourceSun: decodeMoney(doc.sourceSun, 'plan sourceSun'),
    estimatedCostSun: decodeMoney(doc.estimatedCostSun, 'plan estimatedCostSun'),
    options: doc.options.map((o) => ({ path: o.path, provider: nullable(o.provider), costSun: decodeMoney(o.costSun, 'plan option costSun'), refusal: nullable(o.refusal) })),
    ...(doc.dryRun == null ? {} : {
      dryRun: {
        amount: decodeMoney(doc.dryRun.amount, 'plan dryRun amount'), energy: doc.dryRun.energy,
        subTrxSun: decodeMoney(doc.dryRun.subTrxSun, 'plan dryRun subTrxSun'), at: doc.dryRun.at,
        ...(typeof doc.dryRun.factor === 'number' ? { factor: doc.dryRun.factor } : {}),
        ...(typeof doc.dryRun.period === 'number' ? { period: doc.dryRun.period } : {}),
      },
    }),
  };
}

export function toStoredStep(step: StepRecord): StoredStep {
  return {
    status: step.status,
    transaction: toStoredTransaction(step.transaction),
    orderRef: step.orderRef,
    ...(step.amount != null ? { amount: encodeMoney(step.amount) } : {}),
    startedAt: step.startedAt,
    completedAt: step.completedAt,
    ...(step.pipelined === true ? { pipelined: true } : {}),
    ...(step.purpose === undefined ? {} : { purpose: step.purpose }),
  };
}

export function fromStoredStep(doc: StoredStep): StepRecord {
  return {
    status: doc.status,
    transaction: fromStoredTransaction(doc.transaction),
    orderRef: nullable(doc.orderRef),
    ...(doc.amount != null ? { amount: decodeMoney(doc.amount, 'steps.amount') } : {}),
    startedAt: doc.startedAt,
    completedAt: nullable(doc.completedAt),
    ...(doc.pipelined === true ? { pipelined: true } : {}),
    ...(doc.purpose === 'undelegate' ? { purpose: 'undelegate' as const } : {}),
  };
}

function toStoredReclaim(r: ReclaimRecord): StoredReclaim {
  return { status: r.status, steps: r.steps.map(toStoredStep), nextRunAt: r.nextRunAt, lease: toStoredLease(r.lease), finishedAt: r.finishedAt };
}

function fromStoredReclaim(doc: StoredReclaim): ReclaimRecord {
  return {
    status: doc.status, steps: doc.steps.map(fromStoredStep), nextRunAt: doc.nextRunAt,
    lease: fromStoredLease(doc.lease), finishedAt: nullable(doc.finishedAt),
  };
}

/** Domain value -> stored record: pure, a fresh object (amounts, where any, as decimal strings). */
export function toStoredCollectionTask(task: CollectionTask): StoredCollectionTask {
  return {
    id: task.taskNo,
    commandNo: task.commandNo,
    userId: task.userId,
    networkCode: task.networkCode,
    assetSymbol: task.assetSymbol,
    address: task.address,
    mainAddress: task.mainAddress,
    status: task.status,
    energyPath: task.energyPath,
    steps: task.steps.map(toStoredStep),
    sweptAmount: encodeOptionalMoney(task.sweptAmount),
    sweepTxHash: task.sweepTxHash,
    errorCode: task.errorCode,
    lastError: task.lastError,
    nextRunAt: task.nextRunAt,
    lease: toStoredLease(task.lease),
    startedAt: task.startedAt,
    finishedAt: task.finishedAt,
    version: task.version,
    ...(task.reclaim === undefined ? {} : { reclaim: toStoredReclaim(task.reclaim) }),
    ...(task.plan === undefined ? {} : { plan: toStoredPlan(task.plan) }),
    ...(task.cost === undefined ? {} : { cost: toStoredCost(task.cost) }),
  };
}

/** Stored record -> domain value; null and a missing field both read as null. */
export function fromStoredCollectionTask(doc: StoredCollectionTask): CollectionTask {
  return {
    taskNo: doc.id,
    commandNo: doc.commandNo,
    userId: doc.userId,
    networkCode: doc.networkCode,
    assetSymbol: doc.assetSymbol,
    address: doc.address,
    mainAddress: doc.mainAddress,
    status: doc.status,
    energyPath: nullable(doc.energyPath),
    steps: doc.steps.map(fromStoredStep),
    sweptAmount: decodeOptionalMoney(doc.sweptAmount, 'task sweptAmount'),
    sweepTxHash: nullable(doc.sweepTxHash),
    errorCode: nullable(doc.errorCode),
    lastError: nullable(doc.lastError),
    nextRunAt: doc.nextRunAt,
    lease: fromStoredLease(doc.lease),
    startedAt: doc.startedAt,
    finishedAt: nullable(doc.finishedAt),
    version: doc.version,
    ...(doc.reclaim == null ? {} : { reclaim: fromStoredReclaim(doc.reclaim) }),
    ...(doc.plan == null ? {} : { plan: fromStoredPlan(doc.plan) }),
    ...(doc.cost == null ? {} : { cost: fromStoredCost(doc.cost) }),
  };
}

/**
 * Collection tasks. The lease is in two columns (its claim filters on it); the reclaim is kept whole as JSONB, and its
 * status, schedule and lease expiry are copied into columns for the reclaim claim (written, never read back).
 */
export const COLLECTION_TASK_RECORD = describeRecord({
  name: 'collection task', table: 'collection_tasks', collection: 'collection_tasks',
  encode: toStoredCollectionTask, decode: fromStoredCollectionTask,
  fields: {
    id: 'task_no', commandNo: 'command_no', userId: 'user_id', networkCode: 'network_code', assetSymbol: 'asset_symbol',
    address: 'address', mainAddress: 'main_address', status: 'status', energyPath: 'energy_path',
    steps: { column: 'steps', codec: 'jsonb' }, sweptAmount: 'swept_amount', sweepTxHash: 'sweep_tx_hash', errorCode: 'error_code',
    lastError: 'last_error', nextRunAt: 'next_run_at', lease: leaseColumns(), startedAt: 'started_at', finishedAt: 'finished_at',
    reclaim: {
      column: 'reclaim', codec: 'jsonb', copies: {
        reclaim_status: (reclaim) => reclaim?.status, reclaim_next_run_at: (reclaim) => reclaim?.nextRunAt,
        reclaim_lease_expires_at: (reclaim) => reclaim?.lease?.expiresAt,
      },
    },
    plan: { column: 'plan', codec: 'jsonb' }, cost: { column: 'cost', codec: 'jsonb' }, version: 'version',
  },
});
