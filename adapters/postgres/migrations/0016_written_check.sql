-- Issue #22 (decision 158): a unit of work of a workflow's transition (a task, its command, its event) is written as
-- ONE statement of data-modifying CTEs instead of BEGIN, a statement per row and COMMIT. Each versioned replace in it
-- must write its row: this check raises when one wrote none, which undoes the whole statement. SQLSTATE CH409 (a
-- class of our own) carries the entity in DETAIL and its id in HINT, for the adapter's ConcurrencyConflict.
CREATE FUNCTION custody_written(written bigint, entity text, id text) RETURNS boolean
  LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  IF written <> 1 THEN
    RAISE EXCEPTION 'version conflict on % %', entity, id USING ERRCODE = 'CH409', DETAIL = entity, HINT = id;
  END IF;
  RETURN true;
END;
$$;
