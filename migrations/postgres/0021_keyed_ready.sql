-- The ready runs of each concurrency key. A claim gives a key's held runs
-- back as slots free, and for that counts the key's running runs and its
-- ready ones; only whether the ready reach the key's limit matters, so the
-- count stops there. Counted over `runs_keyed`, it walked every queued run
-- of the key (5,000 queued made each claim several milliseconds slower).
CREATE INDEX runs_keyed_ready ON runs (concurrency_key)
    WHERE concurrency_key IS NOT NULL AND status = 'queued' AND blocked = 0 AND held = 0;
