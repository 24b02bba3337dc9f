-- The books (issue #36): double-entry transactions, immutable. One transaction per (user, cause): the unique
-- constraint is what books a cause exactly once across retries, crashes and workers. `ledger_accounts` holds each
-- account's running balance; a post locks the rows of its accounts (in key order, so two posts cannot deadlock) and
-- writes each entry's balance_after from it. Money is NUMERIC(78, 0), signed; times are BIGINT epoch milliseconds;
-- `seq` is the booking order (per account it follows the row lock).

CREATE TABLE ledger_transactions (
  transaction_id TEXT PRIMARY KEY,
  user_id        BIGINT NOT NULL,
  cause_type     TEXT NOT NULL,
  cause_id       TEXT NOT NULL,
  CONSTRAINT ledger_transactions_cause_unique UNIQUE (user_id, cause_type, cause_id)
);

CREATE TABLE ledger_accounts (
  user_id      BIGINT NOT NULL,
  account_key  TEXT NOT NULL,
  balance      NUMERIC(78, 0) NOT NULL,
  PRIMARY KEY (user_id, account_key)
);

CREATE TABLE ledger_entries (
  entry_id       TEXT PRIMARY KEY,
  seq            BIGSERIAL NOT NULL,
  transaction_id TEXT NOT NULL REFERENCES ledger_transactions (transaction_id),
  user_id        BIGINT NOT NULL,
  occurred_at    BIGINT NOT NULL,
  account_key    TEXT NOT NULL,
  kind           TEXT NOT NULL CHECK (kind IN ('custodial', 'fee_trx_burned', 'fee_bandwidth', 'fee_energy_rental', 'external_in', 'external_out')),
  network_code   TEXT NOT NULL,
  asset_symbol   TEXT NOT NULL,
  address        TEXT,
  amount         NUMERIC(78, 0) NOT NULL CHECK (amount <> 0),
  balance_after  NUMERIC(78, 0) NOT NULL,
  cause_type     TEXT NOT NULL,
  cause_id       TEXT NOT NULL,
  cause_txid     TEXT,
  reverses       TEXT
);
-- GET /ledger/entries (booking order, with the time filters) and one transaction's entries.
CREATE INDEX ledger_entries_by_user ON ledger_entries (user_id, seq);
CREATE INDEX ledger_entries_by_user_time ON ledger_entries (user_id, occurred_at, seq);
CREATE INDEX ledger_entries_by_transaction ON ledger_entries (transaction_id, seq);
-- balancesAt: per account, one index probe for its latest entry at or before a time.
CREATE INDEX ledger_entries_by_account ON ledger_entries (user_id, account_key, occurred_at DESC, seq DESC);
