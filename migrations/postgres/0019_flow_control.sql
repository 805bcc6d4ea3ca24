-- Flow control.
--
-- A run's priority (-10..10, higher first; from its submission, carried to
-- every run it makes). A claim takes the highest priority first, then the
-- oldest, still only among runs at the head of their session (blocked = 0),
-- so priority orders sessions and never the messages of one session. The
-- queue's index follows the claim's order, so a claim stays one walk of an
-- index however many runs are queued.
--
-- A run's concurrency key and limit (from its submission, carried to every
-- run it makes): at most `concurrency_limit` runs of one key are `running`
-- at once. The count is of running rows, read when a claim decides, so a
-- run that waits for a person gives its slot back by leaving `running`, and
-- nothing is kept that could drift. A claim that meets a run whose key is
-- full holds it (held = 1): it leaves the ready index, so later claims do not
-- walk past it again, and its key is listed in `held_keys`. Each claim
-- first gives the held runs of a listed key as many places back in the ready
-- index as the key has free slots, best first, and forgets a key with none
-- held.
ALTER TABLE runs ADD COLUMN priority SMALLINT NOT NULL DEFAULT 0;
ALTER TABLE runs ADD COLUMN concurrency_key TEXT;
ALTER TABLE runs ADD COLUMN concurrency_limit INT;
ALTER TABLE runs ADD COLUMN held SMALLINT NOT NULL DEFAULT 0;
DROP INDEX runs_ready;
CREATE INDEX runs_ready ON runs (priority DESC, queue_seq) WHERE status = 'queued' AND blocked = 0 AND held = 0;
CREATE INDEX runs_keyed ON runs (concurrency_key, status) WHERE concurrency_key IS NOT NULL;
CREATE INDEX runs_held ON runs (concurrency_key, priority DESC, queue_seq) WHERE held = 1 AND status = 'queued';
CREATE TABLE held_keys (
    key TEXT PRIMARY KEY,
    lim INT NOT NULL
);

-- The one-call enqueue writes the priority and the concurrency key and
-- limit too (new arguments, so the old function goes).
DROP FUNCTION wingman_enqueue_run(TEXT, TEXT, TEXT, TEXT, TEXT, TEXT, TEXT, BIGINT, TEXT, TEXT, TEXT);
CREATE FUNCTION wingman_enqueue_run(
    p_id TEXT, p_kind TEXT, p_session_id TEXT, p_agent_id TEXT, p_agent TEXT, p_input TEXT,
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
    RETURN QUERY
    WITH inserted AS (
        INSERT INTO runs (id, kind, status, blocked, session_id, agent_id, agent, input, work_dir, max_attempts,
                          event_seq, priority, concurrency_key, concurrency_limit,
                          created_at, updated_at)
        VALUES (p_id, p_kind, 'queued',
                CASE WHEN EXISTS(SELECT 1 FROM runs WHERE session_id = p_session_id
                                   AND status IN ('queued', 'running', 'waiting')) THEN 1 ELSE 0 END,
                p_session_id, p_agent_id, p_agent, p_input, p_work_dir, p_max_attempts, 1, p_priority,
                p_concurrency_key, p_concurrency_limit,
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
