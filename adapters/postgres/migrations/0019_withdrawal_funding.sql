-- Issue #34 item 3: a withdrawal from a sub-address whose fees the main address funds keeps its funding (plan,
-- write-ahead records, cost, outcome) on its command (NULL: none).
ALTER TABLE commands ADD COLUMN funding JSONB
  CONSTRAINT commands_funding_is_object CHECK (funding IS NULL OR jsonb_typeof(funding) = 'object');
