import { ACCOUNT_RECORD, API_TOKEN_RECORD, SESSION_RECORD, SUBSCRIPTION_RECORD } from '../records/account-record.js';
import { AUDIT_ENTRY_RECORD } from '../records/audit-record.js';
import { CASHIER_TOKEN_RECORD } from '../records/cashier-token-record.js';
import { COLLECTION_TASK_RECORD } from '../records/collection-task-record.js';
import { COMMAND_RECORD } from '../records/command-record.js';
import { DEPOSIT_RECORD } from '../records/deposit-record.js';
import { MEMBER_RECORD } from '../records/member-record.js';
import { RISK_ENTRY_RECORD } from '../records/risk-record.js';
import { BALANCE_RECORD, WALLET_RECORD } from '../records/wallet-record.js';
import { DEVELOPER_CONFIG_RECORD, WEBHOOK_DELIVERY_RECORD, WEBHOOK_EVENT_RECORD } from '../records/webhook-record.js';
import { ALLOW_LIST_ENTRY_RECORD, WITHDRAWAL_POLICY_RECORD } from '../records/withdrawal-policy-record.js';

/**
 * Collection names of the MongoDB store, one per aggregate plus the two bookkeeping collections (`counters` for
 * integer sequences, `wallet_quotas` for the per-(user, network) sub-address counter) and the scanners' cursors. Renaming one is a migration.
 * A record with a descriptor (adapters/records) has its collection named there, once; the others are named here.
 */
export const COLLECTIONS = {
  accounts: ACCOUNT_RECORD.collection,
  sessions: SESSION_RECORD.collection,
  subscriptions: SUBSCRIPTION_RECORD.collection,
  apiTokens: API_TOKEN_RECORD.collection,
  wallets: WALLET_RECORD.collection,
  walletQuotas: 'wallet_quotas',
  balances: BALANCE_RECORD.collection,
  deposits: DEPOSIT_RECORD.collection,
  commands: COMMAND_RECORD.collection,
  tasks: COLLECTION_TASK_RECORD.collection,
  cashierTokens: CASHIER_TOKEN_RECORD.collection,
  developerConfigs: DEVELOPER_CONFIG_RECORD.collection,
  events: WEBHOOK_EVENT_RECORD.collection,
  deliveries: WEBHOOK_DELIVERY_RECORD.collection,
  idempotency: 'idempotency_records',
  counters: 'counters',
  riskEntries: RISK_ENTRY_RECORD.collection,
  scanCursors: 'scan_cursors',
  auditEntries: AUDIT_ENTRY_RECORD.collection,
  withdrawalPolicies: WITHDRAWAL_POLICY_RECORD.collection,
  allowListEntries: ALLOW_LIST_ENTRY_RECORD.collection,
  /** One document per (purpose, user) a transaction updates to serialise that user's velocity checks (issue #26). */
  policyLocks: 'policy_locks',
  /** The books (issue #36): one document per transaction (its cause), per account balance (and per user counter), per entry. */
  ledgerTransactions: 'ledger_transactions',
  ledgerAccounts: 'ledger_accounts',
  ledgerEntries: 'ledger_entries',
  /** An account's team members (issue #35 item 1), `_id` the member id. */
  accountMembers: MEMBER_RECORD.collection,
} as const;

/** Any collection name of the store. */
export type CollectionName = (typeof COLLECTIONS)[keyof typeof COLLECTIONS];
