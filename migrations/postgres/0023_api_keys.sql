-- API keys, as on SQLite: an owner, a role, the key's SHA-256 digest (hex,
-- unique: a request's key is looked up by it) and last four characters; a
-- revoked key keeps its row and its time of revocation. Milliseconds since
-- the epoch, as every time here.
CREATE TABLE api_keys (
    id TEXT PRIMARY KEY,
    owner TEXT NOT NULL,
    role TEXT NOT NULL CHECK (role IN ('admin', 'member', 'reader')),
    name TEXT,
    digest TEXT NOT NULL UNIQUE,
    hint TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    expires_at BIGINT,
    revoked_at BIGINT
);
