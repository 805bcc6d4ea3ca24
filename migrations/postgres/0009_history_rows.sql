-- The messages one run adds to its session's history (the question and the
-- answer, or more with tool calls) go in one row, as a JSON array, as a
-- write's events do (migration 8): a session's history is read whole for
-- every run of it, and written at every run's end, and half the rows halve
-- those rows' index entries and visits. `idx` numbers a session's rows.
-- The messages written so far become rows of one message each.
ALTER TABLE session_messages RENAME COLUMN message TO messages;
UPDATE session_messages SET messages = '[' || messages || ']';
