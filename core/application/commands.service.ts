import { DomainError } from '../domain/errors.js';
import { parsePageQuery, toItemsPage } from '../domain/pagination.js';
import { visibleTo } from '../domain/wallet-rules.js';
import { COMMAND_STATUS, COMMAND_TYPE, type CommandStatus, type CommandType } from '../domain/model/command.js';
import type { UserId } from '../domain/model/common.js';
import type { CommandsService } from './application.js';
import type { ResolvedDeps } from './deps.js';
import { fieldsOf, optionalEnum } from './input.js';
import { toCommandDetailView, toCommandListItemView } from './mappers.js';
import type { CommandListItemView, CommandView, ItemsPage } from './views.js';

const TYPES = Object.values(COMMAND_TYPE) as CommandType[];
const STATUSES = Object.values(COMMAND_STATUS) as CommandStatus[];

/** The ports the command use cases touch. */
export type CommandsDeps = Pick<ResolvedDeps, 'commands'>;

/** The caller's asynchronous commands (spec §4 GET /commands). */
export class CommandsUseCases implements CommandsService {
  constructor(private readonly deps: CommandsDeps) {}

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
}
