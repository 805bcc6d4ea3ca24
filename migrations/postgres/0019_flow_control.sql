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
--
-- Fairness: start-time fair queuing. Each run gets a virtual start `vt`
-- when it is queued, and claims take the lowest first within a priority
-- (then the oldest). The clock is the vt of the run a claim would take
-- next (or the highest vt given, when nothing is ready). A run without a
-- key starts at the clock; the runs of one submission (a fleet run's tasks,
-- a parent's children) take consecutive vts from it, so they interleave
-- with what others queue later instead of going before it all; a key's runs
-- take the vts after the key's last (`fair_keys`), never below the clock.
-- One key's 5,000 queued tasks so delay another key's message by a claim
-- or two, not 5,000.
ALTER TABLE runs ADD COLUMN priority SMALLINT NOT NULL DEFAULT 0;
ALTER TABLE runs ADD COLUMN concurrency_key TEXT;
ALTER TABLE runs ADD COLUMN concurrency_limit INT;
ALTER TABLE runs ADD COLUMN held SMALLINT NOT NULL DEFAULT 0;
ALTER TABLE runs ADD COLUMN vt BIGINT NOT NULL DEFAULT 0;
DROP INDEX runs_ready;
CREATE INDEX runs_ready ON runs (priority DESC, vt, queue_seq) WHERE status = 'queued' AND blocked = 0 AND held = 0;
CREATE INDEX runs_keyed ON runs (concurrency_key, status) WHERE concurrency_key IS NOT NULL;
CREATE INDEX runs_held ON runs (concurrency_key, priority DESC, vt, queue_seq) WHERE held = 1 AND status = 'queued';
CREATE INDEX runs_vt ON runs (vt);
CREATE TABLE fair_keys (
    key     TEXT PRIMARY KEY,
    last_vt BIGINT NOT NULL
);

-- The clock of fair queuing: the vt of the run a claim would take next,
-- or the highest given when nothing is ready.
CREATE FUNCTION wingman_fair_clock() RETURNS BIGINT LANGUAGE sql STABLE AS $$
    SELECT COALESCE(
        (SELECT vt FROM runs WHERE status = 'queued' AND blocked = 0 AND held = 0
         ORDER BY priority DESC, vt, queue_seq LIMIT 1),
        (SELECT MAX(vt) FROM runs), 0)
$$;

-- The first of `n` consecutive vts for runs of `key` (at the clock
-- without one), the key's last moved past them.
CREATE FUNCTION wingman_fair_start(p_key TEXT, p_n BIGINT) RETURNS BIGINT LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    v_clock BIGINT := wingman_fair_clock();
    v_last BIGINT;
BEGIN
    IF p_key IS NULL THEN
        RETURN v_clock;
    END IF;
    INSERT INTO fair_keys (key, last_vt) VALUES (p_key, v_clock + p_n - 1)
    ON CONFLICT (key) DO UPDATE SET last_vt = GREATEST(fair_keys.last_vt + 1, v_clock) + p_n - 1
    RETURNING last_vt INTO v_last;
    RETURN v_last - p_n + 1;
END $$;
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
                          event_seq, priority, concurrency_key, concurrency_limit, vt,
                          created_at, updated_at)
        VALUES (p_id, p_kind, 'queued',
                CASE WHEN EXISTS(SELECT 1 FROM runs WHERE session_id = p_session_id
                                   AND status IN ('queued', 'running', 'waiting')) THEN 1 ELSE 0 END,
                p_session_id, p_agent_id, p_agent, p_input, p_work_dir, p_max_attempts, 1, p_priority,
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
