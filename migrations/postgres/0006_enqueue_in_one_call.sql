-- A submitted run is written by one call, so in one round trip: a plain
-- submission (no idempotency key, no multitask strategy to apply first)
-- needs no explicit transaction around it.
--
-- The session's lock and the busy check must stay two statements. A
-- statement reads with the snapshot taken when it started, so a check made
-- by the statement that waited for the lock would miss a run that ended,
-- and passed the session's turn on, while it waited: the new run would wait
-- for a turn that never comes. A VOLATILE PL/pgSQL function takes a fresh
-- snapshot for each statement it runs, as a client's separate statements
-- would. No row answers when the session does not exist.
--
-- Given a channel, the call also sends the change hint on it, which
-- PostgreSQL delivers as the commit lands: a listening worker hears of the
-- run a round trip sooner than from a hint sent after the answer.
-- PostgreSQL serialises the commits of transactions that notify, so a
-- caller asks for it only when no other submission of its own is under
-- way, and hints after the commit otherwise.
CREATE FUNCTION wingman_enqueue_run(
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
        INSERT INTO run_events (run_id, seq, type, data, at)
        SELECT id, 1, p_event_type, p_event_data, wingman_ms() FROM inserted)
    SELECT * FROM inserted;
    IF p_hint_channel IS NOT NULL THEN
        PERFORM pg_notify(p_hint_channel, '');
    END IF;
END $$;
