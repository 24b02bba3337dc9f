import type {
  AllowListEntry, AuditEntry, BalanceSnapshot, IdempotencyRecord, Subscription, UserId, WithdrawalPolicy,
} from '../../core/domain/model/index.js';
import type { RiskEntry } from '../../core/ports/risk-policy.port.js';
import type { Sequence } from '../../core/ports/id-generator.port.js';
import { DepositTable } from './memory-deposit-repository.js';
import { JournaledMap, ScopeGate } from './memory-scope.js';
import {
  AccountTable, ApiTokenTable, CashierTokenTable, CommandTable, DeliveryTable, DeveloperConfigTable, EventTable, SessionTable, TaskTable, WalletTable,
} from './memory-tables.js';

/**
 * The tables of the embedded store, shared by every memory repository and the unit of work so that one change set
 * commits atomically across them. Values are kept as deep-frozen copies (see frozen-copy.ts). JavaScript runs one
 * callback at a time, so a repository that checks and writes without an `await` in between is atomic.
 * The tables that are claimed or listed keep their own indexes on every write (memory-tables.ts): no hot path scans.
 * Every table but the sequences takes back the writes of an atomic scope that throws (memory-scope.ts); `gate` runs the
 * scopes one at a time, each alone.
 */
export class MemoryStore {
  readonly gate = new ScopeGate();
  readonly accounts = new AccountTable();
  /** Lower-cased email -> account id (emails are unique case-insensitively). */
  readonly accountIdsByEmail = new JournaledMap<string, UserId>();
  readonly sessions = new SessionTable();
  /** Keyed by `${userId}:${serviceCode}`. */
  readonly subscriptions = new JournaledMap<string, Subscription>();
  readonly apiTokens = new ApiTokenTable();
  /** Token hash -> api token id: every authenticated API request looks its bearer up by hash. */
  readonly apiTokenIdsByHash = new JournaledMap<string, number>();
  readonly wallets = new WalletTable();
  readonly walletIdsByAddress = new JournaledMap<string, number>();
  readonly balances = new JournaledMap<string, BalanceSnapshot>();
  readonly deposits = new DepositTable();
  readonly commands = new CommandTable();
  readonly tasks = new TaskTable();
  readonly cashierTokens = new CashierTokenTable();
  readonly developerConfigs = new DeveloperConfigTable();
  /** Outbox events in insertion order. */
  readonly events = new EventTable();
  readonly deliveries = new DeliveryTable();
  /** Keyed by `${scope}\u0000${key}`. */
  readonly idempotency = new JournaledMap<string, IdempotencyRecord>();
  /** Keyed by `${kind}:${value}`. */
  readonly riskEntries = new JournaledMap<string, RiskEntry>();
  /** Not taken back by an atomic scope's throw, as a PostgreSQL sequence is not (memory-scope.ts). */
  readonly sequences = new Map<Sequence, number>();
  /** Withdrawal policies by user (issue #26). */
  readonly withdrawalPolicies = new JournaledMap<UserId, WithdrawalPolicy>();
  /** Each user's allow-list: address -> entry. */
  readonly allowLists = new JournaledMap<UserId, Map<string, AllowListEntry>>();
  /** Each account's audit chain, in seq order (entry i has seq i + 1). */
  readonly auditChains = new JournaledMap<UserId, AuditEntry[]>();
}
