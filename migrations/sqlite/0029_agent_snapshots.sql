-- A run's agent as it was at submission, stored once per distinct
-- definition: `agent_snapshots` keeps each definition's JSON under a digest
-- of it, and a run names the digest. Until now every run carried the whole
-- definition (several KB) in `runs.agent`, rewritten with the row at each
-- change of status. Runs written before this migration keep their JSON in
-- `agent`; a run written after it has `agent` empty and `agent_digest` set.
-- The index finds whether any run still names a snapshot, when a run is
-- deleted; no change of a run's status touches it.
CREATE TABLE agent_snapshots (
    digest      TEXT PRIMARY KEY,
    body        TEXT NOT NULL,
    created_at  INTEGER NOT NULL
) WITHOUT ROWID;
ALTER TABLE runs ADD COLUMN agent_digest TEXT;
CREATE INDEX runs_agent_digest ON runs (agent_digest) WHERE agent_digest IS NOT NULL;
