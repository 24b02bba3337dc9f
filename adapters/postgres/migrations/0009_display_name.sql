-- Issue #25: config.display_name, the merchant's name the payer page shows beside a payment request.
-- NULL: never set (every configuration saved before).
ALTER TABLE developer_configs ADD COLUMN display_name TEXT
  CONSTRAINT developer_configs_display_name_length CHECK (display_name IS NULL OR char_length(display_name) <= 80);
