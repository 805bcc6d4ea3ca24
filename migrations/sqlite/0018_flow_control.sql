-- Flow control.
--
-- A run's priority (-10..10, higher first; from its submission, carried to
-- every run it makes). A claim takes the highest priority first, then the
-- oldest, still only among runs at the head of their session (blocked = 0),
-- so priority orders sessions and never the messages of one session. The
-- queue's index follows the claim's order, so a claim stays one walk of an
-- index however many runs are queued.
--
-- A run's concurrency key and limit (from its submission, carried to every
-- run it makes): at most `concurrency_limit` runs of one key are `running`
-- at once. The count is of running rows, read when a claim decides, so a
-- run that waits for a person gives its slot back by leaving `running`, and
-- nothing is kept that could drift. A claim that meets a run whose key is
-- full holds it (held = 1): it leaves the ready index, so later claims do not
-- walk past it again, and its key is listed in `held_keys`. Each claim
-- first gives the held runs of a listed key as many places back in the ready
-- index as the key has free slots, best first, and forgets a key with none
-- held.
--
-- Fairness: start-time fair queuing. Each run gets a virtual start `vt`
-- when it is queued, and claims take the lowest first within a priority
-- (then the oldest). The clock is the vt of the run a claim would take
-- next (or the highest vt given, when nothing is ready). A run without a
-- key starts at the clock; the runs of one submission (a fleet run's tasks,
-- a parent's children) take consecutive vts from it, so they interleave
-- with what others queue later instead of going before it all; a key's runs
-- take the vts after the key's last (`fair_keys`), never below the clock.
-- One key's 5,000 queued tasks so delay another key's message by a claim
-- or two, not 5,000.
ALTER TABLE runs ADD COLUMN priority INTEGER NOT NULL DEFAULT 0;
ALTER TABLE runs ADD COLUMN concurrency_key TEXT;
ALTER TABLE runs ADD COLUMN concurrency_limit INTEGER;
ALTER TABLE runs ADD COLUMN held INTEGER NOT NULL DEFAULT 0;
ALTER TABLE runs ADD COLUMN vt INTEGER NOT NULL DEFAULT 0;
DROP INDEX runs_ready;
CREATE INDEX runs_ready ON runs (priority DESC, vt, queue_seq) WHERE status = 'queued' AND blocked = 0 AND held = 0;
CREATE INDEX runs_keyed ON runs (concurrency_key, status) WHERE concurrency_key IS NOT NULL;
CREATE INDEX runs_held ON runs (concurrency_key, priority DESC, vt, queue_seq) WHERE held = 1 AND status = 'queued';
CREATE INDEX runs_vt ON runs (vt);
CREATE TABLE fair_keys (
    key     TEXT PRIMARY KEY,
    last_vt INTEGER NOT NULL
);
CREATE TABLE held_keys (
    key TEXT PRIMARY KEY,
    lim INTEGER NOT NULL
);
