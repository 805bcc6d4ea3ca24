-- Events are read in commit order without a lock that every writer waits
-- for: each event records the transaction that wrote it, and readers take
-- events in (transaction, number) order, only from transactions older than
-- the oldest one still open. Events written before this migration (all
-- committed) keep transaction 0, so they come first, in number order.
ALTER TABLE run_events ADD COLUMN tx BIGINT NOT NULL DEFAULT 0;
ALTER TABLE run_events ALTER COLUMN tx SET DEFAULT (pg_current_xact_id()::text::bigint);
CREATE INDEX run_events_commit_order ON run_events (tx, gid);

-- The database's clock is read when each statement starts, not when its
-- transaction began: a transaction that writes many runs' commits at once
-- may begin before another transaction commits what its own statements then
-- see (a run ended, the session's turn passed on), and a lease is judged by
-- the time of the statement that writes under it.
CREATE OR REPLACE FUNCTION wingman_ms() RETURNS BIGINT LANGUAGE sql STABLE
    AS $$ SELECT (extract(epoch FROM statement_timestamp()) * 1000)::BIGINT $$;
