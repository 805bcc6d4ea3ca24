-- Webhook deliveries, as on SQLite: an outbox row written in the
-- transaction that ends its subject (a run, a fleet run or a formation run). Any server's
-- deliverer claims a due row by moving `next_attempt_at` past the attempt's
-- time limit and counting the attempt, so a server that dies mid-attempt
-- leaves the row to another once that time has passed.
CREATE TABLE deliveries (
    id              TEXT PRIMARY KEY,
    subject         TEXT NOT NULL,
    subject_id      TEXT NOT NULL,
    url             TEXT NOT NULL,
    payload         TEXT NOT NULL,
    status          TEXT NOT NULL DEFAULT 'pending',
    attempts        BIGINT NOT NULL DEFAULT 0,
    next_attempt_at BIGINT,
    created_at      BIGINT NOT NULL,
    delivered_at    BIGINT
);
CREATE INDEX deliveries_subject ON deliveries (subject_id, id);
CREATE INDEX deliveries_due ON deliveries (next_attempt_at) WHERE status = 'pending';

-- Each finished attempt, for `GET …/deliveries`.
CREATE TABLE delivery_attempts (
    delivery_id TEXT NOT NULL,
    attempt     BIGINT NOT NULL,
    at          BIGINT NOT NULL,
    duration_ms BIGINT NOT NULL,
    status_code BIGINT,
    error       TEXT,
    PRIMARY KEY (delivery_id, attempt)
);

-- A fleet run's webhook; a run's is in its input, a formation run's in its snapshot.
ALTER TABLE fleet_runs ADD COLUMN webhook_url TEXT;
