import { formatAmount } from '../domain/amount.js';
import type { ErrorCode } from '../domain/errors.js';
import { formatIsoTime, formatWalletTime } from '../domain/time.js';
import type { CashierToken } from '../domain/model/cashier-token.js';
import type { ChainResources } from '../domain/model/chain.js';
import { COLLECTION_STATUS, type CollectionTask } from '../domain/model/collection-task.js';
import { COMMAND_STATUS, COMMAND_TYPE, type Command } from '../domain/model/command.js';
import type { Millis } from '../domain/model/common.js';
import type { WalletAddress } from '../domain/model/wallet.js';
import type { CommandApproval } from '../domain/model/withdrawal-policy.js';
import type {
  CashierTaskView, CashierTokenView, ChainResourcesView, CollectionTaskListItemView, CollectionTaskView, CommandApprovalView,
  CommandListItemView, CommandView, WalletView, WithdrawalCommandView,
} from './views.js';

/** Which timestamp rendering a view uses: wallet side (`YYYY-MM-DD HH:MM:SS` UTC) or ISO 8601 with offset. */
export type TimeFormat = (ms: Millis) => string;

function orNull(ms: Millis | null, format: TimeFormat): string | null {
  return ms === null ? null : format(ms);
}

/** Spec §2 wallet address record. */
export function toWalletView(wallet: WalletAddress): WalletView {
  return {
    wallet_address_id: wallet.id,
    network_code: wallet.networkCode,
    address: wallet.address,
    address_type: wallet.addressType,
    address_label: wallet.label,
    status: wallet.status,
    created_at: formatWalletTime(wallet.createdAt),
  };
}

/** Spec §2 command without created_at (GET /commands/{commandNo}). */
export function toCommandView(command: Command): CommandView {
  return {
    command_no: command.commandNo,
    type: command.type,
    status: command.status,
    error_code: command.errorCode,
    last_error: command.lastError,
    started_at: orNull(command.startedAt, formatWalletTime),
    finished_at: orNull(command.finishedAt, formatWalletTime),
    ...(command.approval == null ? {} : { approval: toApprovalView(command.approval) }),
  };
}

/**
 * GET /commands/{commandNo}: the spec's fields, and for a withdrawal what it sends where (issue #34, extensions): the
 * txid once the transaction may have been broadcast (stamped before the send; a FAILED one may name a transaction the
 * chain refused or never included); a refund also names the payment request it refunds (`refund_of`, issue #36).
 */
export function toCommandDetailView(command: Command): CommandView | WithdrawalCommandView {
  const view = toCommandView(command);
  if (command.type !== COMMAND_TYPE.WITHDRAWAL) return view;
  const tx = command.transaction;
  return {
    ...view,
    asset_symbol: command.assetSymbol ?? '',
    amount: command.params['amount'] ?? formatAmount(command.lockedAmount),
    to_address: command.params['to_address'] ?? '',
    // A SUCCESS written before broadcastAt existed still names its transaction, as its withdrawal.completed did.
    txid: tx !== null && (tx.broadcastAt !== null || command.status === COMMAND_STATUS.SUCCESS) ? tx.txid : null,
    // Issue #36: a refund names the payment request it refunds.
    ...(command.params['refund_of'] === undefined ? {} : { refund_of: command.params['refund_of'] }),
  };
}

/** A withdrawal's approval sub-state (issue #26); wallet-side times like the rest of the command. */
export function toApprovalView(approval: CommandApproval): CommandApprovalView {
  return {
    state: approval.state,
    expires_at: formatWalletTime(approval.deadline),
    attempts: approval.attempts,
    last_attempt_at: orNull(approval.lastAttemptAt, formatWalletTime),
    last_refusal: approval.lastRefusal,
    decided_at: orNull(approval.decidedAt, formatWalletTime),
    requested_by: approval.requestedBy ?? null,
    decided_by: approval.decidedBy ?? null,
  };
}

/** A command of GET /commands. */
export function toCommandListItemView(command: Command): CommandListItemView {
  return { ...toCommandView(command), created_at: formatWalletTime(command.createdAt) };
}

/** The wallet-side task (POST/GET /collections). */
export function toTaskView(task: CollectionTask): CollectionTaskView {
  return {
    task_no: task.taskNo,
    command_no: task.commandNo,
    status: task.status,
    error_code: task.errorCode,
    last_error: task.lastError,
    started_at: formatWalletTime(task.startedAt),
    finished_at: orNull(task.finishedAt, formatWalletTime),
  };
}

/** A task of GET /collections (issue #34): the wallet-side task and what it swept from where. */
export function toTaskListItemView(task: CollectionTask): CollectionTaskListItemView {
  const done = task.status === COLLECTION_STATUS.DONE;
  return {
    ...toTaskView(task),
    address: task.address,
    asset_symbol: task.assetSymbol,
    swept_amount: done && task.sweptAmount !== null ? formatAmount(task.sweptAmount) : null,
    sweep_tx_hash: done ? task.sweepTxHash : null,
  };
}

/**
 * What a payer is told about a failed collection: a plain reason chosen by the task's catalogue code, never the stored
 * last_error (node text, txids, addresses and the operator's notes are for the merchant's API only, issue #13).
 */
const PAYER_REASONS: Partial<Record<ErrorCode, string>> = {
  'BIZ-NOTHING-TO-COLLECT': 'nothing to collect: the address holds none of this asset',
  'BIZ-INSUFFICIENT-BALANCE': 'the balance is too low for this collection',
  'BIZ-AMOUNT-BELOW-MINIMUM': 'the balance is below the minimum for a collection',
  'RISK-REVIEW-BLOCKED': 'blocked by risk control',
  'BIZ-COMMAND-CANCELLED': 'cancelled by the merchant',
  'BIZ-TRANSFER-WOULD-REVERT': 'the token contract refuses this transfer',
};
const PAYER_FALLBACK_REASON = 'the collection could not be completed; please contact the merchant';

/** The payer's reason for a task's failure, or null while nothing failed. */
export function payerReasonOf(task: CollectionTask): string | null {
  if (task.lastError === null && task.errorCode === null) return null;
  return (task.errorCode === null ? undefined : PAYER_REASONS[task.errorCode as ErrorCode]) ?? PAYER_FALLBACK_REASON;
}

/** The cashier-side task: no error_code, ISO timestamps like the rest of the payment API (docs/decisions.md). */
export function toCashierTaskView(task: CollectionTask): CashierTaskView {
  return {
    task_no: task.taskNo,
    command_no: task.commandNo,
    status: task.status,
    last_error: payerReasonOf(task),
    started_at: formatIsoTime(task.startedAt),
    finished_at: orNull(task.finishedAt, formatIsoTime),
  };
}

/** Spec §2 cashier token record without the secret. */
export function toCashierTokenView(token: CashierToken): CashierTokenView {
  return {
    token_no: token.tokenNo,
    wallet_address_id: token.walletAddressId,
    address: token.address,
    network_code: token.networkCode,
    status: token.status,
    ttl_minutes: token.ttlMinutes,
    expires_at: formatIsoTime(token.expiresAt),
    disabled_at: orNull(token.disabledAt, formatIsoTime),
    disable_reason: token.disableReason,
    created_at: formatIsoTime(token.createdAt),
  };
}

/** Spec §2 chain resources: snake_case, sun amounts as integer strings. */
export function toResourcesView(r: ChainResources): ChainResourcesView {
  return {
    energy: {
      available: r.energy.available,
      used: r.energy.used,
      limit: r.energy.limit,
      staked_sun: formatAmount(r.energy.stakedSun),
      delegated_out_sun: formatAmount(r.energy.delegatedOutSun),
      received_sun: formatAmount(r.energy.receivedSun),
    },
    bandwidth: {
      free_available: r.bandwidth.freeAvailable,
      free_used: r.bandwidth.freeUsed,
      free_limit: r.bandwidth.freeLimit,
      staked_available: r.bandwidth.stakedAvailable,
      staked_used: r.bandwidth.stakedUsed,
      staked_limit: r.bandwidth.stakedLimit,
      staked_sun: formatAmount(r.bandwidth.stakedSun),
      delegated_out_sun: formatAmount(r.bandwidth.delegatedOutSun),
      received_sun: formatAmount(r.bandwidth.receivedSun),
    },
    withdrawable_sun: formatAmount(r.withdrawableSun),
    delegated_to: r.delegatedTo.map((address) => ({ address })),
    received_from: r.receivedFrom.map((address) => ({ address })),
  };
}
