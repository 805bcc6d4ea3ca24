-- What a resumed attempt needs to know, kept as columns by the writes that
-- change it (instead of being read back out of the event log):
--   attempt      now counts every claim (it no longer goes down on a hand-back);
--   charged      the attempts that ended (their worker lost its lease) without
--                checkpointing anything new: only those count against max_attempts;
--   progressed   the current attempt has checkpointed something;
--   handed_back  the attempt before the current one was handed back between steps;
--   open_step    a step started and not completed (NULL for none).
ALTER TABLE runs ADD COLUMN charged INTEGER NOT NULL DEFAULT 0;
ALTER TABLE runs ADD COLUMN progressed INTEGER NOT NULL DEFAULT 0;
ALTER TABLE runs ADD COLUMN handed_back INTEGER NOT NULL DEFAULT 0;
ALTER TABLE runs ADD COLUMN open_step INTEGER;

-- Runs that have not ended get the facts their logs say.
UPDATE runs SET open_step = (
    SELECT CASE WHEN e.type = 'step_completed' THEN NULL ELSE json_extract(e.data, '$.step') END
    FROM run_events e
    WHERE e.run_id = runs.id AND e.type IN ('step_started', 'step_restarted', 'step_completed')
    ORDER BY e.seq DESC LIMIT 1)
WHERE status IN ('queued', 'running', 'waiting');
UPDATE runs SET handed_back = COALESCE((
    SELECT e.type = 'run_handed_back' AND json_extract(e.data, '$.interrupted') = 0
    FROM run_events e
    WHERE e.run_id = runs.id AND (runs.status = 'queued' OR e.seq < (
        SELECT MAX(s.seq) FROM run_events s WHERE s.run_id = runs.id AND s.type = 'run_started'))
    ORDER BY e.seq DESC LIMIT 1), 0)
WHERE status IN ('queued', 'running', 'waiting');
-- An attempt under way at the upgrade is not charged if it stops.
UPDATE runs SET progressed = 1 WHERE status = 'running';
