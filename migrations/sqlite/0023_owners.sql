-- Every object has an owner: the owner of the API key that made it (a run
-- made by a run, a fleet's task, a formation's node or a schedule's tick:
-- the owner of what made it). Agents, fleets, formations and schedules keep
-- theirs in their JSON body; runs, sessions, fleet runs and formation runs
-- in a column, which a list of one owner's work is filtered and paged by.
-- Everything made before owners existed is the first admin's.
-- A run's owner is what its input carries (the owner every run it makes
-- inherits), and a formation run's what its snapshot carries for its
-- nodes' runs, so each is derived from there rather than written twice.
ALTER TABLE runs ADD COLUMN owner TEXT GENERATED ALWAYS AS (coalesce(json_extract(input, '$.owner'), 'admin')) VIRTUAL;
ALTER TABLE sessions ADD COLUMN owner TEXT NOT NULL DEFAULT 'admin';
ALTER TABLE fleet_runs ADD COLUMN owner TEXT NOT NULL DEFAULT 'admin';
ALTER TABLE formation_runs ADD COLUMN owner TEXT GENERATED ALWAYS AS (coalesce(json_extract(snapshot, '$.owner'), 'admin')) VIRTUAL;
CREATE INDEX runs_owner ON runs (owner, queue_seq);
CREATE INDEX sessions_owner ON sessions (owner, id);
CREATE INDEX fleet_runs_owner ON fleet_runs (owner, id);
CREATE INDEX formation_runs_owner ON formation_runs (owner, id);
