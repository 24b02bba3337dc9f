-- Issue #35 item 3: a loosening of the withdrawal policy waits (POLICY_CHANGE_DELAY_H) as a pending change kept on
-- the policy's row, so the change, its taking effect and its cancellation are one versioned write of that row.
ALTER TABLE withdrawal_policies ADD COLUMN pending_changes JSONB NOT NULL DEFAULT '[]'
  CONSTRAINT withdrawal_policies_pending_changes_is_array CHECK (jsonb_typeof(pending_changes) = 'array');
