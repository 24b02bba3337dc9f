-- Issue #26 items 1 and 2: a withdrawal's approval sub-state on its command (NULL: none needed), and the index the
-- velocity limits total on (the user's withdrawals of an asset by creation time, inside the commit that adds one).
ALTER TABLE commands ADD COLUMN approval JSONB
  CONSTRAINT commands_approval_is_object CHECK (approval IS NULL OR jsonb_typeof(approval) = 'object');
CREATE INDEX commands_withdrawal_velocity ON commands (user_id, asset_symbol, created_at) WHERE type = 2;
