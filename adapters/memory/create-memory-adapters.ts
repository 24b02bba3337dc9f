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
import { gated } from './memory-scope.js';
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
  // Every port's calls go through the store's gate, so an atomic scope runs alone (memory-scope.ts).
  const g = <T extends object>(port: T): T => gated(port, store.gate);
  return {
    store,
    clock: options.clock,
    ids: options.ids ?? new MemoryIdGenerator(store),
    accounts: g(new MemoryAccountRepository(store)),
    sessions: g(new MemorySessionRepository(store)),
    subscriptions: g(new MemorySubscriptionRepository(store)),
    apiTokens: g(new MemoryApiTokenRepository(store)),
    wallets: g(new MemoryWalletRepository(store)),
    balances: g(new MemoryBalanceRepository(store)),
    deposits: g(new MemoryDepositRepository(store)),
    commands: g(new MemoryCommandRepository(store)),
    tasks: g(new MemoryCollectionTaskRepository(store)),
    cashierTokens: g(new MemoryCashierTokenRepository(store)),
    developerConfigs: g(new MemoryDeveloperConfigRepository(store)),
    outbox: g(new MemoryEventOutbox(store)),
    deliveries: g(new MemoryWebhookDeliveryRepository(store)),
    uow: g(new MemoryUnitOfWork(store)),
    idempotency: g(new MemoryIdempotencyStore(store, options.clock)),
    risk: g(new MemoryRiskPolicy(store)),
    auditLog: g(new MemoryAuditLog(store)),
    withdrawalPolicies: g(new MemoryWithdrawalPolicyRepository(store)),
    ledger: g(new MemoryLedger()),
    members: g(new MemoryMemberRepository()),
  };
}
