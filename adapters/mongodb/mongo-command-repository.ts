import type { ClientSession, Collection, Db, Filter, UpdateFilter } from 'mongodb';
import { ConcurrencyConflict } from '../../core/domain/errors.js';
import {
  COMMAND_STATUS, COMMAND_TYPE, type Command, type CommandStatus, type CommandType, type UserId,
} from '../../core/domain/model/index.js';
import type { CommandRepository } from '../../core/ports/command-repository.port.js';
import type { Page, PageRequest } from '../../core/ports/page.js';
import { holdsAddressLock } from '../records/command-record.js';
import type { CommandDocument } from './mongo-documents.js';
import { guarded, insertionStamp, isDuplicateKey } from './mongo-support.js';
import { COMMAND_RECORD } from '../records/command-record.js';
import { fromDocument, MongoTable, replaceOf, toDocument, type MongoTableOf } from './mongo-table.js';

/** Newest first; equal creation times put the later insert first (as the memory adapter does). */
/** Newest first; `_id` breaks the ties `insertedSeq` leaves between processes (index by_user_newest_id). */
export const NEWEST_FIRST = { createdAt: -1, insertedSeq: -1, _id: -1 } as const;

/** The lock-holder query: a fund-moving command on the address that is PENDING or RUNNING (also the balance view's). */
export function activeOn(address: string) {
  return {
    address,
    type: { $ne: COMMAND_TYPE.QUERY },
    status: { $in: [COMMAND_STATUS.PENDING, COMMAND_STATUS.RUNNING] as CommandStatus[] },
  };
}

/**
 * The document to insert: stamped for ordering, and marked `lockedAddress` when it holds its address's lock. The
 * unique index on `lockedAddress` then refuses a second holder per address atomically, across processes.
 */
export function commandInsertDocument(command: Command, markLock: boolean): CommandDocument {
  const doc: CommandDocument = { ...toDocument(COMMAND_RECORD, command), insertedSeq: insertionStamp() };
  if (markLock && holdsAddressLock(command)) doc.lockedAddress = command.address!;
  return doc;
}

/**
 * The optimistic replace of a stored command: `$set` of every mapped field, guarded by the stored version, and the
 * lock marker dropped once the command no longer holds the lock (a command never regains it: terminal is final).
 */
export async function replaceCommand(commands: Collection<CommandDocument>, command: Command, session?: ClientSession): Promise<void> {
  const { filter, set } = replaceOf(COMMAND_RECORD, command);
  const update = holdsAddressLock(command) ? { $set: set } : { $set: set, $unset: { lockedAddress: '' as const } };
  const result = await commands.updateOne(filter as Filter<CommandDocument>, update as UpdateFilter<CommandDocument>, session === undefined ? {} : { session });
  if (result.matchedCount !== 1) throw new ConcurrencyConflict('command', command.commandNo);
}

/** The runner's claim order: earliest due first, then the oldest (a missing nextRunAt sorts first: due at once). */
export const CLAIM_ORDER = { nextRunAt: 1, createdAt: 1, insertedSeq: 1 } as const;

/**
 * Which commands a runner may claim: PENDING or RUNNING of its types, due (nextRunAt absent or past) and not leased
 * (lease absent, null or expired).
 */
export function claimFilter(types: readonly CommandType[], now: number): Filter<CommandDocument> {
  return {
    status: { $in: [COMMAND_STATUS.PENDING, COMMAND_STATUS.RUNNING] as CommandStatus[] },
    type: { $in: [...types] },
    $and: [
      { $or: [{ nextRunAt: { $exists: false } }, { nextRunAt: { $lte: now } }] },
      { $or: [{ lease: { $exists: false } }, { lease: null }, { 'lease.expiresAt': { $lte: now } }] },
    ],
  };
}

/** The claim itself: the lease, and the version bump that fences out the previous holder. */
export function claimUpdate(owner: string, now: number, leaseMs: number) {
  return { $set: { lease: { owner, expiresAt: now + leaseMs } }, $inc: { version: 1 } };
}

/** Commands; the per-address lock is a partial unique index (see commandInsertDocument). */
export class MongoCommandRepository implements CommandRepository {
  private readonly table: MongoTableOf<typeof COMMAND_RECORD>;
  private readonly commands: Collection<CommandDocument>;

  constructor(db: Db) {
    this.table = new MongoTable(db, COMMAND_RECORD);
    this.commands = this.table.typed();
  }

  insert(command: Command, options: { readonly locking: boolean }): Promise<'created' | 'locked'> {
    return guarded('command insert', async () => {
      try {
        await this.commands.insertOne(commandInsertDocument(command, true));
        return 'created';
      } catch (error) {
        if (!isDuplicateKey(error)) throw error;
        // Either the command number is taken (a caller bug, as in the memory adapter) or the address is locked.
        if ((await this.commands.countDocuments({ _id: command.commandNo })) > 0) {
          throw new ConcurrencyConflict('command', command.commandNo);
        }
        if (options.locking) return 'locked';
      }
      // A non-locking insert is not refused by the rule; it is stored without the marker (it never held the lock).
      try {
        await this.commands.insertOne(commandInsertDocument(command, false));
        return 'created';
      } catch (error) {
        if (!isDuplicateKey(error)) throw error;
        throw new ConcurrencyConflict('command', command.commandNo);
      }
    });
  }

  get(commandNo: string): Promise<Command | null> {
    return guarded('command read', () => this.table.get(commandNo));
  }

  findActiveByAddress(address: string): Promise<Command | null> {
    return guarded('command read', () => this.table.first(activeOn(address), { createdAt: 1, insertedSeq: 1 }));
  }

  /** Walks the `finished` index (mongo-indexes.ts). */
  listFinishedSince(type: CommandType, status: CommandStatus, since: number, limit: number): Promise<Command[]> {
    return guarded('command finished list', () => this.table.find({ type, status, finishedAt: { $gte: since } }, { finishedAt: 1, _id: 1 }, limit));
  }

  listByUser(
    userId: UserId,
    filter: { readonly type?: CommandType; readonly status?: CommandStatus },
    page: PageRequest,
  ): Promise<Page<Command>> {
    return guarded('command list', () => {
      const query = {
        userId,
        ...(filter.type === undefined ? {} : { type: filter.type }),
        ...(filter.status === undefined ? {} : { status: filter.status }),
      };
      return this.table.page(query, NEWEST_FIRST, page);
    });
  }

  update(command: Command): Promise<void> {
    return guarded('command update', () => replaceCommand(this.commands, command));
  }

  claimDue(types: readonly CommandType[], now: number, owner: string, leaseMs: number): Promise<Command | null> {
    return guarded('command claim', async () => {
      if (types.length === 0) return null;
      const doc = await this.commands.findOneAndUpdate(claimFilter(types, now), claimUpdate(owner, now, leaseMs), {
        sort: CLAIM_ORDER, returnDocument: 'after',
      });
      return doc === null ? null : fromDocument(COMMAND_RECORD, doc);
    });
  }
}
