-- Issue #34: a started automatic collection trigger's task, while the auto collector follows it (a task that fails for
-- want of energy before sending anything puts the trigger back to 'due'); NULL once it ended, and on older rows.
ALTER TABLE deposits ADD COLUMN auto_collect_task TEXT;
CREATE INDEX deposits_auto_collect_followed ON deposits (network_code, confirmed_at, deposit_id COLLATE "C")
  WHERE auto_collect_task IS NOT NULL;
