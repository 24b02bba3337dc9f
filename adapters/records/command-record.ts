import { COMMAND_STATUS, COMMAND_TYPE, type Command, type CommandStatus, type CommandType, type PreparedTransaction } from '../../core/domain/model/command.js';
import {
  fromStoredCost, fromStoredPlan, fromStoredStep, toStoredCost, toStoredPlan, toStoredStep,
  type StoredStep, type StoredSweepCost, type StoredSweepPlan,
} from './collection-task-record.js';
import type { CollectionStatus, EnergyPath } from '../../core/domain/model/collection-task.js';
import type { WithdrawalFunding } from '../../core/domain/withdrawal-funding.js';
import { decodeMoney, encodeMoney, nullable } from './record-support.js';
import { fromStoredApproval, toStoredApproval, type StoredCommandApproval } from './withdrawal-policy-record.js';
import { describeRecord } from './record-descriptor.js';
import { fromStoredLease, leaseColumns, toStoredLease, type StoredLease } from './lease-record.js';

/** A signed transaction as stored: written before broadcast, so a resumed step can look the txid up. */
export interface StoredPreparedTransaction {
  txid: string;
  signedJson: string;
  expiresAt: number;
  broadcastAt: number | null;
  /** Absent on records written before refusals were kept; the domain value then has none either. */
  refusal?: string | null;
}

/** Domain value -> stored record: pure, a fresh object (amounts, where any, as decimal strings). */
export function toStoredTransaction(tx: PreparedTransaction | null): StoredPreparedTransaction | null {
  if (tx === null) return null;
  const doc: StoredPreparedTransaction = { txid: tx.txid, signedJson: tx.signedJson, expiresAt: tx.expiresAt, broadcastAt: tx.broadcastAt };
  if (tx.refusal !== undefined) doc.refusal = tx.refusal;
  return doc;
}

/** Stored record -> domain value; null and a missing field both read as null. */
export function fromStoredTransaction(doc: StoredPreparedTransaction | null | undefined): PreparedTransaction | null {
  if (doc === null || doc === undefined) return null;
  const tx: PreparedTransaction = { txid: doc.txid, signedJson: doc.signedJson, expiresAt: doc.expiresAt, broadcastAt: nullable(doc.broadcastAt) };
  return doc.refusal === undefined ? tx : { ...tx, refusal: nullable(doc.refusal) };
}

/**
 * `commands`: `id` is command_no. `params` is a list of pairs so that no caller-chosen key ever becomes a field name.
 * How a store marks the holder of an address's lock (see holdsAddressLock) is its own business, not the record's.
 */
export interface StoredCommand {
  id: string;
  userId: number;
  type: CommandType;
  status: CommandStatus;
  address: string | null;
  assetSymbol: string | null;
  lockedAmount: string;
  params: { name: string; value: string }[];
  transaction: StoredPreparedTransaction | null;
  errorCode: string | null;
  lastError: string | null;
  createdAt: number;
  startedAt: number | null;
  finishedAt: number | null;
  /** The runner's schedule and claim (absent on commands written before the runner: due at once, unclaimed). */
  nextRunAt?: number;
  lease?: StoredLease | null;
  /** A withdrawal's approval sub-state (issue #26); absent on commands that need none. */
  approval?: StoredCommandApproval | null;
  /** A funded withdrawal's funding (issue #34); absent on commands that have none. */
  funding?: StoredWithdrawalFunding | null;
  version: number;
}

/** A funded withdrawal's funding as stored: its plan, records and cost as a collection task stores them. */
export interface StoredWithdrawalFunding {
  mainAddress: string;
  phase: CollectionStatus;
  plan: StoredSweepPlan;
  energyPath: EnergyPath | null;
  steps: StoredStep[];
  cost?: StoredSweepCost;
  outcome: { ok: boolean; errorCode: string | null; lastError: string | null } | null;
}

function toStoredFunding(f: WithdrawalFunding): StoredWithdrawalFunding {
  return {
    mainAddress: f.mainAddress, phase: f.phase, plan: toStoredPlan(f.plan), energyPath: f.energyPath, steps: f.steps.map(toStoredStep),
    ...(f.cost === undefined ? {} : { cost: toStoredCost(f.cost) }), outcome: f.outcome === null ? null : { ...f.outcome },
  };
}

function fromStoredFunding(doc: StoredWithdrawalFunding): WithdrawalFunding {
  return {
    mainAddress: doc.mainAddress, phase: doc.phase, plan: fromStoredPlan(doc.plan), energyPath: nullable(doc.energyPath),
    steps: doc.steps.map(fromStoredStep), ...(doc.cost === undefined ? {} : { cost: fromStoredCost(doc.cost) }),
    outcome: doc.outcome == null ? null : { ok: doc.outcome.ok, errorCode: nullable(doc.outcome.errorCode), lastError: nullable(doc.outcome.lastError) },
  };
}

/** Whether the command holds its address's lock (DESIGN.md "Commands": every type but QUERY moves funds). */
export function holdsAddressLock(command: Pick<Command, 'type' | 'status' | 'address'>): boolean {
  return (
    command.address !== null &&
    command.type !== COMMAND_TYPE.QUERY &&
    (command.status === COMMAND_STATUS.PENDING || command.status === COMMAND_STATUS.RUNNING)
  );
}

/** Domain value -> stored record: pure, a fresh object (a store's lock marker and insertion order are the writer's). */
export function toStoredCommand(command: Command): StoredCommand {
  return {
    id: command.commandNo,
    userId: command.userId,
    type: command.type,
    status: command.status,
    address: command.address,
    assetSymbol: command.assetSymbol,
    lockedAmount: encodeMoney(command.lockedAmount),
    params: Object.entries(command.params).map(([name, value]) => ({ name, value })),
    transaction: toStoredTransaction(command.transaction),
    errorCode: command.errorCode,
    lastError: command.lastError,
    createdAt: command.createdAt,
    startedAt: command.startedAt,
    finishedAt: command.finishedAt,
    nextRunAt: command.nextRunAt,
    lease: toStoredLease(command.lease),
    version: command.version,
    // Last, and only when there is one: documents written before issue #26 keep their shape.
    ...(command.approval == null ? {} : { approval: toStoredApproval(command.approval) }),
    ...(command.funding == null ? {} : { funding: toStoredFunding(command.funding) }),
  };
}

/** Stored record -> domain value; null and a missing field both read as null. */
export function fromStoredCommand(doc: StoredCommand): Command {
  // fromEntries defines own properties, so even a `__proto__` name stays plain data.
  const params: Record<string, string> = Object.fromEntries(doc.params.map(({ name, value }) => [name, value]));
  return {
    commandNo: doc.id,
    userId: doc.userId,
    type: doc.type,
    status: doc.status,
    address: nullable(doc.address),
    assetSymbol: nullable(doc.assetSymbol),
    lockedAmount: decodeMoney(doc.lockedAmount, 'command lockedAmount'),
    params,
    transaction: fromStoredTransaction(doc.transaction),
    errorCode: nullable(doc.errorCode),
    lastError: nullable(doc.lastError),
    createdAt: doc.createdAt,
    startedAt: nullable(doc.startedAt),
    finishedAt: nullable(doc.finishedAt),
    // Commands stored before the workflow runner have neither: due since their creation, unclaimed.
    nextRunAt: doc.nextRunAt ?? doc.createdAt,
    lease: fromStoredLease(doc.lease ?? null),
    ...(doc.approval == null ? {} : { approval: fromStoredApproval(doc.approval) }),
    ...(doc.funding == null ? {} : { funding: fromStoredFunding(doc.funding) }),
    version: doc.version,
  };
}

/**
 * Commands. The lease is in two columns (its claim filters on them); a command stored before the runner reads as due
 * at its creation. How a store marks the holder of an address's lock stays the store's own column.
 */
export const COMMAND_RECORD = describeRecord({
  name: 'command', table: 'commands', collection: 'commands', encode: toStoredCommand, decode: fromStoredCommand,
  fields: {
    id: 'command_no', userId: 'user_id', type: 'type', status: 'status', address: 'address', assetSymbol: 'asset_symbol',
    lockedAmount: 'locked_amount', params: { column: 'params', codec: 'jsonb' }, transaction: { column: 'transaction', codec: 'jsonb' },
    errorCode: 'error_code', lastError: 'last_error', createdAt: 'created_at', startedAt: 'started_at', finishedAt: 'finished_at',
    nextRunAt: { column: 'next_run_at', absent: (record) => record.createdAt }, lease: leaseColumns(),
    approval: { column: 'approval', codec: 'jsonb' }, funding: { column: 'funding', codec: 'jsonb' }, version: 'version',
  },
});
