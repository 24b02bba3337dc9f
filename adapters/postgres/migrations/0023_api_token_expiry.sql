-- Issue #35 item 4: an API token may expire (expires_at; NULL: never), and a password reset marks the account's live
-- tokens for review (review_since; they keep working, the list shows them). Both NULL on existing rows.
ALTER TABLE api_tokens ADD COLUMN expires_at BIGINT, ADD COLUMN review_since BIGINT;

-- A new expiry changes what authenticates: API processes that cache tokens (0018) must hear it like a revocation.
CREATE OR REPLACE TRIGGER api_tokens_updated AFTER UPDATE ON api_tokens
  FOR EACH ROW WHEN (OLD.revoked_at IS DISTINCT FROM NEW.revoked_at OR OLD.token_hash IS DISTINCT FROM NEW.token_hash
    OR OLD.user_id IS DISTINCT FROM NEW.user_id OR OLD.abilities IS DISTINCT FROM NEW.abilities
    OR OLD.expires_at IS DISTINCT FROM NEW.expires_at)
  EXECUTE FUNCTION custody_token_changed();
