//! The row decoding of schedules both backends share: the stored definition
//! with the columns servers advance laid over it.

use super::rows::{at, json, ms, Columns};
use super::StoreResult;
use crate::domain::schedule::{Schedule, Tick};

/// The columns [`schedule`] reads.
pub const COLUMNS: &str = "id, body, paused, next_tick_at, last_tick_at, created_at, updated_at";

/// The columns [`tick`] reads.
pub const TICK_COLUMNS: &str = "tick_at, kind, subject_id, skipped";

/// Moves schedule `$3` on from its next tick `$4` to `$1`, having fired
/// the tick at `$2`, unless another server moved it first or it is paused.
/// (SQLite numbers `$N` parameters in the order they first appear, so a
/// statement both backends share names them in that order.) Run before
/// [`RECORD_TICK`] in the same transaction: on PostgreSQL the row lock it
/// takes makes a second server firing the same tick wait, and then see the
/// first one's record.
pub const ADVANCE: &str =
    "UPDATE schedules SET next_tick_at = $1, last_tick_at = $2 WHERE id = $3 AND next_tick_at = $4 AND paused = 0";

/// Records schedule `$1`'s tick at `$2` (kind `$3`, subject `$4`, or skipped
/// for reason `$5`), fired from its stored tick `$6`, unless the schedule is
/// gone or its subject already has a record: two servers, or one before an
/// outage and one after, that fire one stored tick at two moments submit it
/// under one key and get one run, which is recorded once (at a time no
/// earlier than the stored tick, so that the look is a short range of the
/// primary key). A record that submitted replaces one of the same time
/// that skipped, never the other way.
pub const RECORD_TICK: &str = "INSERT INTO schedule_ticks (schedule_id, tick_at, kind, subject_id, skipped)
     SELECT $1, $2, $3, $4, $5 WHERE EXISTS (SELECT 1 FROM schedules WHERE id = $1)
        AND NOT EXISTS (SELECT 1 FROM schedule_ticks
                        WHERE schedule_id = $1 AND tick_at >= $6 AND subject_id = $4)
     ON CONFLICT (schedule_id, tick_at) DO UPDATE SET kind = EXCLUDED.kind, subject_id = EXCLUDED.subject_id,
            skipped = EXCLUDED.skipped
     WHERE EXCLUDED.subject_id IS NOT NULL AND schedule_ticks.subject_id IS NULL";

/// Decodes a schedule's row selected with [`COLUMNS`].
pub fn schedule(row: &impl Columns) -> StoreResult<Schedule> {
    let mut schedule: Schedule = json(row, "body")?;
    schedule.paused = row.int("paused")? != 0;
    schedule.next_tick_at = row.opt_int("next_tick_at")?.map(at);
    schedule.last_tick_at = row.opt_int("last_tick_at")?.map(at);
    schedule.created_at = at(row.int("created_at")?);
    schedule.updated_at = at(row.int("updated_at")?);
    Ok(schedule)
}

/// Decodes a tick's row selected with [`TICK_COLUMNS`].
pub fn tick(row: &impl Columns) -> StoreResult<Tick> {
    Ok(Tick {
        tick_at: at(row.int("tick_at")?),
        kind: row.opt_text("kind")?,
        id: row.opt_text("subject_id")?,
        skipped: row.opt_text("skipped")?,
    })
}

/// A schedule's columns as written: its body, paused, next tick, created, updated.
pub fn columns(schedule: &Schedule) -> StoreResult<(String, i64, Option<i64>, i64, i64)> {
    Ok((
        serde_json::to_string(schedule)?,
        schedule.paused as i64,
        schedule.next_tick_at.map(ms),
        ms(schedule.created_at),
        ms(schedule.updated_at),
    ))
}
