//! The row decoding of schedules both backends share: the stored definition
//! with the columns servers advance laid over it.

use super::rows::{at, json, ms, Columns};
use super::StoreResult;
use crate::domain::schedule::{Schedule, Tick};

/// The columns [`schedule`] reads.
pub const COLUMNS: &str = "id, body, paused, next_tick_at, last_tick_at, created_at, updated_at";

/// The columns [`tick`] reads.
pub const TICK_COLUMNS: &str = "tick_at, kind, subject_id, skipped";

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
