import { approvalOnCancel } from '../domain/approval.js';
import { commandTransition } from '../domain/command-machine.js';
import { DomainError } from '../domain/errors.js';
import { commandBroadcast } from '../domain/withdrawal-funding.js';
import { parsePageQuery, toItemsPage } from '../domain/pagination.js';
import { visibleTo } from '../domain/wallet-rules.js';
import { COMMAND_STATUS, COMMAND_TYPE, type Command, type CommandStatus, type CommandType } from '../domain/model/command.js';
import type { UserId } from '../domain/model/common.js';
import type { CommandsService } from './application.js';
import { AuditTrail } from './audit-trail.js';
import { actingMember } from './acting-member.js';
import type { ResolvedDeps } from './deps.js';
import { fieldsOf, optionalEnum } from './input.js';
import { toCommandDetailView, toCommandListItemView } from './mappers.js';
import { retryOnConflict } from './retry-on-conflict.js';
import type { CommandListItemView, CommandView, ItemsPage } from './views.js';

const TYPES = Object.values(COMMAND_TYPE) as CommandType[];
const STATUSES = Object.values(COMMAND_STATUS) as CommandStatus[];

/** The ports the command use cases touch. */
export type CommandsDeps = Pick<ResolvedDeps, 'commands' | 'clock' | 'uow' | 'auditLog'>;

/** The caller's asynchronous commands (spec §4 GET /commands). */
export class CommandsUseCases implements CommandsService {
  private readonly audit: AuditTrail;

  constructor(private readonly deps: CommandsDeps) {
    this.audit = new AuditTrail(deps);
  }

  /** `type` 1-8 and `status` 1-6 filter; anything else is VALIDATION-ERROR naming the parameter. */
  async list(userId: UserId, query: unknown): Promise<ItemsPage<CommandListItemView>> {
    const fields = fieldsOf(query, 'query');
    const type = optionalEnum(fields, 'type', TYPES);
    const status = optionalEnum(fields, 'status', STATUSES);
    const page = parsePageQuery(fields, 'standard');
    const filter = { ...(type === undefined ? {} : { type }), ...(status === undefined ? {} : { status }) };
    const found = await this.deps.commands.listByUser(userId, filter, page);
    return toItemsPage(found.items.map(toCommandListItemView), found.total, page.page, page.perPage);
  }

  /** A withdrawal also shows asset_symbol, amount, to_address and txid (issue #34, extensions). */
  async get(userId: UserId, commandNo: string): Promise<CommandView> {
    const command = visibleTo(await this.deps.commands.get(commandNo), userId);
    if (command === null) throw new DomainError('BIZ-COMMAND-NOT-FOUND');
    return toCommandDetailView(command);
  }

  /**
   * The requester's cancel of their own withdrawal (issue #35 item 2), by the admin cancel's rule: PENDING or RUNNING
   * with nothing broadcast (command-machine `cancel`, commandBroadcast), an approval still awaited closed as cancelled
   * (approvalOnCancel), in one versioned write with its audit entry; a worker that claimed it meanwhile loses the
   * version race or finds it CANCELLED before it signs. Another user's command is not found.
   */
  async cancel(userId: UserId, commandNo: string): Promise<CommandView> {
    return retryOnConflict(async () => {
      const command = visibleTo(await this.deps.commands.get(commandNo), userId);
      if (command === null) throw new DomainError('BIZ-COMMAND-NOT-FOUND');
      if (command.type !== COMMAND_TYPE.WITHDRAWAL) throw new DomainError('BIZ-COMMAND-NOT-CANCELLABLE');
      // In a team an operator cancels only the withdrawals they requested; the owner and admins any (issue #35 item 2).
      const actor = actingMember();
      if (actor?.role === 'operator' && (command.approval?.requestedBy ?? command.userId) !== actor.userId) {
        throw new DomainError('TEAM-ROLE-FORBIDDEN', { message: 'an operator cancels only the withdrawals they requested' });
      }
      const status = commandTransition(command.status, 'cancel', { broadcast: commandBroadcast(command) });
      if (status === null) throw new DomainError('BIZ-COMMAND-NOT-CANCELLABLE');
      const now = this.deps.clock.now();
      const approval = approvalOnCancel(command.approval, now);
      const cancelled: Command = { ...command, status, finishedAt: now, version: command.version + 1, ...(approval === undefined ? {} : { approval }) };
      await this.audit.recordWith(() => this.deps.uow.commit({ commands: [cancelled] }), () => ({
        userId, action: 'withdrawal.cancelled', actor: { kind: 'user', id: null },
        detail: { command_no: command.commandNo, asset_symbol: command.assetSymbol, amount: command.params['amount'] ?? null, approval: command.approval?.state ?? null },
      }));
      return toCommandDetailView(cancelled);
    });
  }
}
