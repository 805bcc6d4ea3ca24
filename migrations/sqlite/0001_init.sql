-- Wingman schema, SQLite flavour. Timestamps are INTEGER milliseconds since the
-- Unix epoch (UTC), always computed in Rust and bound as parameters.

CREATE TABLE agents (
    id            TEXT PRIMARY KEY,
    body          TEXT NOT NULL,          -- the agent definition as JSON
    created_at    INTEGER NOT NULL,
    updated_at    INTEGER NOT NULL
);

CREATE TABLE sessions (
    id            TEXT PRIMARY KEY,
    agent_id      TEXT,
    title         TEXT,
    work_dir      TEXT NOT NULL,
    metadata      TEXT NOT NULL DEFAULT '{}',
    created_at    INTEGER NOT NULL,
    updated_at    INTEGER NOT NULL
);

-- The conversation of a session, appended when a run reaches a terminal state.
CREATE TABLE session_messages (
    session_id    TEXT NOT NULL,
    idx           INTEGER NOT NULL,
    run_id        TEXT,
    message       TEXT NOT NULL,
    created_at    INTEGER NOT NULL,
    PRIMARY KEY (session_id, idx)
);

-- A run is a job. `queue_seq` orders the queue; `lease_epoch` fences every
-- write a worker makes for the run; `attempt` counts charged attempts.
CREATE TABLE runs (
    queue_seq     INTEGER PRIMARY KEY AUTOINCREMENT,
    id            TEXT NOT NULL UNIQUE,
    kind          TEXT NOT NULL,
    status        TEXT NOT NULL,
    blocked       INTEGER NOT NULL DEFAULT 0,
    session_id    TEXT,
    agent_id      TEXT NOT NULL,
    fleet_run_id  TEXT,
    task_index    INTEGER,
    agent         TEXT NOT NULL,          -- snapshot of the agent at submission
    input         TEXT NOT NULL,          -- the message and task settings
    work_dir      TEXT NOT NULL,
    attempt       INTEGER NOT NULL DEFAULT 0,
    max_attempts  INTEGER NOT NULL,
    lease_epoch   INTEGER NOT NULL DEFAULT 0,
    worker_id     TEXT,
    event_seq     INTEGER NOT NULL DEFAULT 0,
    response      TEXT,
    usage         TEXT,
    steps         INTEGER NOT NULL DEFAULT 0,
    tool_calls    TEXT,
    error         TEXT,
    created_at    INTEGER NOT NULL,
    started_at    INTEGER,
    finished_at   INTEGER,
    updated_at    INTEGER NOT NULL
);
CREATE INDEX runs_ready ON runs (queue_seq) WHERE status = 'queued' AND blocked = 0;
CREATE INDEX runs_running ON runs (worker_id) WHERE status = 'running';
CREATE INDEX runs_session ON runs (session_id, queue_seq);
CREATE INDEX runs_status ON runs (status, queue_seq);

-- One row per checkpointed unit of work: an inference result, a tool result,
-- or a failed provider attempt. Never rewritten.
CREATE TABLE checkpoints (
    run_id        TEXT NOT NULL,
    step          INTEGER NOT NULL,
    kind          TEXT NOT NULL,
    call_id       TEXT NOT NULL DEFAULT '',
    body          TEXT NOT NULL,
    created_at    INTEGER NOT NULL,
    PRIMARY KEY (run_id, step, kind, call_id)
);

-- The event log. `gid` is the global commit-ordered cursor the event pump
-- follows; (run_id, seq) is the dense per-run sequence clients see.
CREATE TABLE run_events (
    gid           INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id        TEXT NOT NULL,
    seq           INTEGER NOT NULL,
    type          TEXT NOT NULL,
    data          TEXT NOT NULL,
    at            INTEGER NOT NULL,
    UNIQUE (run_id, seq)
);

CREATE TABLE workers (
    id               TEXT PRIMARY KEY,
    name             TEXT NOT NULL,
    started_at       INTEGER NOT NULL,
    lease_expires_at INTEGER NOT NULL
);

CREATE TABLE idempotency_keys (
    scope         TEXT NOT NULL,
    key           TEXT NOT NULL,
    request_hash  TEXT NOT NULL,
    run_id        TEXT NOT NULL,
    created_at    INTEGER NOT NULL,
    PRIMARY KEY (scope, key)
);
