-- An event is found by its run and number (run_events_run_id_seq_key) or,
-- by the global cursor, in commit order (run_events_commit_order); nothing
-- looks an event up by `gid` alone, so its primary-key index was one more
-- index entry, and WAL record, for every event written. The run and number
-- identify a row for logical replication instead.
ALTER TABLE run_events DROP CONSTRAINT run_events_pkey;
ALTER TABLE run_events REPLICA IDENTITY USING INDEX run_events_run_id_seq_key;
