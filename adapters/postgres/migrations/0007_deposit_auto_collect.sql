-- Issue #24 item 4: a deposit's automatic collection trigger. 'due' is written with the confirmation when the owner had
-- config.auto_collect for the asset; 'started' with the collection task it made (one change set); 'skipped' when it made
-- none. NULL: never a trigger (every deposit recorded before).
ALTER TABLE deposits ADD COLUMN auto_collect TEXT
  CONSTRAINT deposits_auto_collect_known CHECK (auto_collect IS NULL OR auto_collect IN ('due', 'started', 'skipped'));
-- The auto collector's pass (listAutoCollectDue).
CREATE INDEX deposits_auto_collect_due ON deposits (network_code, confirmed_at, deposit_id COLLATE "C") WHERE auto_collect = 'due';
