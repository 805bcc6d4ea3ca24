-- Runs parked for their provider budget. A run whose inference must wait
-- longer than a moment for its share (src/domain/share.rs) is handed back
-- to the queue instead of holding a worker: `held = 2` keeps it out of
-- `runs_ready` (as `held = 1` does a run held for its key), and `wake_at`
-- (milliseconds since the epoch) says when a claim makes it ready again.
-- It keeps its place in its session and its fleet slot meanwhile.
ALTER TABLE runs ADD COLUMN wake_at INTEGER;
CREATE INDEX runs_parked ON runs (wake_at) WHERE status = 'queued' AND held = 2;
