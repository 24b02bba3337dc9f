export * from './create-postgres-adapters.js';
export * from './pg-connection.js';
export * from './pg-migrations.js';
/** The key backup and rotation ports (keys:export, keys:import, keys:rotate; issue #39 item 4). */
export { PgWalletKeys } from './pg-wallet-keys.js';
export { PgEncryptedRecords } from './pg-encrypted-records.js';
/** What the worker tells the operator console (issue #38 item 2). */
export { PgOperatorStatusStore } from './pg-operator-status-store.js';
