import { DomainError } from '../domain/errors.js';
import { COMMAND_STATUS, COMMAND_TYPE, type Command } from '../domain/model/command.js';
import type { UserId } from '../domain/model/common.js';
import { APPROVER_ROLES } from '../domain/team-roles.js';
import { visibleTo } from '../domain/wallet-rules.js';
import { actingMember } from './acting-member.js';
import { AuditTrail } from './audit-trail.js';
import type { ResolvedDeps } from './deps.js';
import { toCommandDetailView } from './mappers.js';
import { retryOnConflict } from './retry-on-conflict.js';
import type { CommandView } from './views.js';

/** The ports an approval by a person touches. */
export type CommandApprovalsDeps = Pick<ResolvedDeps, 'commands' | 'clock' | 'uow' | 'auditLog'> & Partial<Pick<ResolvedDeps, 'members'>>;

/**
 * The users who may approve a withdrawal of `accountId` requested by `requester` (issue #35 item 2): in an account
 * with members, its owner and every joined admin or approver, the requester excepted. A solo account has nobody (its
 * owner is the requester), so only the machine approver (approval_url) can approve there, as before.
 */
export async function peopleWhoMayApprove(deps: Partial<Pick<ResolvedDeps, 'members'>>, accountId: UserId, requester: UserId): Promise<readonly UserId[]> {
  if (deps.members === undefined) return [];
  const members = await deps.members.listByAccount(accountId);
  if (members.length === 0) return [];
  const people = [accountId, ...members.filter((m) => m.userId !== null && APPROVER_ROLES.has(m.role)).map((m) => m.userId!)];
  return people.filter((id) => id !== requester);
}

/**
 * Approvals by people (issue #35 item 2): `POST /commands/{commandNo}/approve` and `/deny`. A PENDING withdrawal
 * awaiting its approval is decided by the acting owner, admin or approver, never by its requester. The decision is
 * written on the command (approval.state, decidedBy) with its audit entry in one versioned write, and the command is
 * made due at once; the worker's approval step then starts it (approved) or rejects it with APPROVAL-DENIED (denied),
 * exactly as for the machine approver's answer. A decision racing the worker or another member loses the version race
 * and is judged again on the fresh command (then usually APPROVAL-NOT-AWAITING).
 */
export class CommandApprovalsUseCases {
  private readonly audit: AuditTrail;

  constructor(private readonly deps: CommandApprovalsDeps) {
    this.audit = new AuditTrail(deps);
  }

  /**
   * The account's withdrawals awaiting an approval, oldest first, at most 100 (the session route the members who decide
   * read: GET /commands takes a Developer API Token). Each shows its approval, requested_by included.
   */
  async listAwaiting(accountId: UserId): Promise<{ readonly items: readonly CommandView[] }> {
    const pending = await this.deps.commands.listByUser(accountId, { type: COMMAND_TYPE.WITHDRAWAL, status: COMMAND_STATUS.PENDING }, { offset: 0, limit: 100 });
    const awaiting = pending.items.filter((c) => c.approval?.state === 'awaiting').sort((a, b) => a.createdAt - b.createdAt);
    return { items: awaiting.map(toCommandDetailView) };
  }

  approve(accountId: UserId, commandNo: string): Promise<CommandView> {
    return this.decide(accountId, commandNo, 'approved');
  }

  deny(accountId: UserId, commandNo: string): Promise<CommandView> {
    return this.decide(accountId, commandNo, 'denied');
  }

  private decide(accountId: UserId, commandNo: string, state: 'approved' | 'denied'): Promise<CommandView> {
    const actor = actingMember() ?? { userId: accountId, role: 'owner' as const };
    if (!APPROVER_ROLES.has(actor.role)) throw new DomainError('TEAM-ROLE-FORBIDDEN');
    return retryOnConflict(async () => {
      const command = visibleTo(await this.deps.commands.get(commandNo), accountId);
      if (command === null || command.type !== COMMAND_TYPE.WITHDRAWAL) throw new DomainError('BIZ-COMMAND-NOT-FOUND');
      const approval = command.approval;
      if (command.status !== COMMAND_STATUS.PENDING || approval == null || approval.state !== 'awaiting') throw new DomainError('APPROVAL-NOT-AWAITING');
      const now = this.deps.clock.now();
      if (now >= approval.deadline) throw new DomainError('APPROVAL-NOT-AWAITING', { message: 'the withdrawal\'s approval time is over' });
      const requester = approval.requestedBy ?? command.userId;
      if (requester === actor.userId) throw new DomainError('APPROVAL-OWN-WITHDRAWAL');
      const decided: Command = {
        ...command, approval: { ...approval, state, decidedAt: now, decidedBy: actor.userId }, nextRunAt: now, version: command.version + 1,
      };
      await this.audit.recordWith(() => this.deps.uow.commit({ commands: [decided] }), () => ({
        userId: accountId, action: state === 'approved' ? 'withdrawal.approved' : 'withdrawal.denied', actor: { kind: 'user', id: String(actor.userId) },
        detail: {
          command_no: command.commandNo, asset_symbol: command.assetSymbol, amount: command.params['amount'] ?? null,
          requested_by: requester, decided_by: actor.userId,
        },
      }));
      return toCommandDetailView(decided);
    });
  }
}
