import { formatIsoTime } from '../domain/time.js';
import { COLLECTION_STATUS, type CollectionTask } from '../domain/model/collection-task.js';
import { COMMAND_STATUS, COMMAND_TYPE, type Command } from '../domain/model/command.js';
import type { Millis } from '../domain/model/common.js';
import type { Deposit } from '../domain/model/deposit.js';
import type { JsonValue, WebhookEvent } from '../domain/model/webhook.js';

/**
 * `swept_amount` is an integer in spec §6. A JSON number is exact only up to 2^53 - 1, so larger amounts (above
 * ~9 billion TRX or USDT in one sweep) are sent as a decimal string rather than a rounded number: receivers read
 * the field as an integer of either JSON type (docs/decisions.md).
 */
export function sweptAmountJson(amount: bigint): JsonValue {
  return amount <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(amount) : amount.toString(10);
}

/**
 * The outbox entry for a task that reached DONE or FAILED: spec §6 common fields plus the collection.* fields, all
 * top level. Throws RangeError for a task that is not terminal (only terminal states emit events).
 */
export function collectionEvent(task: CollectionTask, eventId: string, occurredAt: Millis): WebhookEvent {
  const done = task.status === COLLECTION_STATUS.DONE;
  if (!done && task.status !== COLLECTION_STATUS.FAILED) throw new RangeError(`task ${task.taskNo} is not terminal`);
  const eventType = done ? 'collection.completed' : 'collection.failed';
  const payload: Record<string, JsonValue> = {
    event_id: eventId,
    event_type: eventType,
    occurred_at: formatIsoTime(occurredAt),
    task_no: task.taskNo,
    status: task.status,
    network_code: task.networkCode,
    asset_symbol: task.assetSymbol,
    address: task.address,
    swept_amount: done && task.sweptAmount !== null ? sweptAmountJson(task.sweptAmount) : null,
    sweep_tx_hash: done ? task.sweepTxHash : null,
    credited_at: done ? formatIsoTime(task.finishedAt ?? occurredAt) : null,
    error: done ? null : (task.lastError ?? task.errorCode ?? 'collection failed'),
  };
  return { eventId, userId: task.userId, eventType, occurredAt, payload, dispatched: false };
}

/**
 * The outbox entry for a withdrawal that reached SUCCESS (broadcast, txid known) or FAILED: spec §6 common fields
 * plus the withdrawal.* fields. Throws RangeError for any other command.
 */
export function withdrawalEvent(command: Command, eventId: string, occurredAt: Millis): WebhookEvent {
  const ok = command.status === COMMAND_STATUS.SUCCESS;
  // REJECTED: a withdrawal its approver denied or did not approve in time (issue #26); its event carries status 5.
  if (command.type !== COMMAND_TYPE.WITHDRAWAL || (!ok && command.status !== COMMAND_STATUS.FAILED && command.status !== COMMAND_STATUS.REJECTED)) {
    throw new RangeError(`command ${command.commandNo} is not a finished withdrawal`);
  }
  const eventType = ok ? 'withdrawal.completed' : 'withdrawal.failed';
  const payload: Record<string, JsonValue> = {
    event_id: eventId,
    event_type: eventType,
    occurred_at: formatIsoTime(occurredAt),
    command_no: command.commandNo,
    status: command.status,
    txid: ok ? (command.transaction?.txid ?? null) : null,
    error: ok ? null : (command.lastError ?? command.errorCode ?? 'withdrawal failed'),
    finished_at: formatIsoTime(command.finishedAt ?? occurredAt),
  };
  return { eventId, userId: command.userId, eventType, occurredAt, payload, dispatched: false };
}

/** The deposit.* event a deposit status announces. */
const DEPOSIT_EVENT_TYPES = { pending: 'deposit.pending', confirmed: 'deposit.confirmed', reverted: 'deposit.reverted' } as const;

/**
 * The outbox entry for a deposit that just reached its status (issue #24): the spec §6 common fields plus the
 * deposit's, all top level; `amount` is an integer string. `confirmations` counts the blocks of the scanned chain from
 * the including block to `head`, both counted (0 when reverted, never negative).
 */
export function depositEvent(deposit: Deposit, eventId: string, occurredAt: Millis, head: number): WebhookEvent {
  const eventType = DEPOSIT_EVENT_TYPES[deposit.status];
  const payload: Record<string, JsonValue> = {
    event_id: eventId,
    event_type: eventType,
    occurred_at: formatIsoTime(occurredAt),
    deposit_id: deposit.depositId,
    network_code: deposit.networkCode,
    asset_symbol: deposit.assetSymbol,
    address: deposit.address,
    amount: deposit.amount.toString(10),
    from_address: deposit.fromAddress,
    txid: deposit.txid,
    block_number: deposit.blockNumber,
    confirmations: deposit.status === 'reverted' ? 0 : Math.max(0, head - deposit.blockNumber + 1),
  };
  return { eventId, userId: deposit.userId, eventType, occurredAt, payload, dispatched: false };
}
