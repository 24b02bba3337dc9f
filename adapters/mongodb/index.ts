/** MongoDB store: connection, indexes, every store-backed port, and the document mappings (for migrations and tests). */
export { connectMongo, redactMongoUrl, DEFAULT_DATABASE, type ConnectMongoOptions, type MongoConnection } from './mongo-connection.js';
export { createMongoAdapters, type MongoAdapterOptions, type MongoAdapters } from './create-mongo-adapters.js';
export { ensureIndexes, INDEX_DEFINITIONS, type IndexDefinition, type IndexTarget } from './mongo-indexes.js';
export { COLLECTIONS, type CollectionName } from './collections.js';
export { MongoAccountRepository } from './mongo-account-repository.js';
export { MongoSessionRepository } from './mongo-session-repository.js';
export { MongoSubscriptionRepository } from './mongo-subscription-repository.js';
export { MongoApiTokenRepository } from './mongo-api-token-repository.js';
export { MongoWalletRepository } from './mongo-wallet-repository.js';
export { MongoBalanceRepository } from './mongo-balance-repository.js';
export { MongoCommandRepository } from './mongo-command-repository.js';
export { MongoCollectionTaskRepository } from './mongo-collection-task-repository.js';
export { MongoCashierTokenRepository } from './mongo-cashier-token-repository.js';
export { MongoDeveloperConfigRepository } from './mongo-developer-config-repository.js';
export { MongoEventOutbox } from './mongo-event-outbox.js';
export { MongoWebhookDeliveryRepository } from './mongo-webhook-delivery-repository.js';
export { MongoUnitOfWork } from './mongo-unit-of-work.js';
export { MongoIdempotencyStore } from './mongo-idempotency-store.js';
export { MongoRiskPolicy } from './mongo-risk-policy.js';
export { MongoIdGenerator } from './mongo-id-generator.js';
export { MongoScanCursorStore } from './mongo-scan-cursor-store.js';
export { MongoOperatorStatusStore, OPERATOR_STATUS_COLLECTION } from './mongo-operator-status-store.js';
/** The key backup and rotation ports (keys:export, keys:import, keys:rotate; issue #39 item 4). */
export { MongoWalletKeys } from './mongo-wallet-keys.js';
export { MongoEncryptedRecords } from './mongo-encrypted-records.js';
