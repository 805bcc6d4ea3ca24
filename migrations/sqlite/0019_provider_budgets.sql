-- Provider budgets: the share of a provider's rate limits every worker on
-- every host draws from (src/domain/budget.rs, src/domain/share.rs).
--
-- One row per budget: a credential's (`openai`, `openai:label`), whose
-- declared limits are set through `PUT /provider/limits/{name}` and whose
-- pauses and learned limits come from the provider's answers; or an
-- agent's (`agent:<id>`), whose limits the agent declares. `state` is the
-- budget as JSON: declared and learned limits, the pacing's arrival times,
-- the pause, and the successes of the last seconds. A call reads and
-- writes it in one transaction.
--
-- A call's place in a budget: waiting until `until` (`reserved` when its
-- share is taken for then; a call further off reserves nothing and asks
-- again), or sending (`until` NULL) under its run's lease epoch. Calls in flight are
-- counted among running runs of that epoch only, so a worker that dies
-- mid-call frees its place when its run is rescued.
CREATE TABLE provider_budgets (
    name TEXT PRIMARY KEY,
    state TEXT NOT NULL,
    updated_at INTEGER NOT NULL
);

CREATE TABLE provider_calls (
    budget TEXT NOT NULL,
    run_id TEXT NOT NULL,
    epoch INTEGER NOT NULL,
    until INTEGER,
    reserved INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (budget, run_id)
);
CREATE INDEX provider_calls_run ON provider_calls (run_id);
