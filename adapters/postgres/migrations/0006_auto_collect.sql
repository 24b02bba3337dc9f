-- Issue #24 item 4: config.auto_collect, as a JSON array of {symbol, minAmount, maxFeeSun} (integer strings).
-- NULL: never set (every configuration saved before); the shared record codec reads and writes it.
ALTER TABLE developer_configs ADD COLUMN auto_collect JSONB
  CONSTRAINT developer_configs_auto_collect_is_array CHECK (auto_collect IS NULL OR jsonb_typeof(auto_collect) = 'array');
