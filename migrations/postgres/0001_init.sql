-- Wingman schema, PostgreSQL flavour. The same tables and columns as the
-- SQLite schema (migrations/sqlite/, through 0005), so that one set of row
-- decoders reads both: JSON as TEXT, times as BIGINT milliseconds since the
-- Unix epoch (UTC), integers as BIGINT. Every time a write stores or judges
-- is the database's clock (wingman_ms()), so workers on many hosts share
-- one clock for their leases. It is the transaction's time (`now()`): the
-- transactions are short, and row locks order a late write before a rescue.

CREATE FUNCTION wingman_ms() RETURNS BIGINT LANGUAGE sql STABLE
    AS $$ SELECT (extract(epoch FROM now()) * 1000)::BIGINT $$;

CREATE TABLE agents (
    id            TEXT PRIMARY KEY,
    body          TEXT NOT NULL,
    created_at    BIGINT NOT NULL,
    updated_at    BIGINT NOT NULL
);

CREATE TABLE fleets (
    id            TEXT PRIMARY KEY,
    body          TEXT NOT NULL,
    created_at    BIGINT NOT NULL,
    updated_at    BIGINT NOT NULL
);

CREATE TABLE sessions (
    id            TEXT PRIMARY KEY,
    agent_id      TEXT,
    title         TEXT,
    work_dir      TEXT NOT NULL,
    metadata      TEXT NOT NULL DEFAULT '{}',
    created_at    BIGINT NOT NULL,
    updated_at    BIGINT NOT NULL
);

CREATE TABLE session_messages (
    session_id    TEXT NOT NULL,
    idx           BIGINT NOT NULL,
    run_id        TEXT,
    message       TEXT NOT NULL,
    created_at    BIGINT NOT NULL,
    PRIMARY KEY (session_id, idx)
);

-- A run is a job; see migrations/sqlite/0001_init.sql and 0005 for the columns.
CREATE TABLE runs (
    queue_seq     BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id            TEXT NOT NULL UNIQUE,
    kind          TEXT NOT NULL,
    status        TEXT NOT NULL,
    blocked       BIGINT NOT NULL DEFAULT 0,
    session_id    TEXT,
    agent_id      TEXT NOT NULL,
    fleet_run_id  TEXT,
    task_index    BIGINT,
    agent         TEXT NOT NULL,
    input         TEXT NOT NULL,
    work_dir      TEXT NOT NULL,
    attempt       BIGINT NOT NULL DEFAULT 0,
    max_attempts  BIGINT NOT NULL,
    charged       BIGINT NOT NULL DEFAULT 0,
    progressed    BIGINT NOT NULL DEFAULT 0,
    handed_back   BIGINT NOT NULL DEFAULT 0,
    open_step     BIGINT,
    lease_epoch   BIGINT NOT NULL DEFAULT 0,
    worker_id     TEXT,
    event_seq     BIGINT NOT NULL DEFAULT 0,
    response      TEXT,
    usage         TEXT,
    steps         BIGINT NOT NULL DEFAULT 0,
    tool_calls    TEXT,
    error         TEXT,
    created_at    BIGINT NOT NULL,
    started_at    BIGINT,
    finished_at   BIGINT,
    updated_at    BIGINT NOT NULL
);
CREATE INDEX runs_ready ON runs (queue_seq) WHERE status = 'queued' AND blocked = 0;
CREATE INDEX runs_running ON runs (worker_id) WHERE status = 'running';
CREATE INDEX runs_session ON runs (session_id, queue_seq);
CREATE INDEX runs_status ON runs (status, queue_seq);
CREATE INDEX runs_fleet ON runs (fleet_run_id, task_index) WHERE fleet_run_id IS NOT NULL;
CREATE INDEX runs_fleet_waiting ON runs (fleet_run_id, queue_seq)
    WHERE fleet_run_id IS NOT NULL AND status = 'queued' AND blocked = 1;

CREATE TABLE checkpoints (
    run_id        TEXT NOT NULL,
    step          BIGINT NOT NULL,
    kind          TEXT NOT NULL,
    call_id       TEXT NOT NULL DEFAULT '',
    body          TEXT NOT NULL,
    created_at    BIGINT NOT NULL,
    PRIMARY KEY (run_id, step, kind, call_id)
);

-- The event log. `gid` is the global cursor the event pump follows. An
-- identity column alone is not commit-ordered on PostgreSQL (a transaction
-- may take a number, then commit after one that took a higher one), so
-- every transaction that writes events first takes one transaction-scoped
-- advisory lock and holds it to its commit: numbers are then taken in
-- commit order, and a reader that has seen `gid` n never misses one below it.
CREATE TABLE run_events (
    gid           BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    run_id        TEXT NOT NULL,
    seq           BIGINT NOT NULL,
    type          TEXT NOT NULL,
    data          TEXT NOT NULL,
    at            BIGINT NOT NULL,
    UNIQUE (run_id, seq)
);

CREATE TABLE workers (
    id               TEXT PRIMARY KEY,
    name             TEXT NOT NULL,
    started_at       BIGINT NOT NULL,
    lease_expires_at BIGINT NOT NULL
);

CREATE TABLE idempotency_keys (
    scope         TEXT NOT NULL,
    key           TEXT NOT NULL,
    request_hash  TEXT NOT NULL,
    run_id        TEXT NOT NULL,
    created_at    BIGINT NOT NULL,
    PRIMARY KEY (scope, key)
);

CREATE TABLE credentials (
    provider      TEXT PRIMARY KEY,
    api_key       TEXT NOT NULL,
    created_at    BIGINT NOT NULL,
    updated_at    BIGINT NOT NULL
);

CREATE TABLE fleet_runs (
    id               TEXT PRIMARY KEY,
    fleet_id         TEXT NOT NULL,
    agent_id         TEXT NOT NULL,
    status           TEXT NOT NULL,
    worker_count     BIGINT NOT NULL,
    tasks            BIGINT NOT NULL,
    succeeded        BIGINT NOT NULL DEFAULT 0,
    failed           BIGINT NOT NULL DEFAULT 0,
    cancelled        BIGINT NOT NULL DEFAULT 0,
    cancel_requested BIGINT NOT NULL DEFAULT 0,
    event_seq        BIGINT NOT NULL DEFAULT 0,
    created_at       BIGINT NOT NULL,
    started_at       BIGINT,
    finished_at      BIGINT,
    updated_at       BIGINT NOT NULL
);
CREATE INDEX fleet_runs_fleet ON fleet_runs (fleet_id, id);
CREATE INDEX fleet_runs_open ON fleet_runs (fleet_id) WHERE status IN ('queued', 'running');
