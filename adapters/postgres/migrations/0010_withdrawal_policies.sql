-- Issue #26 item 1: withdrawal policies (one row per user) and their allow-lists. Written through the shared record
-- codec (adapters/records/withdrawal-policy-record.ts); amounts inside `limits` are integer strings.
CREATE TABLE withdrawal_policies (
  user_id                  BIGINT PRIMARY KEY,
  allow_list_only          BOOLEAN NOT NULL,
  limits                   JSONB NOT NULL CONSTRAINT withdrawal_policies_limits_is_array CHECK (jsonb_typeof(limits) = 'array'),
  approval_url             TEXT,
  approval_pending_url     TEXT,
  approval_pending_since   BIGINT,
  approval_verified_at     BIGINT,
  approval_review_note     TEXT,
  approval_secret          JSONB,
  approval_timeout_minutes INTEGER NOT NULL,
  updated_at               BIGINT NOT NULL,
  version                  INTEGER NOT NULL,
  inserted_seq             BIGSERIAL NOT NULL
);
CREATE INDEX withdrawal_policies_pending_review ON withdrawal_policies (approval_pending_since, inserted_seq)
  WHERE approval_pending_url IS NOT NULL;

CREATE TABLE allow_list_entries (
  user_id     BIGINT NOT NULL,
  address     TEXT NOT NULL,
  label       TEXT,
  created_at  BIGINT NOT NULL,
  active_from BIGINT NOT NULL,
  PRIMARY KEY (user_id, address)
);
CREATE INDEX allow_list_entries_by_age ON allow_list_entries (user_id, created_at, address);
