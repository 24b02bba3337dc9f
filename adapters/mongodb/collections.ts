/**
 * Collection names of the MongoDB store, one per aggregate plus the two bookkeeping collections (`counters` for
 * integer sequences, `wallet_quotas` for the per-(user, network) sub-address counter) and the scanners' cursors. Renaming one is a migration.
 */
export const COLLECTIONS = {
  accounts: 'accounts',
  sessions: 'sessions',
  subscriptions: 'subscriptions',
  apiTokens: 'api_tokens',
  wallets: 'wallet_addresses',
  walletQuotas: 'wallet_quotas',
  balances: 'balance_snapshots',
  deposits: 'deposits',
  commands: 'commands',
  tasks: 'collection_tasks',
  cashierTokens: 'cashier_tokens',
  developerConfigs: 'developer_configs',
  events: 'webhook_events',
  deliveries: 'webhook_deliveries',
  idempotency: 'idempotency_records',
  counters: 'counters',
  riskEntries: 'risk_entries',
  scanCursors: 'scan_cursors',
  auditEntries: 'audit_entries',
  withdrawalPolicies: 'withdrawal_policies',
  allowListEntries: 'allow_list_entries',
  /** One document per (purpose, user) a transaction updates to serialise that user's velocity checks (issue #26). */
  policyLocks: 'policy_locks',
  /** The books (issue #36): one document per transaction (its cause), per account balance (and per user counter), per entry. */
  ledgerTransactions: 'ledger_transactions',
  ledgerAccounts: 'ledger_accounts',
  ledgerEntries: 'ledger_entries',
  /** An account's team members (issue #35 item 1), `_id` the member id. */
  accountMembers: 'account_members',
} as const;

/** Any collection name of the store. */
export type CollectionName = (typeof COLLECTIONS)[keyof typeof COLLECTIONS];
