-- Formations: a graph of agents, fleets and functions, kept whole as one
-- JSON body like agents and fleets.
CREATE TABLE formations (
    id         TEXT PRIMARY KEY,
    body       TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
);

-- A formation run holds its snapshot (the graph, and the agents and fleets
-- its nodes run, as they were at submission) and its input. Its events live
-- in `run_events` under its ID, numbered by `event_seq` like a run's.
CREATE TABLE formation_runs (
    id               TEXT PRIMARY KEY,
    formation_id     TEXT NOT NULL,
    status           TEXT NOT NULL,
    snapshot         TEXT NOT NULL,
    input            TEXT NOT NULL,
    outputs          TEXT,
    error            TEXT,
    cancel_requested INTEGER NOT NULL DEFAULT 0,
    event_seq        INTEGER NOT NULL DEFAULT 0,
    created_at       INTEGER NOT NULL,
    finished_at      INTEGER,
    updated_at       INTEGER NOT NULL
);
CREATE INDEX formation_runs_formation ON formation_runs (formation_id, id);
-- Retention prunes a formation run's log as it prunes a fleet run's.
ALTER TABLE formation_runs ADD COLUMN pruned_at INTEGER;
CREATE INDEX formation_runs_unpruned ON formation_runs (finished_at)
    WHERE finished_at IS NOT NULL AND pruned_at IS NULL;

-- A row per node that has started, keyed by the node: a node starts once,
-- whatever crashes. `body` is the node's state as the rules write it.
CREATE TABLE formation_nodes (
    formation_run_id TEXT NOT NULL,
    node             TEXT NOT NULL,
    status           TEXT NOT NULL,
    body             TEXT NOT NULL,
    updated_at       INTEGER NOT NULL,
    PRIMARY KEY (formation_run_id, node)
);

-- The work of a node: an agent node's run, a fleet node's fleet run.
ALTER TABLE runs ADD COLUMN formation_run_id TEXT;
CREATE INDEX runs_formation ON runs (formation_run_id) WHERE formation_run_id IS NOT NULL;
ALTER TABLE fleet_runs ADD COLUMN formation_run_id TEXT;
ALTER TABLE fleet_runs ADD COLUMN formation_node TEXT;
CREATE INDEX fleet_runs_formation ON fleet_runs (formation_run_id) WHERE formation_run_id IS NOT NULL;
