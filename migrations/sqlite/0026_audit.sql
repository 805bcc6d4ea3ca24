-- Who did what. A steer keeps who sent it (`by_json`, the caller as JSON)
-- until the run takes it in and writes it on its `steered` event.
ALTER TABLE run_inbox ADD COLUMN by_json TEXT;

-- The audit log: one row for each state change made through the API
-- (`body` is the entry as `GET /audit` shows it). Its ID is a ULID, so the
-- newest is the greatest; `owner` is the caller's, for an owner's entries
-- alone. `at` is milliseconds since the epoch.
CREATE TABLE audit_log (
    id    TEXT PRIMARY KEY,
    owner TEXT NOT NULL,
    at    INTEGER NOT NULL,
    body  TEXT NOT NULL
);
CREATE INDEX audit_log_owner ON audit_log (owner, id);
