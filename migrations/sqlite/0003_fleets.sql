-- Fleet definitions: an agent, a cap on tasks running at once and a default
-- work_dir. The definition is stored as JSON like an agent's.
CREATE TABLE fleets (
    id            TEXT PRIMARY KEY,
    body          TEXT NOT NULL,
    created_at    INTEGER NOT NULL,
    updated_at    INTEGER NOT NULL
);
