-- A write's events for one run go in one row, as on PostgreSQL (its
-- migration 8): the numbers of its first and last event and the events
-- themselves, a JSON array of [type, data] pairs. A one-step run wrote
-- six event rows, each a row and an index entry; now it writes three (its
-- enqueue, its start, and its step with its end). A row's events are
-- numbered consecutively, so the run and the last number identify it, and
-- ranges of one run never overlap: reading a run's events after a number
-- starts at the first row whose last number is past it. `gid` keeps the
-- commit order (one writer at a time; AUTOINCREMENT never gives a pruned
-- row's number again), and a reader's place within a row is the number of
-- the last event it took from it.
ALTER TABLE run_events RENAME TO run_events_0027;
CREATE TABLE run_events (
    gid        INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id     TEXT NOT NULL,
    first_seq  INTEGER NOT NULL,
    last_seq   INTEGER NOT NULL,
    events     TEXT NOT NULL,
    at         INTEGER NOT NULL,
    UNIQUE (run_id, last_seq),
    CHECK (first_seq <= last_seq)
);
INSERT INTO run_events (run_id, first_seq, last_seq, events, at)
    SELECT run_id, seq, seq, json_array(json_array(type, json(data))), at FROM run_events_0027 ORDER BY gid;
DROP TABLE run_events_0027;
