-- Wallet addresses, balance snapshots, cashier tokens, idempotency records, scanner checkpoints and webhook
-- deliveries. Times are BIGINT epoch milliseconds, nested data that no query reads is JSONB (JSON where it must keep a
-- U+0000), `inserted_seq` orders rows of equal time by insertion, as the other stores do.

CREATE TABLE wallet_addresses (
  id             BIGINT PRIMARY KEY,
  user_id        BIGINT NOT NULL,
  network_code   TEXT NOT NULL,
  address        TEXT NOT NULL CONSTRAINT wallet_addresses_address_unique UNIQUE,
  address_type   SMALLINT NOT NULL CHECK (address_type IN (1, 2)),
  label          TEXT,
  status         SMALLINT NOT NULL,
  encrypted_key  JSONB NOT NULL,
  created_at     BIGINT NOT NULL,
  version        INTEGER NOT NULL
);
-- One main address per (user, network). The sub-address quota cannot be an index: inserts count under an advisory
-- transaction lock per (user, network) instead (pg-wallet-repository.ts).
CREATE UNIQUE INDEX wallet_addresses_one_main ON wallet_addresses (user_id, network_code) WHERE address_type = 1;
CREATE INDEX wallet_addresses_subs ON wallet_addresses (user_id, network_code) WHERE address_type = 2;
CREATE INDEX wallet_addresses_by_user ON wallet_addresses (user_id, id);

CREATE TABLE balance_snapshots (
  address         TEXT PRIMARY KEY,
  -- Money no query reads: the record's [{symbol, available, updatedAt}] with each amount an exact decimal string,
  -- never a JSON number (a double past 2^53); the constraint refuses anything else.
  items           JSONB NOT NULL CONSTRAINT balance_snapshots_amounts_are_decimal_strings CHECK (
    jsonb_typeof(items) = 'array'
    AND NOT jsonb_path_exists(items,
      '$[*] ? (@.symbol.type() != "string" || @.available.type() != "string" || !(@.available like_regex "^-?(0|[1-9][0-9]*)$"))')
  ),
  refresh_source  SMALLINT NOT NULL,
  updated_at      BIGINT NOT NULL
);

CREATE TABLE cashier_tokens (
  token_no           TEXT PRIMARY KEY,
  token_hash         TEXT NOT NULL CONSTRAINT cashier_tokens_token_hash_unique UNIQUE,
  user_id            BIGINT NOT NULL,
  wallet_address_id  BIGINT NOT NULL,
  address            TEXT NOT NULL,
  network_code       TEXT NOT NULL,
  status             TEXT NOT NULL CHECK (status IN ('active', 'disabled')),
  ttl_minutes        INTEGER NOT NULL,
  expires_at         BIGINT NOT NULL,
  disabled_at        BIGINT,
  disable_reason     TEXT,
  created_at         BIGINT NOT NULL,
  version            INTEGER NOT NULL,
  inserted_seq       BIGSERIAL NOT NULL
);
-- The check an insert makes under its per-address advisory lock: an active token of the address unexpired at `now`.
CREATE INDEX cashier_tokens_active_by_address ON cashier_tokens (address, expires_at) WHERE status = 'active';
CREATE INDEX cashier_tokens_by_user_newest ON cashier_tokens (user_id, created_at DESC, inserted_seq DESC);

CREATE TABLE idempotency_records (
  scope             TEXT NOT NULL,
  idempotency_key   TEXT NOT NULL,
  request_hash      TEXT NOT NULL,
  state             TEXT NOT NULL CHECK (state IN ('in-progress', 'completed')),
  response_status   INTEGER,
  response_body     TEXT,
  created_at        BIGINT NOT NULL,
  expires_at        BIGINT NOT NULL,
  lease_expires_at  BIGINT,
  PRIMARY KEY (scope, idempotency_key)
);
-- No TTL in PostgreSQL: expired records are deleted in batches by PgIdempotencyStore.purgeExpired.
CREATE INDEX idempotency_records_expiry ON idempotency_records (expires_at);

CREATE TABLE scan_cursors (
  name         TEXT PRIMARY KEY,
  owner        TEXT NOT NULL,
  lease_until  BIGINT NOT NULL,
  version      BIGINT NOT NULL,
  -- The scan-checkpoint record (amounts as decimal strings); null before the first save.
  checkpoint   JSONB
);

CREATE TABLE webhook_deliveries (
  delivery_id       TEXT PRIMARY KEY,
  event_id          TEXT NOT NULL CONSTRAINT webhook_deliveries_one_per_event UNIQUE,
  user_id           BIGINT NOT NULL,
  event_type        TEXT NOT NULL,
  url               TEXT,
  status            SMALLINT NOT NULL,
  -- JSON, not JSONB: a receiver's response head may hold U+0000, which JSONB refuses and JSON keeps as text.
  attempts          JSON NOT NULL,
  next_attempt_at   BIGINT,
  lease_owner       TEXT,
  lease_expires_at  BIGINT,
  created_at        BIGINT NOT NULL,
  version           INTEGER NOT NULL,
  inserted_seq      BIGSERIAL NOT NULL
);
-- PENDING (1) and RETRYING (4) deliveries in claim order.
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at, inserted_seq) WHERE status IN (1, 4);
CREATE INDEX webhook_deliveries_by_user_newest ON webhook_deliveries (user_id, created_at DESC, inserted_seq DESC);
CREATE INDEX webhook_deliveries_by_user_status ON webhook_deliveries (user_id, status, created_at DESC, inserted_seq DESC);
