-- Owners, as on SQLite: a run's and a formation run's derived from what
-- their input and snapshot carry, a column on sessions and fleet runs (agents, fleets,
-- formations and schedules keep theirs in their JSON body), the first
-- admin's for every row made before them, and an index per list that one
-- owner's pages are read through.
ALTER TABLE runs ADD COLUMN owner TEXT GENERATED ALWAYS AS (COALESCE(input::jsonb ->> 'owner', 'admin')) STORED;
ALTER TABLE sessions ADD COLUMN owner TEXT NOT NULL DEFAULT 'admin';
ALTER TABLE fleet_runs ADD COLUMN owner TEXT NOT NULL DEFAULT 'admin';
ALTER TABLE formation_runs ADD COLUMN owner TEXT GENERATED ALWAYS AS (COALESCE(snapshot::jsonb ->> 'owner', 'admin')) STORED;
CREATE INDEX runs_owner ON runs (owner, queue_seq);
CREATE INDEX sessions_owner ON sessions (owner, id);
CREATE INDEX fleet_runs_owner ON fleet_runs (owner, id);
CREATE INDEX formation_runs_owner ON formation_runs (owner, id);
