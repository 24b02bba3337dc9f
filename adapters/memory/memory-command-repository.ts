import { ConcurrencyConflict } from '../../core/domain/errors.js';
import { type Command, type CommandStatus, type CommandType, type UserId } from '../../core/domain/model/index.js';
import type { CommandRepository } from '../../core/ports/command-repository.port.js';
import type { Page, PageRequest } from '../../core/ports/page.js';
import { claimsBefore, type DueQueue } from './due-queue.js';
import { outboundCopy, storedCopy } from './frozen-copy.js';
import type { MemoryStore } from './memory-store.js';
import { pageOf, pageOfKeys } from './paging.js';

/**
 * Commands; a locking insert checks the address lock and writes in one synchronous step. Claims, lock holders and
 * per-user lists read the table's indexes (memory-tables.ts).
 */
export class MemoryCommandRepository implements CommandRepository {
  constructor(private readonly store: MemoryStore) {}

  async insert(command: Command, options: { readonly locking: boolean }): Promise<'created' | 'locked'> {
    if (this.store.commands.has(command.commandNo)) throw new ConcurrencyConflict('command', command.commandNo);
    if (options.locking && command.address !== null && this.lockHolder(command.address) !== undefined) {
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
    const holder = this.lockHolder(address);
    return holder === undefined ? null : outboundCopy(holder);
  }

  async listByUser(
    userId: UserId,
    filter: { readonly type?: CommandType; readonly status?: CommandStatus },
    page: PageRequest,
  ): Promise<Page<Command>> {
    const byUser = this.store.commands.byUser;
    if (filter.type === undefined && filter.status === undefined) return pageOfKeys(this.store.commands, byUser.slice(userId, page.offset, page.limit));
    // A filtered list reads only this user's rows, already newest first.
    const matching = byUser.keys(userId).map((no) => this.store.commands.get(no)!).filter((c) =>
      (filter.type === undefined || c.type === filter.type) &&
      (filter.status === undefined || c.status === filter.status));
    return pageOf(matching, page);
  }

  async update(command: Command): Promise<void> {
    const stored = this.store.commands.get(command.commandNo);
    if (stored === undefined || stored.version !== command.version - 1) {
      throw new ConcurrencyConflict('command', command.commandNo);
    }
    this.store.commands.set(command.commandNo, storedCopy(command));
  }

  async claimDue(types: readonly CommandType[], now: number, owner: string, leaseMs: number): Promise<Command | null> {
    let best: ReturnType<DueQueue<string>['first']>[number] | undefined;
    for (const type of new Set(types)) {
      const [first] = this.store.commands.dueByType.get(type)?.queue.first(now) ?? [];
      if (first !== undefined && (best === undefined || claimsBefore(first, best))) best = first;
    }
    if (best === undefined) return null;
    const due = this.store.commands.get(best.key)!;
    const claimed: Command = { ...due, lease: { owner, expiresAt: now + leaseMs }, version: due.version + 1 };
    this.store.commands.set(claimed.commandNo, storedCopy(claimed));
    return outboundCopy(claimed);
  }

  async listFinishedSince(type: CommandType, status: CommandStatus, since: number, limit: number): Promise<Command[]> {
    const found = [...this.store.commands.values()].filter((c) => c.type === type && c.status === status && c.finishedAt !== null && c.finishedAt >= since);
    found.sort((a, b) => a.finishedAt! - b.finishedAt! || (a.commandNo < b.commandNo ? -1 : a.commandNo > b.commandNo ? 1 : 0));
    return found.slice(0, limit).map(outboundCopy);
  }

  /** The lock holder of the address among its indexed holders (first in table order, as a scan would find). */
  private lockHolder(address: string): Command | undefined {
    return lockHolderOf(this.store, address);
  }
}

/** The command holding the address's lock, from the table's lock index (first in table order if several). */
export function lockHolderOf(store: MemoryStore, address: string): Command | undefined {
  let holder: string | undefined;
  for (const no of store.commands.lockHolders.keys(address)) {
    if (holder === undefined || store.commands.seqOf(no) < store.commands.seqOf(holder)) holder = no;
  }
  return holder === undefined ? undefined : store.commands.get(holder);
}
