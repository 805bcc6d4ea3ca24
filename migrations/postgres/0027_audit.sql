-- Who sent a steer, and the audit log, as on SQLite (see its migration for
-- what each holds).
ALTER TABLE run_inbox ADD COLUMN by_json TEXT;

CREATE TABLE audit_log (
    id    TEXT PRIMARY KEY,
    owner TEXT NOT NULL,
    at    BIGINT NOT NULL,
    body  TEXT NOT NULL
);
CREATE INDEX audit_log_owner ON audit_log (owner, id);
