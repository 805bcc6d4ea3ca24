-- Schedules: a definition kept whole as JSON, beside the columns servers
-- read and advance: whether it is paused and the tick due next. A tick
-- advances the schedule only from the tick it read (`next_tick_at`), so
-- servers firing at once move it on once.
CREATE TABLE schedules (
    id           TEXT PRIMARY KEY,
    body         TEXT NOT NULL,
    paused       INTEGER NOT NULL DEFAULT 0,
    next_tick_at INTEGER,
    last_tick_at INTEGER,
    created_at   INTEGER NOT NULL,
    updated_at   INTEGER NOT NULL
);
CREATE INDEX schedules_due ON schedules (next_tick_at) WHERE paused = 0 AND next_tick_at IS NOT NULL;

-- Each tick that fell, keyed by its time: what it submitted, or why not.
CREATE TABLE schedule_ticks (
    schedule_id TEXT NOT NULL,
    tick_at     INTEGER NOT NULL,
    kind        TEXT,
    subject_id  TEXT,
    skipped     TEXT,
    PRIMARY KEY (schedule_id, tick_at)
);
