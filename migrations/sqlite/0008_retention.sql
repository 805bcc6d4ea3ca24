-- Retention: the logs (events, checkpoints, inbox) of runs and fleet runs
-- that ended long ago are deleted in small batches; the rows themselves
-- stay. `pruned_at` marks a log that is gone, so the pruner never looks at
-- it again, and the partial indexes hold exactly the ended logs still to
-- prune, oldest first.
ALTER TABLE runs ADD COLUMN pruned_at INTEGER;
ALTER TABLE fleet_runs ADD COLUMN pruned_at INTEGER;
CREATE INDEX runs_unpruned ON runs (finished_at)
    WHERE finished_at IS NOT NULL AND pruned_at IS NULL;
CREATE INDEX fleet_runs_unpruned ON fleet_runs (finished_at)
    WHERE finished_at IS NOT NULL AND pruned_at IS NULL;
-- Deleting a run forgets the idempotency keys that name it.
CREATE INDEX idempotency_keys_run ON idempotency_keys (run_id);
