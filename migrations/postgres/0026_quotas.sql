-- Quotas per owner and usage by day, as on SQLite (see its migration for
-- how they are kept).
CREATE TABLE owner_quotas (
    owner            TEXT PRIMARY KEY,
    body             TEXT NOT NULL,
    updated_at       BIGINT NOT NULL,
    max_running_runs BIGINT GENERATED ALWAYS AS ((body::jsonb ->> 'max_running_runs')::bigint) STORED
);
CREATE TABLE owner_usage (
    owner                       TEXT NOT NULL,
    day                         TEXT NOT NULL,
    part                        TEXT NOT NULL DEFAULT '',
    runs                        BIGINT NOT NULL DEFAULT 0,
    input_tokens                BIGINT NOT NULL DEFAULT 0,
    output_tokens               BIGINT NOT NULL DEFAULT 0,
    cache_read_input_tokens     BIGINT NOT NULL DEFAULT 0,
    cache_creation_input_tokens BIGINT NOT NULL DEFAULT 0,
    cost_usd                    DOUBLE PRECISION NOT NULL DEFAULT 0,
    PRIMARY KEY (owner, day, part)
);
CREATE INDEX runs_owner_queued ON runs (owner) WHERE status = 'queued';
CREATE INDEX runs_owner_running ON runs (owner) WHERE status = 'running';
CREATE TABLE held_owners (
    owner TEXT PRIMARY KEY
);
