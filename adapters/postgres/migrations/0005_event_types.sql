-- Issue #24 item 3: the opt-in webhook event types of config.event_types (deposit.*), as a JSON array of strings.
-- NULL: none set (every configuration saved before); the spec's four types are always sent and never stored.
ALTER TABLE developer_configs ADD COLUMN opt_in_event_types JSONB
  CONSTRAINT developer_configs_event_types_are_strings CHECK (
    opt_in_event_types IS NULL
    OR (jsonb_typeof(opt_in_event_types) = 'array' AND NOT jsonb_path_exists(opt_in_event_types, '$[*] ? (@.type() != "string")'))
  );
