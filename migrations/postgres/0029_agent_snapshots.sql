-- A run's agent as it was at submission, stored once per distinct
-- definition: `agent_snapshots` keeps each definition's JSON under a digest
-- of it, and a run names the digest. Until now every run carried the whole
-- definition (several KB, compressed in the row) in `runs.agent`, copied
-- into each new version of the row at every change of status. Runs written
-- before this migration keep their JSON in `agent`; a run written after it
-- has `agent` NULL and `agent_digest` set. The index finds whether any run
-- still names a snapshot, when a run is deleted.
CREATE TABLE agent_snapshots (
    digest      TEXT PRIMARY KEY,
    body        TEXT NOT NULL,
    created_at  BIGINT NOT NULL
);
ALTER TABLE runs ADD COLUMN agent_digest TEXT;
ALTER TABLE runs ALTER COLUMN agent DROP NOT NULL;
CREATE INDEX runs_agent_digest ON runs (agent_digest) WHERE agent_digest IS NOT NULL;

-- The enqueue of one run (migration 19's) writes the snapshot first, if no
-- run wrote it before, and the run naming it. The snapshot's insert takes
-- the table's ROW EXCLUSIVE lock until the commit, which is what a deletion
-- waits for before it removes a snapshot no committed run names (see
-- `retention.rs`).
DROP FUNCTION wingman_enqueue_run(TEXT, TEXT, TEXT, TEXT, TEXT, TEXT, TEXT, BIGINT, TEXT, TEXT, TEXT,
                                  SMALLINT, TEXT, INT);
CREATE FUNCTION wingman_enqueue_run(
    p_id TEXT, p_kind TEXT, p_session_id TEXT, p_agent_id TEXT, p_agent_digest TEXT, p_agent TEXT, p_input TEXT,
    p_work_dir TEXT, p_max_attempts BIGINT, p_event_type TEXT, p_event_data TEXT, p_hint_channel TEXT,
    p_priority SMALLINT, p_concurrency_key TEXT, p_concurrency_limit INT)
RETURNS SETOF runs LANGUAGE plpgsql VOLATILE AS $$
BEGIN
    IF p_session_id IS NOT NULL THEN
        PERFORM 1 FROM sessions WHERE id = p_session_id FOR UPDATE;
        IF NOT FOUND THEN
            RETURN;
        END IF;
    END IF;
    INSERT INTO agent_snapshots (digest, body, created_at) VALUES (p_agent_digest, p_agent, wingman_ms())
    ON CONFLICT (digest) DO NOTHING;
    RETURN QUERY
    WITH inserted AS (
        INSERT INTO runs (id, kind, status, blocked, session_id, agent_id, agent_digest, input, work_dir,
                          max_attempts, event_seq, priority, concurrency_key, concurrency_limit, vt,
                          created_at, updated_at)
        VALUES (p_id, p_kind, 'queued',
                CASE WHEN EXISTS(SELECT 1 FROM runs WHERE session_id = p_session_id
                                   AND status IN ('queued', 'running', 'waiting')) THEN 1 ELSE 0 END,
                p_session_id, p_agent_id, p_agent_digest, p_input, p_work_dir, p_max_attempts, 1, p_priority,
                p_concurrency_key, p_concurrency_limit, wingman_fair_start(p_concurrency_key, 1),
                wingman_ms(), wingman_ms())
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
