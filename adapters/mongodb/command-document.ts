import { COMMAND_STATUS, COMMAND_TYPE, type Command, type CommandStatus, type CommandType, type PreparedTransaction } from '../../core/domain/model/command.js';
import { fromLeaseDocument, toLeaseDocument, type LeaseDocument } from './collection-task-document.js';
import { decodeMoney, encodeMoney, nullable } from './mongo-support.js';

/** A signed transaction as stored: written before broadcast, so a resumed step can look the txid up. */
export interface PreparedTransactionDocument {
  txid: string;
  signedJson: string;
  expiresAt: number;
  broadcastAt: number | null;
  /** Absent on records written before refusals were kept; the domain value then has none either. */
  refusal?: string | null;
}

/** Domain value -> stored document: pure, a fresh object (amounts, where any, as decimal strings). */
export function toTransactionDocument(tx: PreparedTransaction | null): PreparedTransactionDocument | null {
  if (tx === null) return null;
  const doc: PreparedTransactionDocument = { txid: tx.txid, signedJson: tx.signedJson, expiresAt: tx.expiresAt, broadcastAt: tx.broadcastAt };
  if (tx.refusal !== undefined) doc.refusal = tx.refusal;
  return doc;
}

/** Stored document -> domain value; BSON null and a missing field both read as null. */
export function fromTransactionDocument(doc: PreparedTransactionDocument | null | undefined): PreparedTransaction | null {
  if (doc === null || doc === undefined) return null;
  const tx: PreparedTransaction = { txid: doc.txid, signedJson: doc.signedJson, expiresAt: doc.expiresAt, broadcastAt: nullable(doc.broadcastAt) };
  return doc.refusal === undefined ? tx : { ...tx, refusal: nullable(doc.refusal) };
}

/**
 * `commands`: `_id` is command_no. `lockedAddress` is present only while the command holds its address's lock
 * (fund-moving, PENDING or RUNNING); a unique index partial on its existence makes "one active fund-moving command per
 * address" a store rule. `params` is a list of pairs so that no caller-chosen key ever becomes a field name.
 */
export interface CommandDocument {
  _id: string;
  userId: number;
  type: CommandType;
  status: CommandStatus;
  address: string | null;
  assetSymbol: string | null;
  lockedAmount: string;
  params: { name: string; value: string }[];
  transaction: PreparedTransactionDocument | null;
  errorCode: string | null;
  lastError: string | null;
  createdAt: number;
  startedAt: number | null;
  finishedAt: number | null;
  /** The runner's schedule and claim (absent on commands written before the runner: due at once, unclaimed). */
  nextRunAt?: number;
  lease?: LeaseDocument | null;
  version: number;
  /** Insertion order, the tie-break of "newest first" (see insertionStamp). Set on insert only. */
  insertedSeq?: number;
  lockedAddress?: string;
}

/** Whether the command holds its address's lock (DESIGN.md "Commands": every type but QUERY moves funds). */
export function holdsAddressLock(command: Pick<Command, 'type' | 'status' | 'address'>): boolean {
  return (
    command.address !== null &&
    command.type !== COMMAND_TYPE.QUERY &&
    (command.status === COMMAND_STATUS.PENDING || command.status === COMMAND_STATUS.RUNNING)
  );
}

/** The document without lock marker or insertion stamp: those are decided by the writer, not the mapping. */
export function toCommandDocument(command: Command): CommandDocument {
  return {
    _id: command.commandNo,
    userId: command.userId,
    type: command.type,
    status: command.status,
    address: command.address,
    assetSymbol: command.assetSymbol,
    lockedAmount: encodeMoney(command.lockedAmount),
    params: Object.entries(command.params).map(([name, value]) => ({ name, value })),
    transaction: toTransactionDocument(command.transaction),
    errorCode: command.errorCode,
    lastError: command.lastError,
    createdAt: command.createdAt,
    startedAt: command.startedAt,
    finishedAt: command.finishedAt,
    nextRunAt: command.nextRunAt,
    lease: toLeaseDocument(command.lease),
    version: command.version,
  };
}

/** Stored document -> domain value; BSON null and a missing field both read as null. */
export function fromCommandDocument(doc: CommandDocument): Command {
  // fromEntries defines own properties, so even a `__proto__` name stays plain data.
  const params: Record<string, string> = Object.fromEntries(doc.params.map(({ name, value }) => [name, value]));
  return {
    commandNo: doc._id,
    userId: doc.userId,
    type: doc.type,
    status: doc.status,
    address: nullable(doc.address),
    assetSymbol: nullable(doc.assetSymbol),
    lockedAmount: decodeMoney(doc.lockedAmount, 'command lockedAmount'),
    params,
    transaction: fromTransactionDocument(doc.transaction),
    errorCode: nullable(doc.errorCode),
    lastError: nullable(doc.lastError),
    createdAt: doc.createdAt,
    startedAt: nullable(doc.startedAt),
    finishedAt: nullable(doc.finishedAt),
    // Commands stored before the workflow runner have neither: due since their creation, unclaimed.
    nextRunAt: doc.nextRunAt ?? doc.createdAt,
    lease: fromLeaseDocument(doc.lease ?? null),
    version: doc.version,
  };
}
