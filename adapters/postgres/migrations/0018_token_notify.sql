-- Issue #37: API processes keep API and session tokens in memory (adapters/postgres/pg-token-listener.ts). Any change
-- that could end a token's use, from any process or tool (a revocation, a logout, a password reset, a rotated hash,
-- a deleted row), sends the old token hash on channel custody_tokens at commit, so every listening process forgets
-- it. A use's time (api_tokens.last_used_at) changes nothing a process caches for authentication, and sends nothing.
CREATE FUNCTION custody_token_changed() RETURNS trigger
  LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('custody_tokens', OLD.token_hash);
  RETURN NULL;
END;
$$;

CREATE TRIGGER sessions_changed AFTER UPDATE OR DELETE ON sessions
  FOR EACH ROW EXECUTE FUNCTION custody_token_changed();

CREATE TRIGGER api_tokens_changed AFTER DELETE ON api_tokens
  FOR EACH ROW EXECUTE FUNCTION custody_token_changed();

CREATE TRIGGER api_tokens_updated AFTER UPDATE ON api_tokens
  FOR EACH ROW WHEN (OLD.revoked_at IS DISTINCT FROM NEW.revoked_at OR OLD.token_hash IS DISTINCT FROM NEW.token_hash
    OR OLD.user_id IS DISTINCT FROM NEW.user_id OR OLD.abilities IS DISTINCT FROM NEW.abilities)
  EXECUTE FUNCTION custody_token_changed();
