-- Issue #38 item 2: what the worker tells the operator console (OperatorStatusStore): one row per kind ('health',
-- 'daily-summary'), the newest write kept; `at` is the writer's clock (epoch ms).
CREATE TABLE operator_status (
  kind text PRIMARY KEY,
  body jsonb NOT NULL,
  at bigint NOT NULL
);
