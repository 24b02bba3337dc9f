import { ConcurrencyConflict } from '../../core/domain/errors.js';
import { COMMAND_STATUS, type Command, type CommandStatus, type CommandType, type UserId } from '../../core/domain/model/index.js';
import type { CommandRepository } from '../../core/ports/command-repository.port.js';
import type { Page, PageRequest } from '../../core/ports/page.js';
import { findLockHolder } from './command-lock.js';
import { outboundCopies, outboundCopy, storedCopy } from './frozen-copy.js';
import type { MemoryStore } from './memory-store.js';
import { newestFirst, pageOf } from './paging.js';

/** Commands; a locking insert checks the address lock and writes in one synchronous step. */
export class MemoryCommandRepository implements CommandRepository {
  constructor(private readonly store: MemoryStore) {}

  async insert(command: Command, options: { readonly locking: boolean }): Promise<'created' | 'locked'> {
    if (this.store.commands.has(command.commandNo)) throw new ConcurrencyConflict('command', command.commandNo);
    if (options.locking && command.address !== null && findLockHolder(this.store.commands.values(), command.address)) {
      return 'locked';
    }
    this.store.commands.set(command.commandNo, storedCopy(command));
    return 'created';
  }

  async get(commandNo: string): Promise<Command | null> {
    const command = this.store.commands.get(commandNo);
    return command === undefined ? null : outboundCopy(command);
  }

  async findActiveByAddress(address: string): Promise<Command | null> {
    const holder = findLockHolder(this.store.commands.values(), address);
    return holder === undefined ? null : outboundCopy(holder);
  }

  async listByUser(
    userId: UserId,
    filter: { readonly type?: CommandType; readonly status?: CommandStatus },
    page: PageRequest,
  ): Promise<Page<Command>> {
    const matching = [...this.store.commands.values()].filter((c) =>
      c.userId === userId &&
      (filter.type === undefined || c.type === filter.type) &&
      (filter.status === undefined || c.status === filter.status));
    return pageOf(newestFirst(matching), page);
  }

  async update(command: Command): Promise<void> {
    const stored = this.store.commands.get(command.commandNo);
    if (stored === undefined || stored.version !== command.version - 1) {
      throw new ConcurrencyConflict('command', command.commandNo);
    }
    this.store.commands.set(command.commandNo, storedCopy(command));
  }

  async listPending(types: readonly CommandType[], limit: number): Promise<Command[]> {
    const wanted = new Set(types);
    const pending = [...this.store.commands.values()]
      .filter((c) => c.status === COMMAND_STATUS.PENDING && wanted.has(c.type))
      .sort((a, b) => a.createdAt - b.createdAt);
    return outboundCopies(pending.slice(0, limit));
  }

  async listRunning(types: readonly CommandType[], limit: number): Promise<Command[]> {
    const wanted = new Set(types);
    const running = [...this.store.commands.values()]
      .filter((c) => c.status === COMMAND_STATUS.RUNNING && wanted.has(c.type))
      .sort((a, b) => (a.startedAt ?? a.createdAt) - (b.startedAt ?? b.createdAt));
    return outboundCopies(running.slice(0, Math.max(0, limit)));
  }
}
