-- A session's tool additions (a JSON object) and its shell state (JSON,
-- NULL before bash's first call), one row each, read with the session.
ALTER TABLE sessions ADD COLUMN tools TEXT NOT NULL DEFAULT '{}';
ALTER TABLE sessions ADD COLUMN shell TEXT;
