-- Quotas per owner, set by an admin (the quota as JSON), and what each
-- owner's runs spent by day (UTC, `YYYY-MM-DD`): every commit of an
-- inference or a compaction adds its tokens and cost to its run's owner's
-- day in the same transaction, and a run's end adds one run to the day it
-- ended. Counts are kept rather than summed from runs when asked, so that a
-- daily budget is one row to read and a day's usage outlives its runs'
-- retention. A day is kept in parts, each written by one writer (a
-- PostgreSQL worker writes its own part, named after it, so that workers
-- committing at once never wait for each other's row; SQLite has one
-- writer and one part, ''): a day's usage is the sum of its parts.
CREATE TABLE owner_quotas (
    owner            TEXT PRIMARY KEY,
    body             TEXT NOT NULL,
    updated_at       INTEGER NOT NULL,
    max_running_runs INTEGER GENERATED ALWAYS AS (json_extract(body, '$.max_running_runs')) VIRTUAL
);
CREATE TABLE owner_usage (
    owner                       TEXT NOT NULL,
    day                         TEXT NOT NULL,
    part                        TEXT NOT NULL DEFAULT '',
    runs                        INTEGER NOT NULL DEFAULT 0,
    input_tokens                INTEGER NOT NULL DEFAULT 0,
    output_tokens               INTEGER NOT NULL DEFAULT 0,
    cache_read_input_tokens     INTEGER NOT NULL DEFAULT 0,
    cache_creation_input_tokens INTEGER NOT NULL DEFAULT 0,
    cost_usd                    REAL NOT NULL DEFAULT 0,
    PRIMARY KEY (owner, day, part)
);
-- An owner's queued runs are counted through this when it has a
-- max_queued_runs, its running ones through the next when it has a
-- max_running_runs.
CREATE INDEX runs_owner_queued ON runs (owner) WHERE status = 'queued';
CREATE INDEX runs_owner_running ON runs (owner) WHERE status = 'running';
-- An owner's max_running_runs is a slot like a concurrency key's (see
-- 0018): a claim that meets a run of an owner at its limit holds the
-- owner's ready runs and lists the owner here; each claim gives a listed
-- owner's held runs back as its slots free (its limit read from its quota,
-- so a quota raised or removed frees them), and forgets an owner with none
-- held.
CREATE TABLE held_owners (
    owner TEXT PRIMARY KEY
);
