-- A run's owner as a column written at insert, instead of one computed
-- from its input (migration 23). The two partial indexes of migration 25
-- hold a run's owner while it is queued and while it runs, so every change
-- of its status took the owner out of one and put it in the other, and each
-- time SQLite parsed the input's JSON to compute it (for the old row and for
-- the new), as it did for the count of each commit's usage. The owner never
-- changes, so it is written once. An older run's is read from its input.
DROP INDEX runs_owner;
DROP INDEX runs_owner_queued;
DROP INDEX runs_owner_running;
ALTER TABLE runs DROP COLUMN owner;
ALTER TABLE runs ADD COLUMN owner TEXT NOT NULL DEFAULT 'admin';
UPDATE runs SET owner = json_extract(input, '$.owner') WHERE json_extract(input, '$.owner') IS NOT NULL;
CREATE INDEX runs_owner ON runs (owner, queue_seq);
CREATE INDEX runs_owner_queued ON runs (owner) WHERE status = 'queued';
CREATE INDEX runs_owner_running ON runs (owner) WHERE status = 'running';
