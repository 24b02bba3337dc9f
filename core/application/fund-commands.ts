import { isFundMoving } from '../domain/command-machine.js';
import { DomainError } from '../domain/errors.js';
import { newCommandNo, NUMBER_RANDOM_BYTES } from '../domain/numbers.js';
import { COMMAND_STATUS, COMMAND_TYPE, type Command, type CommandType } from '../domain/model/command.js';
import type { UserId } from '../domain/model/common.js';
import type { RiskSubject } from '../ports/risk-policy.port.js';
import type { AuditEvent } from '../domain/model/audit.js';
import { AuditTrail } from './audit-trail.js';
import type { ResolvedDeps } from './deps.js';
import { STAKING_OPERATIONS } from './worker/withdrawal-outcome-audit.js';

/** What a new command is about; the rest (number, status, times) is filled in by newCommand. */
export interface CommandDraft {
  readonly userId: UserId;
  readonly type: CommandType;
  readonly address: string;
  readonly assetSymbol: string | null;
  readonly lockedAmount: bigint;
  readonly params: Readonly<Record<string, string>>;
}

/** A PENDING command (version 1) numbered from the clock and the IdGenerator. */
export function newCommand(deps: Pick<ResolvedDeps, 'clock' | 'ids'>, draft: CommandDraft): Command {
  const now = deps.clock.now();
  return {
    ...draft,
    commandNo: newCommandNo(now, deps.ids.randomBytes(NUMBER_RANDOM_BYTES)),
    status: COMMAND_STATUS.PENDING,
    transaction: null,
    errorCode: null,
    lastError: null,
    createdAt: now,
    startedAt: null,
    finishedAt: null,
    nextRunAt: now,
    lease: null,
    version: 1,
  };
}

/**
 * The audit entry of a request risk control refused (issue #35 item 8): a withdrawal's `withdrawal.refused` with the
 * rule, as a policy's refusal; a staking command's `staking.rejected`; none for a collection (nothing leaves the
 * account's addresses). The actor is left to the request (the member, session user or API token).
 */
export function riskRefusalEvent(rejected: Command): AuditEvent | null {
  const base = { userId: rejected.userId, actor: { kind: 'user' as const, id: null } };
  if (rejected.type === COMMAND_TYPE.WITHDRAWAL) {
    return {
      ...base, action: 'withdrawal.refused',
      detail: {
        rule: 'RISK-REVIEW-BLOCKED', command_no: rejected.commandNo, from_address: rejected.address, to_address: rejected.params['to_address'] ?? null,
        asset_symbol: rejected.assetSymbol, amount: rejected.params['amount'] ?? null,
      },
    };
  }
  const operation = STAKING_OPERATIONS[rejected.type];
  if (operation === undefined) return null;
  return { ...base, action: 'staking.rejected', detail: { command_no: rejected.commandNo, type: operation, address: rejected.address, error_code: 'RISK-REVIEW-BLOCKED' } };
}

/**
 * Risk control before anything is queued: a blocked request is recorded as a REJECTED command (auditable in
 * GET /commands, docs/decisions.md 8) and answered 403 RISK-REVIEW-BLOCKED. With the audit trail's ports, a refused
 * withdrawal or staking command is audited in the same atomic scope as its record (riskRefusalEvent).
 */
export async function refuseIfRisky(
  deps: Pick<ResolvedDeps, 'risk' | 'commands' | 'clock' | 'ids'> & Partial<Pick<ResolvedDeps, 'auditLog' | 'uow'>>,
  subject: RiskSubject, draft: CommandDraft,
): Promise<void> {
  const verdict = await deps.risk.check(subject);
  if (!verdict.blocked) return;
  const now = deps.clock.now();
  const rejected: Command = {
    ...newCommand(deps, draft),
    status: COMMAND_STATUS.REJECTED,
    lockedAmount: 0n,
    errorCode: 'RISK-REVIEW-BLOCKED',
    lastError: 'blocked by risk control',
    finishedAt: now,
  };
  const insert = () => deps.commands.insert(rejected, { locking: false });
  const event = riskRefusalEvent(rejected);
  const { auditLog, uow } = deps;
  if (event !== null && auditLog !== undefined && uow !== undefined) {
    await new AuditTrail({ auditLog, uow, clock: deps.clock }).recordWith(insert, () => event);
  } else {
    await insert();
  }
  throw new DomainError('RISK-REVIEW-BLOCKED');
}

/**
 * Runs check-then-create for one address under the short AddressLock (defence in depth across processes; the store
 * refuses a second active command atomically anyway). A lock held by another request means a command is being
 * created on the address right now: 409 BIZ-COMMAND-LOCKED.
 */
export async function withAddressLock<T>(
  deps: Pick<ResolvedDeps, 'addressLock' | 'settings'>, address: string, work: () => Promise<T>,
): Promise<T> {
  const grant = await deps.addressLock.acquire(`address:${address}`, deps.settings.addressLockTtlMs);
  if (grant === null) throw new DomainError('BIZ-COMMAND-LOCKED');
  try {
    return await work();
  } finally {
    await deps.addressLock.release(grant);
  }
}

/** 409 BIZ-COMMAND-LOCKED when the address has an active fund-moving command. */
export async function refuseIfLocked(deps: Pick<ResolvedDeps, 'commands'>, address: string): Promise<void> {
  if ((await deps.commands.findActiveByAddress(address)) !== null) throw new DomainError('BIZ-COMMAND-LOCKED');
}

/** The ports that queuing a fund-moving command touches. */
export type FundCommandDeps = Pick<ResolvedDeps, 'risk' | 'commands' | 'clock' | 'ids' | 'addressLock' | 'settings'>;

/**
 * How the locking insert is stored: as is, or inside the caller's atomic scope with its audit entry (issue #35
 * item 8: AuditTrail.recordWith around exactly the insert, so risk control and the address lock stay outside it).
 */
export type InsertScope = (insert: () => Promise<'created' | 'locked'>, command: Command) => Promise<'created' | 'locked'>;

/** Queues a fund-moving command (withdrawal, staking): risk, then the lock, then the atomic locking insert. */
export async function submitFundCommand(
  deps: FundCommandDeps, subject: RiskSubject, draft: CommandDraft, scope: InsertScope = (insert) => insert(),
): Promise<Command> {
  if (!isFundMoving(draft.type)) throw new RangeError(`command type ${draft.type} does not move funds`);
  await refuseIfRisky(deps, subject, draft);
  return withAddressLock(deps, draft.address, async () => {
    await refuseIfLocked(deps, draft.address);
    const command = newCommand(deps, draft);
    const outcome = await scope(() => deps.commands.insert(command, { locking: true }), command);
    if (outcome === 'locked') throw new DomainError('BIZ-COMMAND-LOCKED');
    return command;
  });
}
