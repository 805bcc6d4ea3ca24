-- Retention reaches every table that grows: ended deliveries (with their
-- attempts), schedule ticks and idempotency keys, each found by its age.
CREATE INDEX deliveries_ended ON deliveries (created_at) WHERE status <> 'pending';
CREATE INDEX schedule_ticks_at ON schedule_ticks (tick_at);
CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);
