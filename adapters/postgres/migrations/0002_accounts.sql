-- Accounts and what hangs off them (sessions, subscriptions, API tokens, developer configurations), the risk deny-list
-- and the id counters. Times are BIGINT epoch milliseconds; nested data that no query reads is JSONB.

CREATE TABLE accounts (
  id                       BIGINT PRIMARY KEY,
  email                    TEXT NOT NULL,
  -- The address folded by the application (JavaScript's toLowerCase, as the other stores fold it): PostgreSQL's
  -- lower() follows the database's locale, and under the C locale it folds ASCII only.
  email_key                TEXT NOT NULL CONSTRAINT accounts_email_key_unique UNIQUE,
  password_hash            TEXT NOT NULL,
  verified                 BOOLEAN NOT NULL,
  verification_code_hash   TEXT,
  verification_expires_at  BIGINT,
  verification_attempts    INTEGER NOT NULL,
  created_at               BIGINT NOT NULL,
  password_reset           JSONB,
  version                  INTEGER NOT NULL
);
-- The expiry sweep of unverified sign-ups.
CREATE INDEX accounts_unverified_by_created ON accounts (created_at) WHERE NOT verified;

CREATE TABLE sessions (
  token_hash  TEXT PRIMARY KEY,
  user_id     BIGINT NOT NULL,
  created_at  BIGINT NOT NULL,
  expires_at  BIGINT NOT NULL,
  revoked_at  BIGINT
);
-- A password change or reset revokes the user's live sessions.
CREATE INDEX sessions_live_by_user ON sessions (user_id) WHERE revoked_at IS NULL;

CREATE TABLE subscriptions (
  -- `${user_id}:${service_code}`, the record's key: one subscription per (user, service).
  subscription_key   TEXT PRIMARY KEY,
  user_id            BIGINT NOT NULL,
  service_code       TEXT NOT NULL,
  plan_code          TEXT NOT NULL,
  status             TEXT NOT NULL CHECK (status IN ('active', 'cancelled')),
  max_sub_addresses  INTEGER,
  activated_at       BIGINT NOT NULL,
  version            INTEGER NOT NULL
);

CREATE TABLE api_tokens (
  id            BIGINT PRIMARY KEY,
  user_id       BIGINT NOT NULL,
  name          TEXT NOT NULL,
  token_hash    TEXT NOT NULL CONSTRAINT api_tokens_token_hash_unique UNIQUE,
  abilities     TEXT[] NOT NULL,
  created_at    BIGINT NOT NULL,
  revoked_at    BIGINT,
  last_used_at  BIGINT
);
-- The user's live tokens in id order: the listing, and the count createWithinCap takes under its lock.
CREATE INDEX api_tokens_live_by_user ON api_tokens (user_id, id) WHERE revoked_at IS NULL;

CREATE TABLE developer_configs (
  user_id              BIGINT PRIMARY KEY,
  url                  TEXT,
  pending_url          TEXT,
  pending_since        BIGINT,
  verified_at          BIGINT,
  review_note          TEXT,
  secret               JSONB,
  previous_secret      JSONB,
  -- Money no query reads: the record's [{symbol, amount}] with each amount an exact decimal string, never a JSON
  -- number (a double past 2^53); the constraint refuses anything else.
  min_collect_amounts  JSONB NOT NULL CONSTRAINT developer_configs_minimums_are_decimal_strings CHECK (
    jsonb_typeof(min_collect_amounts) = 'array'
    AND NOT jsonb_path_exists(min_collect_amounts,
      '$[*] ? (@.symbol.type() != "string" || @.amount.type() != "string" || !(@.amount like_regex "^-?(0|[1-9][0-9]*)$"))')
  ),
  version              INTEGER NOT NULL,
  inserted_seq         BIGSERIAL NOT NULL
);
-- Configurations waiting for review, in listPending's order.
CREATE INDEX developer_configs_pending ON developer_configs (pending_since NULLS FIRST, inserted_seq) WHERE pending_url IS NOT NULL;

CREATE TABLE risk_entries (
  kind          TEXT NOT NULL CHECK (kind IN ('user', 'address')),
  value         TEXT NOT NULL,
  reason        TEXT,
  -- Set on the first deny only: a later deny replaces the reason and keeps the entry's place in the listing.
  inserted_seq  BIGSERIAL NOT NULL,
  PRIMARY KEY (kind, value)
);

-- The last id handed out per sequence. A table rather than one SEQUENCE per name: a new name needs no migration, and
-- emptying the store (TRUNCATE) restarts every sequence at 1, as the port promises of a fresh store.
CREATE TABLE id_counters (
  sequence    TEXT PRIMARY KEY,
  last_value  BIGINT NOT NULL
);
