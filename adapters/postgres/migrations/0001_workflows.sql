-- Commands, collection tasks and the webhook outbox: what a unit of work writes together.
-- Times are BIGINT epoch milliseconds (the Clock's), money NUMERIC(78,0) (exact; 2^256 fits), nested data that no
-- query reads is JSONB. `inserted_seq` orders rows of equal time by insertion, as the other stores do.

CREATE TABLE commands (
  command_no        TEXT PRIMARY KEY,
  user_id           BIGINT NOT NULL,
  type              SMALLINT NOT NULL,
  status            SMALLINT NOT NULL,
  address           TEXT,
  asset_symbol      TEXT,
  locked_amount     NUMERIC(78, 0) NOT NULL,
  params            JSONB NOT NULL,
  transaction       JSONB,
  error_code        TEXT,
  last_error        TEXT,
  created_at        BIGINT NOT NULL,
  started_at        BIGINT,
  finished_at       BIGINT,
  next_run_at       BIGINT NOT NULL,
  lease_owner       TEXT,
  lease_expires_at  BIGINT,
  version           INTEGER NOT NULL,
  -- Set only while the command holds its address's lock (fund-moving, PENDING or RUNNING): one holder per address.
  locked_address    TEXT CONSTRAINT commands_one_lock_per_address UNIQUE,
  inserted_seq      BIGSERIAL NOT NULL
);
CREATE INDEX commands_by_user_newest ON commands (user_id, created_at DESC, inserted_seq DESC);
CREATE INDEX commands_due ON commands (next_run_at, created_at, inserted_seq) WHERE status IN (1, 2);
CREATE INDEX commands_by_address ON commands (address) WHERE status IN (1, 2);

CREATE TABLE collection_tasks (
  task_no                  TEXT PRIMARY KEY,
  command_no               TEXT NOT NULL,
  user_id                  BIGINT NOT NULL,
  network_code             TEXT NOT NULL,
  asset_symbol             TEXT NOT NULL,
  address                  TEXT NOT NULL,
  main_address             TEXT NOT NULL,
  status                   SMALLINT NOT NULL,
  energy_path              TEXT,
  steps                    JSONB NOT NULL,
  swept_amount             NUMERIC(78, 0),
  sweep_tx_hash            TEXT,
  error_code               TEXT,
  last_error               TEXT,
  next_run_at              BIGINT NOT NULL,
  lease_owner              TEXT,
  lease_expires_at         BIGINT,
  started_at               BIGINT NOT NULL,
  finished_at              BIGINT,
  -- The reclaim record whole, and beside it the parts its claim filters and sorts on.
  reclaim                  JSONB,
  reclaim_status           TEXT,
  reclaim_next_run_at      BIGINT,
  reclaim_lease_expires_at BIGINT,
  plan                     JSONB,
  cost                     JSONB,
  version                  INTEGER NOT NULL,
  inserted_seq             BIGSERIAL NOT NULL
);
CREATE INDEX collection_tasks_latest_by_address ON collection_tasks (address, started_at DESC, inserted_seq DESC);
CREATE INDEX collection_tasks_due ON collection_tasks (next_run_at, inserted_seq) WHERE status NOT IN (11, 12);
CREATE INDEX collection_tasks_reclaim_due ON collection_tasks (reclaim_next_run_at, inserted_seq) WHERE reclaim_status = 'pending';
CREATE INDEX collection_tasks_by_status ON collection_tasks (status);

CREATE TABLE webhook_events (
  event_id      TEXT PRIMARY KEY,
  user_id       BIGINT NOT NULL,
  event_type    TEXT NOT NULL,
  occurred_at   BIGINT NOT NULL,
  -- The payload as its exact JSON text: it round-trips byte for byte (JSONB would reorder its keys).
  payload_json  TEXT NOT NULL,
  dispatched    BOOLEAN NOT NULL,
  inserted_seq  BIGSERIAL NOT NULL
);
CREATE INDEX webhook_events_undispatched ON webhook_events (occurred_at, inserted_seq) WHERE NOT dispatched;
