-- Sub-agents: a run started by another run's call (kind 'subagent') names
-- its parent and the call it answers; its input carries the rest (the
-- parent's step, the tool, the depth). One child per call, whatever
-- crashes: the unique index refuses a second. A parent counts its children
-- that have not ended, so the last one's end queues it again without a scan.
ALTER TABLE runs ADD COLUMN parent_run_id TEXT;
ALTER TABLE runs ADD COLUMN parent_call_id TEXT;
ALTER TABLE runs ADD COLUMN children_open INTEGER NOT NULL DEFAULT 0;
CREATE UNIQUE INDEX runs_parent ON runs (parent_run_id, parent_call_id) WHERE parent_run_id IS NOT NULL;
