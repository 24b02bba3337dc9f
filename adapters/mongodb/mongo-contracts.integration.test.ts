import { afterAll, beforeAll, describe } from 'vitest';
import { describeAccountRepositoryContract } from '../../contracts-tests/account-repository.contract.js';
import { describeApiTokenRepositoryContract } from '../../contracts-tests/api-token-repository.contract.js';
import { describeAuditLogContract } from '../../contracts-tests/audit-log.contract.js';
import { describeBalanceRepositoryContract } from '../../contracts-tests/balance-repository.contract.js';
import { describeCashierTokenRepositoryContract } from '../../contracts-tests/cashier-token-repository.contract.js';
import { describeCollectionTaskRepositoryContract } from '../../contracts-tests/collection-task-repository.contract.js';
import { describeCommandRepositoryContract } from '../../contracts-tests/command-repository.contract.js';
import { describeLedgerContract } from '../../contracts-tests/ledger.contract.js';
import { describeDepositRepositoryContract } from '../../contracts-tests/deposit-repository.contract.js';
import { describeDeveloperConfigRepositoryContract } from '../../contracts-tests/developer-config-repository.contract.js';
import { describeWithdrawalPolicyRepositoryContract } from '../../contracts-tests/withdrawal-policy-repository.contract.js';
import { describeMemberRepositoryContract } from '../../contracts-tests/member-repository.contract.js';
import { describeEventOutboxContract } from '../../contracts-tests/event-outbox.contract.js';
import { describeIdempotencyStoreContract } from '../../contracts-tests/idempotency-store.contract.js';
import { describeRiskPolicyContract } from '../../contracts-tests/risk-policy.contract.js';
import { MONGO_SKIP_MESSAGE, openTestDatabase, provisionMongo, type MongoTestDatabase } from '../../contracts-tests/harness/mongodb.js';
import { describeSessionRepositoryContract } from '../../contracts-tests/session-repository.contract.js';
import { describeSubscriptionRepositoryContract } from '../../contracts-tests/subscription-repository.contract.js';
import { describeWalletRepositoryContract } from '../../contracts-tests/wallet-repository.contract.js';
import { describeWalletKeyStoreContract } from '../../contracts-tests/wallet-key-store.contract.js';
import { describeEncryptedRecordStoreContract } from '../../contracts-tests/encrypted-record-store.contract.js';
import { describeAtomicScopeContract } from '../../contracts-tests/atomic-scope.contract.js';
import { describeUnitOfWorkContract } from '../../contracts-tests/unit-of-work.contract.js';
import { describeWebhookDeliveryRepositoryContract } from '../../contracts-tests/webhook-delivery-repository.contract.js';
import { createMemoryAdapters } from '../memory/create-memory-adapters.js';
import { ManualClock } from '../memory/manual-clock.js';
import { createMongoAdapters, type MongoAdapters } from './create-mongo-adapters.js';
import { describeMongoAdapterTests } from './mongo-adapter.checks.js';
import { MongoEncryptedRecords } from './mongo-encrypted-records.js';
import { MongoWalletKeys } from './mongo-wallet-keys.js';

// Every store-port contract suite against MongoDB (MONGODB_URL, else a mongo:7 replica-set container), one database
// for this file, emptied before every subject. Without a MongoDB the whole file is reported as skipped, loudly.
const target = await provisionMongo();
const unavailable = target.kind === 'unavailable';
if (target.kind === 'unavailable') console.warn(`${MONGO_SKIP_MESSAGE} (${target.reason})`);

/** Expensive property runs (each run empties the database): fewer than the suites' default of 50. */
const OPTIONS = { numRuns: 15, concurrency: 50 } as const;

describe.skipIf(unavailable)('MongoDB store', () => {
  let database: MongoTestDatabase | undefined;

  beforeAll(async () => {
    if (target.kind === 'unavailable') return;
    database = await openTestDatabase(target.url, 'contracts');
  });

  afterAll(async () => {
    await database?.drop();
    if (target.kind !== 'unavailable') await target.stop();
  });

  /** A fresh, empty store sharing this file's connection, on a clock the suites can move; nothing to close. */
  const fresh = async (): Promise<MongoAdapters & { readonly clock: ManualClock }> => {
    if (database === undefined) throw new Error('the MongoDB test database is not open');
    await database.clear();
    const clock = new ManualClock();
    return { ...createMongoAdapters({ connection: database.connection, clock }), clock };
  };

  describeAccountRepositoryContract('mongodb', fresh, OPTIONS);
  describeSessionRepositoryContract('mongodb', fresh, OPTIONS);
  describeSubscriptionRepositoryContract('mongodb', fresh, OPTIONS);
  describeApiTokenRepositoryContract('mongodb', fresh, OPTIONS);
  describeWalletRepositoryContract('mongodb', fresh, OPTIONS);
  describeBalanceRepositoryContract('mongodb', fresh, OPTIONS);
  describeDepositRepositoryContract('mongodb', fresh, OPTIONS);
  describeCommandRepositoryContract('mongodb', fresh, OPTIONS);
  describeCollectionTaskRepositoryContract('mongodb', fresh, OPTIONS);
  describeCashierTokenRepositoryContract('mongodb', fresh, OPTIONS);
  describeDeveloperConfigRepositoryContract('mongodb', fresh, OPTIONS);
  describeWithdrawalPolicyRepositoryContract('mongodb', fresh, OPTIONS);
  describeMemberRepositoryContract('mongodb', fresh, OPTIONS);
  describeEventOutboxContract('mongodb', fresh, OPTIONS);
  describeLedgerContract('mongodb', fresh, { ...OPTIONS, concurrency: 20 });
  describeWebhookDeliveryRepositoryContract('mongodb', fresh, OPTIONS);
  describeIdempotencyStoreContract('mongodb', fresh, OPTIONS);
  describeRiskPolicyContract('mongodb', fresh, OPTIONS);
  describeAuditLogContract('mongodb', fresh, OPTIONS);
  // No savepoints in a MongoDB transaction: a failure inside a scope ends it (decision 144).
  describeAtomicScopeContract('mongodb', fresh, { ...OPTIONS, isolation: 'snapshot', savepoints: false });

  const memoryReference = () => createMemoryAdapters({ clock: new ManualClock() });
  describeUnitOfWorkContract('mongodb', fresh, { ...OPTIONS, reference: memoryReference });
  // Without transactions a racing writer can leave part of a change set behind (MongoUnitOfWork): the sequential
  // property only, not the race tests.
  describeUnitOfWorkContract('mongodb without transactions (the allowStandalone fallback)', async () => {
    const stores = await fresh();
    return createMongoAdapters({ connection: { ...database!.connection, transactions: false }, clock: stores.clock });
  }, { ...OPTIONS, concurrency: 1, reference: memoryReference });

  // The key backup and rotation ports (keys:export, keys:import, keys:rotate; issue #39 item 4).
  describeWalletKeyStoreContract('mongodb', async () => {
    const stores = await fresh();
    const { db, client, transactions } = database!.connection;
    return { walletKeys: new MongoWalletKeys(db, transactions ? client : null), ids: stores.ids };
  });
  describeEncryptedRecordStoreContract('mongodb', async () => ({ ...(await fresh()), records: new MongoEncryptedRecords(database!.connection.db) }));

  describeMongoAdapterTests(() => {
    if (database === undefined) throw new Error('the MongoDB test database is not open');
    return database;
  }, fresh);
});

