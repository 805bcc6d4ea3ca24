-- Values for MCP servers' `env` and `headers` (`{"secret": "NAME"}`), looked
-- up by workers; the API never answers with one. Times in milliseconds of
-- the database's clock, like the credentials beside them.
CREATE TABLE secrets (
    name          TEXT PRIMARY KEY,
    value         TEXT NOT NULL,
    created_at    BIGINT NOT NULL,
    updated_at    BIGINT NOT NULL
);
