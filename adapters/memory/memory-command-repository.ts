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

  async claimDue(types: readonly CommandType[], now: number, owner: string, leaseMs: number): Promise<Command | null> {
    const wanted = new Set(types);
    let due: Command | undefined;
    for (const c of this.store.commands.values()) {
      if (!wanted.has(c.type) || (c.status !== COMMAND_STATUS.PENDING && c.status !== COMMAND_STATUS.RUNNING)) continue;
      if ((c.nextRunAt ?? 0) > now || (c.lease != null && c.lease.expiresAt > now)) continue;
      if (due === undefined || dueBefore(c, due)) due = c;
    }
    if (due === undefined) return null;
    const claimed: Command = { ...due, lease: { owner, expiresAt: now + leaseMs }, version: due.version + 1 };
    this.store.commands.set(claimed.commandNo, storedCopy(claimed));
    return outboundCopy(claimed);
  }
}

/** Earliest due first, then the oldest. */
function dueBefore(a: Command, b: Command): boolean {
  const [da, db] = [a.nextRunAt ?? 0, b.nextRunAt ?? 0];
  return da !== db ? da < db : a.createdAt < b.createdAt;
}
