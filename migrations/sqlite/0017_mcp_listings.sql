-- What workers saw when they listed an MCP server's tools, by the server's
-- definition (its JSON's digest): what any server, an API-only one
-- included, answers GET /agents/{id}/tools from. One row per definition,
-- the newest listing.
CREATE TABLE mcp_listings (
    definition TEXT PRIMARY KEY,
    server     TEXT NOT NULL,
    tools      TEXT NOT NULL,
    error      TEXT,
    listed_at  INTEGER NOT NULL
);
