-- A run's owner as a column written at insert, instead of one generated
-- from its input (migration 24): PostgreSQL computes a stored generated
-- column again at every update of the row, so each change of a run's status
-- parsed its input's JSON. The owner never changes, so it is written once.
-- The values already there stay.
ALTER TABLE runs ALTER COLUMN owner DROP EXPRESSION;
ALTER TABLE runs ALTER COLUMN owner SET NOT NULL;

-- The enqueue of one run (migration 29's), with the owner.
DROP FUNCTION wingman_enqueue_run(TEXT, TEXT, TEXT, TEXT, TEXT, TEXT, TEXT, TEXT, BIGINT, TEXT, TEXT, TEXT,
                                  SMALLINT, TEXT, INT);
CREATE FUNCTION wingman_enqueue_run(
    p_id TEXT, p_kind TEXT, p_session_id TEXT, p_agent_id TEXT, p_agent_digest TEXT, p_agent TEXT, p_input TEXT,
    p_work_dir TEXT, p_max_attempts BIGINT, p_event_type TEXT, p_event_data TEXT, p_hint_channel TEXT,
    p_priority SMALLINT, p_concurrency_key TEXT, p_concurrency_limit INT, p_owner TEXT)
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
                          created_at, updated_at, owner)
        VALUES (p_id, p_kind, 'queued',
                CASE WHEN EXISTS(SELECT 1 FROM runs WHERE session_id = p_session_id
                                   AND status IN ('queued', 'running', 'waiting')) THEN 1 ELSE 0 END,
                p_session_id, p_agent_id, p_agent_digest, p_input, p_work_dir, p_max_attempts, 1, p_priority,
                p_concurrency_key, p_concurrency_limit, wingman_fair_start(p_concurrency_key, 1),
                wingman_ms(), wingman_ms(), p_owner)
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
