-- Secrets: values an MCP server's `env` and `headers` refer to as
-- `{"secret": "NAME"}`, read by the worker that connects to the server.
-- Write-only through the API, which shows names and times, never a value.
CREATE TABLE secrets (
    name          TEXT PRIMARY KEY,
    value         TEXT NOT NULL,
    created_at    INTEGER NOT NULL,
    updated_at    INTEGER NOT NULL
);
