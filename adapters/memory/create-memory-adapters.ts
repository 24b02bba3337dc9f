import type { Clock } from '../../core/ports/clock.port.js';
import type { IdGenerator } from '../../core/ports/id-generator.port.js';
import { MemoryAccountRepository } from './memory-account-repository.js';
import { MemoryAuditLog } from './memory-audit-log.js';
import { MemoryApiTokenRepository } from './memory-api-token-repository.js';
import { MemoryBalanceRepository } from './memory-balance-repository.js';
import { MemoryCashierTokenRepository } from './memory-cashier-token-repository.js';
import { MemoryCollectionTaskRepository } from './memory-collection-task-repository.js';
import { MemoryCommandRepository } from './memory-command-repository.js';
import { MemoryDepositRepository } from './memory-deposit-repository.js';
import { MemoryDeveloperConfigRepository } from './memory-developer-config-repository.js';
import { MemoryEventOutbox } from './memory-event-outbox.js';
import { MemoryIdGenerator } from './memory-id-generator.js';
import { MemoryIdempotencyStore } from './memory-idempotency-store.js';
import { MemoryLedger } from './memory-ledger.js';
import { MemoryMemberRepository } from './memory-member-repository.js';
import { MemoryRiskPolicy } from './memory-risk-policy.js';
import { MemorySessionRepository } from './memory-session-repository.js';
import { MemoryStore } from './memory-store.js';
import { MemorySubscriptionRepository } from './memory-subscription-repository.js';
import { MemoryUnitOfWork } from './memory-unit-of-work.js';
import { MemoryWalletRepository } from './memory-wallet-repository.js';
import { MemoryWebhookDeliveryRepository } from './memory-webhook-delivery-repository.js';
import { MemoryWithdrawalPolicyRepository } from './memory-withdrawal-policy-repository.js';

/** Every store-backed port, implemented in memory over one shared MemoryStore. */
export interface MemoryAdapters {
  readonly store: MemoryStore;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  readonly accounts: MemoryAccountRepository;
  readonly sessions: MemorySessionRepository;
  readonly subscriptions: MemorySubscriptionRepository;
  readonly apiTokens: MemoryApiTokenRepository;
  readonly wallets: MemoryWalletRepository;
  readonly balances: MemoryBalanceRepository;
  readonly deposits: MemoryDepositRepository;
  readonly commands: MemoryCommandRepository;
  readonly tasks: MemoryCollectionTaskRepository;
  readonly cashierTokens: MemoryCashierTokenRepository;
  readonly developerConfigs: MemoryDeveloperConfigRepository;
  readonly outbox: MemoryEventOutbox;
  readonly deliveries: MemoryWebhookDeliveryRepository;
  readonly uow: MemoryUnitOfWork;
  readonly idempotency: MemoryIdempotencyStore;
  readonly risk: MemoryRiskPolicy;
  readonly auditLog: MemoryAuditLog;
  readonly withdrawalPolicies: MemoryWithdrawalPolicyRepository;
  /** The books (issue #36); nothing of them outlives the process, like the rest of the store. */
  readonly ledger: MemoryLedger;
  /** Teams (issue #35 item 1). */
  readonly members: MemoryMemberRepository;
}

/** Options of createMemoryAdapters: the clock is required (expiry runs on it); ids default to MemoryIdGenerator. */
export interface MemoryAdapterOptions {
  readonly clock: Clock;
  readonly ids?: IdGenerator;
}

/**
 * Builds the embedded store: every repository, the unit of work, the idempotency store, the risk deny-list and the
 * id generator, all sharing one fresh MemoryStore (so a unit of work is atomic across them).
 */
export function createMemoryAdapters(options: MemoryAdapterOptions): MemoryAdapters {
  const store = new MemoryStore();
  return {
    store,
    clock: options.clock,
    ids: options.ids ?? new MemoryIdGenerator(store),
    accounts: new MemoryAccountRepository(store),
    sessions: new MemorySessionRepository(store),
    subscriptions: new MemorySubscriptionRepository(store),
    apiTokens: new MemoryApiTokenRepository(store),
    wallets: new MemoryWalletRepository(store),
    balances: new MemoryBalanceRepository(store),
    deposits: new MemoryDepositRepository(store),
    commands: new MemoryCommandRepository(store),
    tasks: new MemoryCollectionTaskRepository(store),
    cashierTokens: new MemoryCashierTokenRepository(store),
    developerConfigs: new MemoryDeveloperConfigRepository(store),
    outbox: new MemoryEventOutbox(store),
    deliveries: new MemoryWebhookDeliveryRepository(store),
    uow: new MemoryUnitOfWork(store),
    idempotency: new MemoryIdempotencyStore(store, options.clock),
    risk: new MemoryRiskPolicy(store),
    auditLog: new MemoryAuditLog(store),
    withdrawalPolicies: new MemoryWithdrawalPolicyRepository(store),
    ledger: new MemoryLedger(),
    members: new MemoryMemberRepository(),
  };
}
