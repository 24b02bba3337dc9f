import {
  ADDRESS_TYPE, COLLECTION_STATUS, COMMAND_STATUS, COMMAND_TYPE, DELIVERY_STATUS, type Account, type ApiToken, type CashierToken,
  type CollectionStatus, type CollectionTask, type Command, type CommandType, type DeveloperConfig, type Session, type UserId,
  type WalletAddress, type WebhookDelivery, type WebhookEvent,
} from '../../core/domain/model/index.js';
import { holdsAddressLock } from './command-lock.js';
import { ClaimIndex, GroupIndex, IndexedTable, OrderedGroupIndex, type TableIndex } from './indexed-table.js';

/** Counts of rows per value of a field, kept on every write. */
class CountIndex<K, V, F> implements TableIndex<K, V> {
  readonly counts = new Map<F, number>();

  constructor(private readonly fieldOf: (value: V) => F) {}

  onWrite(_key: K, _seq: number, before: V | undefined, after: V | undefined): void {
    if (before !== undefined) {
      const f = this.fieldOf(before);
      const n = this.counts.get(f)! - 1;
      if (n === 0) this.counts.delete(f);
      else this.counts.set(f, n);
    }
    if (after !== undefined) {
      const f = this.fieldOf(after);
      this.counts.set(f, (this.counts.get(f) ?? 0) + 1);
    }
  }

  onClear(): void {
    this.counts.clear();
  }
}

const isTerminalTask = (t: CollectionTask): boolean => t.status === COLLECTION_STATUS.DONE || t.status === COLLECTION_STATUS.FAILED;

/** Collection tasks: claims by due time (stages and reclaims), tasks by address, counts by status. */
export class TaskTable extends IndexedTable<string, CollectionTask> {
  readonly due = this.index(new ClaimIndex<string, CollectionTask>((t) =>
    isTerminalTask(t) ? null : { due: t.nextRunAt, leaseUntil: t.lease?.expiresAt ?? null, rank: 0 }));
  readonly reclaimDue = this.index(new ClaimIndex<string, CollectionTask>((t) => {
    const r = t.reclaim;
    if (t.status !== COLLECTION_STATUS.FAILED || r === undefined || r.status !== 'pending') return null;
    return { due: r.nextRunAt, leaseUntil: r.lease?.expiresAt ?? null, rank: 0 };
  }));
  readonly byAddress = this.index(new GroupIndex<string, CollectionTask, string>((t) => t.address));
  readonly byStatus = this.index(new CountIndex<string, CollectionTask, CollectionStatus>((t) => t.status));
  /** Newest first (startedAt, then later inserted), the order of CollectionTaskRepository.listByUser. */
  readonly byUser = this.index(new OrderedGroupIndex<string, CollectionTask, UserId>((t) => t.userId, (t) => t.startedAt, true));
}

const claimableCommand = (c: Command): boolean => c.status === COMMAND_STATUS.PENDING || c.status === COMMAND_STATUS.RUNNING;

/** Commands: claims by due time per type, lock holders by address, commands by user. */
export class CommandTable extends IndexedTable<string, Command> {
  readonly dueByType: ReadonlyMap<CommandType, ClaimIndex<string, Command>> = new Map(
    Object.values(COMMAND_TYPE).map((type) => [type, this.index(new ClaimIndex<string, Command>((c) =>
      c.type !== type || !claimableCommand(c) ? null : { due: c.nextRunAt ?? 0, leaseUntil: c.lease?.expiresAt ?? null, rank: c.createdAt }))]),
  );
  readonly lockHolders = this.index(new GroupIndex<string, Command, string>((c) => holdsAddressLock(c) ? c.address! : undefined));
  /** Newest first (createdAt, then later inserted), the order of CommandRepository.listByUser. */
  readonly byUser = this.index(new OrderedGroupIndex<string, Command, UserId>((c) => c.userId, (c) => c.createdAt, true));
}

/** Wallet addresses by user; main addresses and sub-address counts by user and network. */
export class WalletTable extends IndexedTable<number, WalletAddress> {
  /** By id, the order of WalletRepository.listByUser. */
  readonly byUser = this.index(new OrderedGroupIndex<number, WalletAddress, UserId>((w) => w.userId, (w) => w.id, false));
  readonly mains = this.index(new GroupIndex<number, WalletAddress, string>((w) =>
    w.addressType === ADDRESS_TYPE.MAIN ? userNetwork(w.userId, w.networkCode) : undefined));
  readonly subCounts = this.index(new CountIndex<number, WalletAddress, string | null>((w) =>
    w.addressType === ADDRESS_TYPE.SUB ? userNetwork(w.userId, w.networkCode) : null));
}

/** The key of a (user, network) pair in the wallet indexes. */
export function userNetwork(userId: UserId, networkCode: string): string {
  return `${userId}\u0000${networkCode}`;
}

/** Cashier tokens by user (newest first), by hash and by address. */
export class CashierTokenTable extends IndexedTable<string, CashierToken> {
  readonly byUser = this.index(new OrderedGroupIndex<string, CashierToken, UserId>((t) => t.userId, (t) => t.createdAt, true));
  readonly byHash = this.index(new GroupIndex<string, CashierToken, string>((t) => t.tokenHash));
  readonly byAddress = this.index(new GroupIndex<string, CashierToken, string>((t) => t.address));
}

/** Webhook deliveries: claims by next attempt, by user (newest first), by event. */
export class DeliveryTable extends IndexedTable<string, WebhookDelivery> {
  readonly due = this.index(new ClaimIndex<string, WebhookDelivery>((d) => {
    const waiting = d.status === DELIVERY_STATUS.PENDING || d.status === DELIVERY_STATUS.RETRYING;
    return !waiting || d.nextAttemptAt === null ? null : { due: d.nextAttemptAt, leaseUntil: d.lease?.expiresAt ?? null, rank: 0 };
  }));
  readonly byUser = this.index(new OrderedGroupIndex<string, WebhookDelivery, UserId>((d) => d.userId, (d) => d.createdAt, true));
  readonly byEvent = this.index(new GroupIndex<string, WebhookDelivery, string>((d) => d.eventId));
}

/** Outbox events: the undispatched ones by occurredAt, then appending order (a claim queue that is never leased). */
export class EventTable extends IndexedTable<string, WebhookEvent> {
  readonly undispatched = this.index(new ClaimIndex<string, WebhookEvent>((e) => e.dispatched ? null : { due: e.occurredAt, leaseUntil: null, rank: 0 }));
}

/**
 * Accounts: the unverified ones by createdAt, then insertion order (the expiry sweep deletes a prefix), and the
 * pending registrations of each lower-cased e-mail in the same order.
 */
export class AccountTable extends IndexedTable<UserId, Account> {
  readonly unverified = this.index(new OrderedGroupIndex<UserId, Account, true>((a) => a.verified ? undefined : true, (a) => a.createdAt, false));
  readonly pendingByEmail = this.index(new OrderedGroupIndex<UserId, Account, string>(
    (a) => a.verified ? undefined : a.email.toLowerCase(), (a) => a.createdAt, false,
  ));
}

/** Sessions: the unrevoked ones by user (a password change or reset revokes them all). */
export class SessionTable extends IndexedTable<string, Session> {
  readonly activeByUser = this.index(new GroupIndex<string, Session, UserId>((s) => s.revokedAt === null ? s.userId : undefined));
}

/** API tokens: the unrevoked ones by user, by id (the order of ApiTokenRepository.listActiveByUser; the cap counts them). */
export class ApiTokenTable extends IndexedTable<number, ApiToken> {
  readonly activeByUser = this.index(new OrderedGroupIndex<number, ApiToken, UserId>((t) => t.revokedAt === null ? t.userId : undefined, (t) => t.id, false));
}

/**
 * Developer configurations: those with a URL waiting for review, by pendingSince (null as 0), then insertion order —
 * the order of DeveloperConfigRepository.listPending (a stable sort of the table).
 */
export class DeveloperConfigTable extends IndexedTable<UserId, DeveloperConfig> {
  readonly pending = this.index(new OrderedGroupIndex<UserId, DeveloperConfig, true>((c) => c.pendingUrl !== null ? true : undefined, (c) => c.pendingSince ?? 0, false));
}
