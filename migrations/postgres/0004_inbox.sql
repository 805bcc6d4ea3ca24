-- What people send a run (a steering message, a request to stop at the next
-- step boundary) waits here until the run reaches a step boundary and takes
-- it in, in the same transaction that writes what it became.
CREATE TABLE run_inbox (
    seq        BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    run_id     TEXT NOT NULL,
    kind       TEXT NOT NULL,
    message    TEXT,
    created_at BIGINT NOT NULL
);
CREATE INDEX run_inbox_run ON run_inbox (run_id, seq);
