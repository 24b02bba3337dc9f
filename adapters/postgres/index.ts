export * from './create-postgres-adapters.js';
export * from './pg-connection.js';
export * from './pg-migrations.js';
