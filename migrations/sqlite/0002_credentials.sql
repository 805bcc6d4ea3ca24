-- Provider credentials: one API key per credential name (`anthropic`,
-- `openai:openrouter`, …). Keys are read by workers when they build a
-- provider for a step and are never returned by the API.
CREATE TABLE credentials (
    provider      TEXT PRIMARY KEY,
    api_key       TEXT NOT NULL,
    created_at    INTEGER NOT NULL,
    updated_at    INTEGER NOT NULL
);
