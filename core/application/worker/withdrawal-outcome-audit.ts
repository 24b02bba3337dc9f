import { COMMAND_STATUS, COMMAND_TYPE, type Command, type CommandType } from '../../domain/model/command.js';
import type { AuditEvent } from '../../domain/model/audit.js';

/** The audit action of each status a withdrawal ends in (issue #35 item 8). */
const OUTCOME_ACTIONS = {
  [COMMAND_STATUS.SUCCESS]: 'withdrawal.completed',
  [COMMAND_STATUS.FAILED]: 'withdrawal.failed',
  [COMMAND_STATUS.REJECTED]: 'withdrawal.rejected',
} as const;

/**
 * The audit entry of a withdrawal the worker just ended: withdrawal.completed (SUCCESS, its txid), withdrawal.failed
 * (FAILED) or withdrawal.rejected (REJECTED: denied, expired, refused by the policy or risk control), with the error
 * code; the actor is the system (the worker acts for nobody). Null for any other command or status.
 */
export function withdrawalOutcomeEvent(done: Command): AuditEvent | null {
  if (done.type !== COMMAND_TYPE.WITHDRAWAL) return null;
  const action = (OUTCOME_ACTIONS as Partial<Record<number, AuditEvent['action']>>)[done.status];
  if (action === undefined) return null;
  return {
    userId: done.userId, action, actor: { kind: 'system', id: null },
    detail: {
      command_no: done.commandNo, asset_symbol: done.assetSymbol, amount: done.params['amount'] ?? null,
      to_address: done.params['to_address'] ?? null, txid: done.status === COMMAND_STATUS.SUCCESS ? (done.transaction?.txid ?? null) : null,
      error_code: done.errorCode,
    },
  };
}

/** The audit action of each status a staking command ends in (issue #35 item 8). */
const STAKING_OUTCOME_ACTIONS = {
  [COMMAND_STATUS.SUCCESS]: 'staking.completed',
  [COMMAND_STATUS.FAILED]: 'staking.failed',
  [COMMAND_STATUS.REJECTED]: 'staking.rejected',
} as const;

/** The staking operations by command type, as `staking.requested` names them. */
export const STAKING_OPERATIONS: Partial<Record<CommandType, string>> = {
  [COMMAND_TYPE.STAKE]: 'stake', [COMMAND_TYPE.UNSTAKE]: 'unstake', [COMMAND_TYPE.WITHDRAW_UNSTAKED]: 'withdraw-unstaked',
  [COMMAND_TYPE.VOTE]: 'vote', [COMMAND_TYPE.WITHDRAW_REWARD]: 'withdraw-reward',
};

/**
 * The audit entry of any command the worker just ended (issue #35 item 8): a withdrawal's (withdrawalOutcomeEvent),
 * or a staking command's staking.completed (SUCCESS, its txid), staking.failed (FAILED) or staking.rejected
 * (REJECTED by risk control), naming the operation; the actor is the system. Null for collections and queries (their
 * own records tell), and for any status that does not end a command.
 */
export function commandOutcomeEvent(done: Command): AuditEvent | null {
  const operation = STAKING_OPERATIONS[done.type];
  if (operation === undefined) return withdrawalOutcomeEvent(done);
  const action = (STAKING_OUTCOME_ACTIONS as Partial<Record<number, AuditEvent['action']>>)[done.status];
  if (action === undefined) return null;
  return {
    userId: done.userId, action, actor: { kind: 'system', id: null },
    detail: {
      command_no: done.commandNo, type: operation, address: done.address,
      amount: done.params['amount'] ?? (done.lockedAmount > 0n ? done.lockedAmount.toString(10) : null),
      txid: done.status === COMMAND_STATUS.SUCCESS ? (done.transaction?.txid ?? null) : null, error_code: done.errorCode,
    },
  };
}
