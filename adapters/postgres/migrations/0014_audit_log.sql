-- Issue #26 item 5: the per-account hash-chained audit log (decision 130). One row per entry; (user_id, seq) is the
-- key, so of two appends racing for the same seq exactly one lands and the other seals again on the new head.
CREATE TABLE audit_entries (
  user_id     BIGINT NOT NULL,
  seq         BIGINT NOT NULL CONSTRAINT audit_entries_seq_positive CHECK (seq >= 1),
  at          BIGINT NOT NULL,
  action      TEXT NOT NULL,
  actor_kind  TEXT NOT NULL,
  actor_id    TEXT,
  detail      JSONB NOT NULL CONSTRAINT audit_entries_detail_is_object CHECK (jsonb_typeof(detail) = 'object'),
  prev_hash   TEXT NOT NULL,
  hash        TEXT NOT NULL,
  CONSTRAINT audit_entries_pkey PRIMARY KEY (user_id, seq)
);

-- Append-only for the service's own statements: an UPDATE or DELETE is refused. (Whoever owns the table can still
-- disable this or TRUNCATE; the hash chain, checked by `npm run audit:verify` against noted heads, shows that.)
CREATE FUNCTION audit_entries_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'audit_entries is append-only (% refused)', TG_OP USING ERRCODE = 'insufficient_privilege';
END
$$;
CREATE TRIGGER audit_entries_append_only BEFORE UPDATE OR DELETE ON audit_entries
  FOR EACH ROW EXECUTE FUNCTION audit_entries_append_only();
