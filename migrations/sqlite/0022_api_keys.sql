-- API keys: each opens the API for one owner with one role (admin, member,
-- reader). Only the key's SHA-256 digest is kept (hex, unique, which is how a
-- request's key is found), with its last four characters to tell keys apart.
-- A revoked key keeps its row, so that the list says when it was revoked.
-- Times are milliseconds since the epoch.
CREATE TABLE api_keys (
    id TEXT PRIMARY KEY,
    owner TEXT NOT NULL,
    role TEXT NOT NULL CHECK (role IN ('admin', 'member', 'reader')),
    name TEXT,
    digest TEXT NOT NULL UNIQUE,
    hint TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    expires_at INTEGER,
    revoked_at INTEGER
);
