import type { Lease, Millis, UserId, Versioned } from './common.js';
import type { CommandApproval } from './withdrawal-policy.js';
import type { WithdrawalFunding } from '../withdrawal-funding.js';

export const COMMAND_TYPE = {
  QUERY: 1, WITHDRAWAL: 2, COLLECTION: 3, STAKE: 4, UNSTAKE: 5, WITHDRAW_UNSTAKED: 6, VOTE: 7, WITHDRAW_REWARD: 8,
} as const;
export type CommandType = (typeof COMMAND_TYPE)[keyof typeof COMMAND_TYPE];

export const COMMAND_STATUS = {
  PENDING: 1, RUNNING: 2, SUCCESS: 3, FAILED: 4, REJECTED: 5, CANCELLED: 6,
} as const;
export type CommandStatus = (typeof COMMAND_STATUS)[keyof typeof COMMAND_STATUS];

/**
 * A chain operation's write-ahead record: the signed transaction, persisted BEFORE anything is sent, so a resumed
 * step looks the txid up instead of sending twice. Its life: planned → signed and persisted (with `broadcastAt`) →
 * broadcast → included → confirmed, or proven failed (included with a failed receipt) or proven dead (never
 * included, and the solidified head is past `expiresAt`). Only chain evidence ends it (docs/decisions.md, the
 * money rule).
 */
export interface PreparedTransaction {
  readonly txid: string;
  /** The signed transaction as JSON text, exactly as it will be (re)broadcast. */
  readonly signedJson: string;
  /** The transaction's expiration (chain time): it can never be included in a block after it. */
  readonly expiresAt: Millis;
  /**
   * When the runner first handed (or was about to hand) these bytes to a node: stamped in the write-ahead write
   * itself, before the send, so from this write on the transaction may be on the network (and an admin cancel is
   * refused). Null only on records written before the runner (kept readable).
   */
  readonly broadcastAt: Millis | null;
  /** The node's last refusal of these bytes (`CODE: message`), cleared when a node accepts them; absent: none. */
  readonly refusal?: string | null;
}

export interface Command extends Versioned {
  readonly commandNo: string;
  readonly userId: UserId;
  readonly type: CommandType;
  readonly status: CommandStatus;
  /** The address the command acts on (holds its lock while active, for fund-moving types). */
  readonly address: string | null;
  readonly assetSymbol: string | null;
  /** Amount held from balance_available while the command is active (balance_locked); 0n when none. */
  readonly lockedAmount: bigint;
  /** Type-specific request data (withdrawal destination and amount, stake resource ...). Strings only: JSON-safe. */
  readonly params: Readonly<Record<string, string>>;
  readonly transaction: PreparedTransaction | null;
  readonly errorCode: string | null;
  readonly lastError: string | null;
  readonly createdAt: Millis;
  readonly startedAt: Millis | null;
  readonly finishedAt: Millis | null;
  /** When the workflow runner should look at the command next (a new command: its creation time). */
  readonly nextRunAt: Millis;
  /** The runner's claim while it works on the command (null: unclaimed). */
  readonly lease: Lease | null;
  /**
   * A withdrawal above its approval threshold (issue #26): the approval it waits for while PENDING, and how that
   * ended. Absent or null: the command needs none.
   */
  readonly approval?: CommandApproval | null;
  /**
   * A withdrawal from a sub-address whose fees the main address funds (issue #34; core/domain/withdrawal-funding.ts):
   * planned at PENDING, its steps run while RUNNING. Absent or null: the command pays its own fees (or sends none).
   */
  readonly funding?: WithdrawalFunding | null;
}
