-- Issue #34 item 5: GET /collections lists a user's tasks newest first (optionally by status or sub-address; the
-- sub-address filter walks collection_tasks_latest_by_address).
CREATE INDEX collection_tasks_by_user_newest ON collection_tasks (user_id, started_at DESC, inserted_seq DESC);
-- GET /cashier/tokens?reference= finds a merchant's order among its tokens, newest first.
CREATE INDEX cashier_tokens_by_reference ON cashier_tokens (user_id, (payment ->> 'reference'), created_at DESC, inserted_seq DESC)
  WHERE (payment ->> 'reference') IS NOT NULL;
