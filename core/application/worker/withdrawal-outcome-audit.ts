import { COMMAND_STATUS, COMMAND_TYPE, type Command } from '../../domain/model/command.js';
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
