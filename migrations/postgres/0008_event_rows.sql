-- A write's events for one run go in one row: its first and last numbers
-- and the events themselves, a JSON array of [type, data] pairs. A one-step
-- run wrote five event rows, each with two index entries, and index
-- insertion was a quarter of the database's CPU in a burn-down; now it
-- writes two (its start, and the step with its end), and its enqueue one.
-- A row's events are numbered consecutively, so the run and the last number
-- identify it, and ranges of one run never overlap: reading a run's events
-- after a number starts at the first row whose last number is past it.
-- The commit order is kept per row, (tx, gid), and a reader's place within
-- a row is the number of the last event it took from it.
ALTER TABLE run_events RENAME TO run_events_0007;
ALTER INDEX run_events_commit_order RENAME TO run_events_0007_commit_order;
CREATE TABLE run_events (
    run_id     TEXT NOT NULL,
    first_seq  BIGINT NOT NULL,
    last_seq   BIGINT NOT NULL,
    events     TEXT NOT NULL,
    at         BIGINT NOT NULL,
    tx         BIGINT NOT NULL DEFAULT (pg_current_xact_id()::text::bigint),
    gid        BIGINT GENERATED ALWAYS AS IDENTITY,
    CONSTRAINT run_events_run_last UNIQUE (run_id, last_seq),
    CHECK (first_seq <= last_seq)
);
CREATE INDEX run_events_commit_order ON run_events (tx, gid);
ALTER TABLE run_events REPLICA IDENTITY USING INDEX run_events_run_last;
INSERT INTO run_events (run_id, first_seq, last_seq, events, at, tx)
    SELECT run_id, seq, seq, json_build_array(json_build_array(type, data::json))::text, at, tx
    FROM run_events_0007 ORDER BY tx, gid;
DROP TABLE run_events_0007;

-- A submitted run's `run_queued`, as one row.
CREATE OR REPLACE FUNCTION wingman_enqueue_run(
    p_id TEXT, p_kind TEXT, p_session_id TEXT, p_agent_id TEXT, p_agent TEXT, p_input TEXT,
    p_work_dir TEXT, p_max_attempts BIGINT, p_event_type TEXT, p_event_data TEXT, p_hint_channel TEXT)
RETURNS SETOF runs LANGUAGE plpgsql VOLATILE AS $$
BEGIN
    IF p_session_id IS NOT NULL THEN
        PERFORM 1 FROM sessions WHERE id = p_session_id FOR UPDATE;
        IF NOT FOUND THEN
            RETURN;
        END IF;
    END IF;
    RETURN QUERY
    WITH inserted AS (
        INSERT INTO runs (id, kind, status, blocked, session_id, agent_id, agent, input, work_dir, max_attempts,
                          event_seq, created_at, updated_at)
        VALUES (p_id, p_kind, 'queued',
                CASE WHEN EXISTS(SELECT 1 FROM runs WHERE session_id = p_session_id
                                   AND status IN ('queued', 'running', 'waiting')) THEN 1 ELSE 0 END,
                p_session_id, p_agent_id, p_agent, p_input, p_work_dir, p_max_attempts, 1, wingman_ms(), wingman_ms())
        RETURNING *),
    queued AS (
        INSERT INTO run_events (run_id, first_seq, last_seq, events, at)
        SELECT id, 1, 1, json_build_array(json_build_array(p_event_type, p_event_data::json))::text, wingman_ms()
        FROM inserted)
    SELECT * FROM inserted;
    IF p_hint_channel IS NOT NULL THEN
        PERFORM pg_notify(p_hint_channel, '');
    END IF;
END $$;
