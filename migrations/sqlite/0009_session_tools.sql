-- What a session adds to its agent's tools (`PUT /sessions/{id}` with
-- `tools`, `http_tools`, `client_tools`), as a JSON object; and the
-- session's shell state (the current directory and exported variables
-- that `bash` carries from call to call), as JSON, NULL before the first
-- call. Both are read with the session, one row, whatever its history.
ALTER TABLE sessions ADD COLUMN tools TEXT NOT NULL DEFAULT '{}';
ALTER TABLE sessions ADD COLUMN shell TEXT;
