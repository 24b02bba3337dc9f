import type { Millis, UserId, Versioned } from './common.js';

export const COMMAND_TYPE = {
  QUERY: 1, WITHDRAWAL: 2, COLLECTION: 3, STAKE: 4, UNSTAKE: 5, WITHDRAW_UNSTAKED: 6, VOTE: 7, WITHDRAW_REWARD: 8,
} as const;
export type CommandType = (typeof COMMAND_TYPE)[keyof typeof COMMAND_TYPE];

export const COMMAND_STATUS = {
  PENDING: 1, RUNNING: 2, SUCCESS: 3, FAILED: 4, REJECTED: 5, CANCELLED: 6,
} as const;
export type CommandStatus = (typeof COMMAND_STATUS)[keyof typeof COMMAND_STATUS];

/** A transaction persisted BEFORE broadcast (write-ahead), so a resumed step looks it up instead of sending twice. */
export interface PreparedTransaction {
  readonly txid: string;
  /** The signed transaction as JSON text, exactly as it will be (re)broadcast. */
  readonly signedJson: string;
  readonly expiresAt: Millis;
  readonly broadcastAt: Millis | null;
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
}
