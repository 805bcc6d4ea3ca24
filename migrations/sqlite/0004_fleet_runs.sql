-- Fleet runs: one submission of tasks to a fleet. Its tasks are rows of
-- `runs` (kind 'fleet_task') pointing here; the counts of ended tasks are
-- kept here as they end, so progress is one row whatever the number of tasks.
-- Its events live in `run_events` under the fleet run's ID, numbered by
-- `event_seq` like a run's.
CREATE TABLE fleet_runs (
    id               TEXT PRIMARY KEY,
    fleet_id         TEXT NOT NULL,
    agent_id         TEXT NOT NULL,
    status           TEXT NOT NULL,
    worker_count     INTEGER NOT NULL,
    tasks            INTEGER NOT NULL,
    succeeded        INTEGER NOT NULL DEFAULT 0,
    failed           INTEGER NOT NULL DEFAULT 0,
    cancelled        INTEGER NOT NULL DEFAULT 0,
    cancel_requested INTEGER NOT NULL DEFAULT 0,
    event_seq        INTEGER NOT NULL DEFAULT 0,
    created_at       INTEGER NOT NULL,
    started_at       INTEGER,
    finished_at      INTEGER,
    updated_at       INTEGER NOT NULL
);
CREATE INDEX fleet_runs_fleet ON fleet_runs (fleet_id, id);
-- Whether a fleet is running (the fleet's `status`): its unfinished fleet runs.
CREATE INDEX fleet_runs_open ON fleet_runs (fleet_id) WHERE status IN ('queued', 'running');

-- A fleet run's tasks in order, and the next task waiting for a slot.
CREATE INDEX runs_fleet ON runs (fleet_run_id, task_index) WHERE fleet_run_id IS NOT NULL;
CREATE INDEX runs_fleet_waiting ON runs (fleet_run_id, queue_seq)
    WHERE fleet_run_id IS NOT NULL AND status = 'queued' AND blocked = 1;
