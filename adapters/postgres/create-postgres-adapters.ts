import type { ApiTokenRepository } from '../../core/ports/api-token-repository.port.js';
import type { Clock } from '../../core/ports/clock.port.js';
import type { IdGenerator } from '../../core/ports/id-generator.port.js';
import type { SessionRepository } from '../../core/ports/session-repository.port.js';
import type { PostgresConnection } from './pg-connection.js';
import { PgAccountRepository } from './pg-account-repository.js';
import { PgApiTokenRepository } from './pg-api-token-repository.js';
import { PgAuditLog } from './pg-audit-log.js';
import { PgWithdrawalPolicyRepository } from './pg-withdrawal-policy-repository.js';
import { PgBalanceRepository } from './pg-balance-repository.js';
import { CachedApiTokenRepository, CachedSessionRepository } from '../records/cached-tokens.js';
import { PgCashierTokenRepository } from './pg-cashier-token-repository.js';
import { PgCollectionTaskRepository } from './pg-collection-task-repository.js';
import { PgCommandRepository } from './pg-command-repository.js';
import { PgDepositRepository } from './pg-deposit-repository.js';
import { PgLedger } from './pg-ledger.js';
import { PgDeveloperConfigRepository } from './pg-developer-config-repository.js';
import { PgEventOutbox } from './pg-event-outbox.js';
import { PgIdGenerator } from './pg-id-generator.js';
import { PgIdempotencyStore } from './pg-idempotency-store.js';
import { PgRiskPolicy } from './pg-risk-policy.js';
import { PgScanCursorStore } from './pg-scan-cursor-store.js';
import { PgSessionRepository } from './pg-session-repository.js';
import { PgMemberRepository } from './pg-member-repository.js';
import { PgSubscriptionRepository } from './pg-subscription-repository.js';
import { tokenListenerOf } from './pg-token-listener.js';
import { PgUnitOfWork } from './pg-unit-of-work.js';
import { PgWalletRepository } from './pg-wallet-repository.js';
import { PgWebhookDeliveryRepository } from './pg-webhook-delivery-repository.js';
import { routeThroughScopes } from './pg-support.js';

/** Every store-backed port on one PostgreSQL database: the members of MemoryAdapters (minus the memory store), and the scan cursors. */
export interface PostgresAdapters {
  readonly clock: Clock;
  readonly ids: IdGenerator;
  readonly accounts: PgAccountRepository;
  readonly sessions: SessionRepository;
  readonly subscriptions: PgSubscriptionRepository;
  readonly apiTokens: ApiTokenRepository;
  readonly wallets: PgWalletRepository;
  readonly balances: PgBalanceRepository;
  readonly deposits: PgDepositRepository;
  readonly commands: PgCommandRepository;
  readonly tasks: PgCollectionTaskRepository;
  readonly cashierTokens: PgCashierTokenRepository;
  readonly developerConfigs: PgDeveloperConfigRepository;
  readonly outbox: PgEventOutbox;
  readonly deliveries: PgWebhookDeliveryRepository;
  readonly uow: PgUnitOfWork;
  readonly idempotency: PgIdempotencyStore;
  readonly risk: PgRiskPolicy;
  readonly scanCursors: PgScanCursorStore;
  readonly auditLog: PgAuditLog;
  readonly withdrawalPolicies: PgWithdrawalPolicyRepository;
  readonly ledger: PgLedger;
  /** Teams (issue #35 item 1). */
  readonly members: PgMemberRepository;
}

/** Options of createPostgresAdapters. */
export interface PostgresAdapterOptions {
  /** The open pool (connectPostgres's result fits; migrations already applied). */
  readonly connection: Pick<PostgresConnection, 'pool'>;
  /** Drives idempotency expiry; the repositories store the times their callers pass. */
  readonly clock: Clock;
  /** Defaults to PgIdGenerator: sequences shared by every process on the database. */
  readonly ids?: IdGenerator;
}

/** Builds every PostgreSQL repository, the unit of work, the idempotency store and the risk deny-list on one pool. Nothing connects here. */
export function createPostgresAdapters(options: PostgresAdapterOptions): PostgresAdapters {
  const { pool } = options.connection;
  // Every repository below joins the unit of work's atomic scopes through the pool (decision 144).
  routeThroughScopes(pool);
  // API and session tokens are remembered in the process, forgotten within 1 s of a change in any process (issue #37,
  // records/cached-tokens.ts); the listener's session opens on the first token lookup (never in a worker) and ends with the pool.
  const listener = tokenListenerOf(pool);
  return {
    clock: options.clock,
    ids: options.ids ?? new PgIdGenerator(pool),
    accounts: new PgAccountRepository(pool),
    sessions: new CachedSessionRepository(new PgSessionRepository(pool), listener),
    subscriptions: new PgSubscriptionRepository(pool),
    apiTokens: new CachedApiTokenRepository(new PgApiTokenRepository(pool), listener),
    wallets: new PgWalletRepository(pool),
    balances: new PgBalanceRepository(pool),
    deposits: new PgDepositRepository(pool),
    commands: new PgCommandRepository(pool),
    tasks: new PgCollectionTaskRepository(pool),
    cashierTokens: new PgCashierTokenRepository(pool),
    developerConfigs: new PgDeveloperConfigRepository(pool),
    outbox: new PgEventOutbox(pool),
    deliveries: new PgWebhookDeliveryRepository(pool),
    uow: new PgUnitOfWork(pool),
    idempotency: new PgIdempotencyStore(pool, options.clock),
    risk: new PgRiskPolicy(pool),
    scanCursors: new PgScanCursorStore(pool),
    auditLog: new PgAuditLog(pool),
    withdrawalPolicies: new PgWithdrawalPolicyRepository(pool),
    ledger: new PgLedger(pool),
    members: new PgMemberRepository(pool),
  };
}
