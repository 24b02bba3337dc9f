/**
 * The exported contract suites: one `describeXContract(name, makeSubject, options)` factory per port, for other teams
 * to run against their own adapters (vitest). Harnesses for real services live in ./harness/.
 */
export * from './account-repository.contract.js';
export * from './address-lock.contract.js';
export * from './api-token-repository.contract.js';
export * from './atomic-scope.contract.js';
export * from './audit-log.contract.js';
export * from './balance-repository.contract.js';
export * from './block-source.contract.js';
export * from './cashier-token-repository.contract.js';
export * from './chain-gateway.contract.js';
export * from './collection-task-repository.contract.js';
export * from './command-repository.contract.js';
export * from './deposit-repository.contract.js';
export * from './developer-config-repository.contract.js';
export * from './encrypted-record-store.contract.js';
export * from './energy-provider.contract.js';
export * from './event-outbox.contract.js';
export * from './idempotency-store.contract.js';
export * from './ledger.contract.js';
export * from './rate-limiter.contract.js';
export * from './rental-provider.contract.js';
export * from './risk-policy.contract.js';
export * from './scan-cursor-store.contract.js';
export * from './operator-status-store.contract.js';
export * from './session-repository.contract.js';
export * from './subscription-repository.contract.js';
export * from './totp-generator.contract.js';
export * from './wallet-key-store.contract.js';
export * from './wallet-repository.contract.js';
export * from './webhook-delivery-repository.contract.js';
export * from './withdrawal-policy-repository.contract.js';
export * from './support/contract-options.js';
export * from './unit-of-work.contract.js';
export * from './member-repository.contract.js';
