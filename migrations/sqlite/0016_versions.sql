-- A definition's version: 1 when made, one more with each change. A change
-- is written only over the version it read (`If-Match`).
ALTER TABLE agents ADD COLUMN version INTEGER NOT NULL DEFAULT 1;
ALTER TABLE fleets ADD COLUMN version INTEGER NOT NULL DEFAULT 1;
ALTER TABLE formations ADD COLUMN version INTEGER NOT NULL DEFAULT 1;
ALTER TABLE schedules ADD COLUMN version INTEGER NOT NULL DEFAULT 1;
