-- A run's priority (-10..10, higher first; from its submission, carried to
-- every run it makes). A claim takes the highest priority first, then the
-- oldest, still only among runs at the head of their session (blocked = 0),
-- so priority orders sessions and never the messages of one session. The
-- queue's index follows the claim's order, so a claim stays one walk of an
-- index however many runs are queued.
ALTER TABLE runs ADD COLUMN priority INTEGER NOT NULL DEFAULT 0;
DROP INDEX runs_ready;
CREATE INDEX runs_ready ON runs (priority DESC, queue_seq) WHERE status = 'queued' AND blocked = 0;
