-- A session's turn is found among its runs that still hold or wait for it,
-- not by walking every run the session ever had: enqueue asks whether the
-- session is busy, and the end of a run passes the turn to the oldest
-- blocked one. Without this index both walked the session's whole history.
CREATE INDEX runs_session_active ON runs (session_id, queue_seq)
    WHERE status IN ('queued', 'running', 'waiting');
