import type { Db, MongoClient } from 'mongodb';
import type { Clock } from '../../core/ports/clock.port.js';
import type { IdGenerator } from '../../core/ports/id-generator.port.js';
import { MongoAccountRepository } from './mongo-account-repository.js';
import type { ApiTokenRepository } from '../../core/ports/api-token-repository.port.js';
import type { SessionRepository } from '../../core/ports/session-repository.port.js';
import { AGE_ONLY, CachedApiTokenRepository, CachedSessionRepository } from '../records/cached-tokens.js';
import { MongoApiTokenRepository } from './mongo-api-token-repository.js';
import { MongoAuditLog } from './mongo-audit-log.js';
import { MongoWithdrawalPolicyRepository } from './mongo-withdrawal-policy-repository.js';
import { MongoBalanceRepository } from './mongo-balance-repository.js';
import { MongoCashierTokenRepository } from './mongo-cashier-token-repository.js';
import { MongoCollectionTaskRepository } from './mongo-collection-task-repository.js';
import { MongoCommandRepository } from './mongo-command-repository.js';
import { MongoDepositRepository } from './mongo-deposit-repository.js';
import { MongoDeveloperConfigRepository } from './mongo-developer-config-repository.js';
import { MongoEventOutbox } from './mongo-event-outbox.js';
import { MongoIdGenerator } from './mongo-id-generator.js';
import { MongoIdempotencyStore } from './mongo-idempotency-store.js';
import { MongoLedger } from './mongo-ledger.js';
import { MongoMemberRepository } from './mongo-member-repository.js';
import { MongoRiskPolicy } from './mongo-risk-policy.js';
import { MongoSessionRepository } from './mongo-session-repository.js';
import { MongoSubscriptionRepository } from './mongo-subscription-repository.js';
import { MongoUnitOfWork } from './mongo-unit-of-work.js';
import { MongoWalletRepository } from './mongo-wallet-repository.js';
import { MongoWebhookDeliveryRepository } from './mongo-webhook-delivery-repository.js';
import { scopedDb } from './mongo-transaction.js';

/** Every store-backed port on one MongoDB database: the same members as MemoryAdapters, minus the memory store. */
export interface MongoAdapters {
  readonly clock: Clock;
  readonly ids: IdGenerator;
  readonly accounts: MongoAccountRepository;
  readonly sessions: SessionRepository;
  readonly subscriptions: MongoSubscriptionRepository;
  readonly apiTokens: ApiTokenRepository;
  readonly wallets: MongoWalletRepository;
  readonly balances: MongoBalanceRepository;
  readonly deposits: MongoDepositRepository;
  readonly commands: MongoCommandRepository;
  readonly tasks: MongoCollectionTaskRepository;
  readonly cashierTokens: MongoCashierTokenRepository;
  readonly developerConfigs: MongoDeveloperConfigRepository;
  readonly outbox: MongoEventOutbox;
  readonly deliveries: MongoWebhookDeliveryRepository;
  readonly uow: MongoUnitOfWork;
  readonly idempotency: MongoIdempotencyStore;
  readonly risk: MongoRiskPolicy;
  readonly auditLog: MongoAuditLog;
  readonly withdrawalPolicies: MongoWithdrawalPolicyRepository;
  readonly ledger: MongoLedger;
  /** Teams (issue #35 item 1). */
  readonly members: MongoMemberRepository;
}

/** Options of createMongoAdapters. */
export interface MongoAdapterOptions {
  /** The connection (connectMongo's result fits): client, database, and whether transactions are available. */
  readonly connection: { readonly client: MongoClient; readonly db: Db; readonly transactions: boolean };
  /** Drives idempotency expiry; the repositories store the times their callers pass. */
  readonly clock: Clock;
  /** Defaults to MongoIdGenerator: integer sequences shared by every process on the database. */
  readonly ids?: IdGenerator;
}

/**
 * How long an API process answers a token from memory on MongoDB (issue #37): no change is heard here (a change
 * stream per process was judged not worth its cost and its failure modes), so the age is the bound, and a revoked,
 * logged-out or reset token is refused by every process within it, under the 1 s.
 */
const TOKEN_CACHE_MS = 750;

/**
 * Builds every MongoDB repository, the unit of work, the idempotency store and the risk deny-list on one database.
 * Nothing connects here: the connection is opened (and the indexes created) by connectMongo.
 *
 * With `transactions` false (a standalone server, accepted only through connectMongo's `allowStandalone`) the unit
 * of work and the sub-address quota run without multi-document transactions; see MongoUnitOfWork.
 */
export function createMongoAdapters(options: MongoAdapterOptions): MongoAdapters {
  const { client, transactions } = options.connection;
  const transactional = transactions ? client : null;
  // The repositories' collections join the unit of work's atomic scopes (decision 144); the id counters stay out of
  // them, so concurrent scopes never conflict on a counter document.
  const db = scopedDb(options.connection.db);
  return {
    clock: options.clock,
    ids: options.ids ?? new MongoIdGenerator(options.connection.db),
    accounts: new MongoAccountRepository(db),
    sessions: new CachedSessionRepository(new MongoSessionRepository(db), AGE_ONLY, TOKEN_CACHE_MS),
    subscriptions: new MongoSubscriptionRepository(db),
    apiTokens: new CachedApiTokenRepository(new MongoApiTokenRepository(db), AGE_ONLY, TOKEN_CACHE_MS),
    wallets: new MongoWalletRepository(db, transactional),
    balances: new MongoBalanceRepository(db),
    deposits: new MongoDepositRepository(db),
    commands: new MongoCommandRepository(db),
    tasks: new MongoCollectionTaskRepository(db),
    cashierTokens: new MongoCashierTokenRepository(db),
    developerConfigs: new MongoDeveloperConfigRepository(db),
    outbox: new MongoEventOutbox(db),
    deliveries: new MongoWebhookDeliveryRepository(db),
    uow: new MongoUnitOfWork(db, transactional),
    idempotency: new MongoIdempotencyStore(db, options.clock),
    risk: new MongoRiskPolicy(db),
    auditLog: new MongoAuditLog(db),
    withdrawalPolicies: new MongoWithdrawalPolicyRepository(db),
    ledger: new MongoLedger(db, transactional),
    members: new MongoMemberRepository(db),
  };
}
