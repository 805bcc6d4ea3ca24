//! Schedules on SQLite ([`crate::domain::schedule`]): their definitions, the due
//! ones, and a tick recorded with the schedule moved on from the tick it read.

use chrono::{DateTime, Utc};
use rusqlite::{params, Connection, OptionalExtension};

use super::rows::{all, ms};
use crate::domain::schedule::{Schedule, Tick};
use crate::store::rows::at;
use crate::store::schedule_rows::{self, COLUMNS, TICK_COLUMNS};
use crate::store::{StoreError, StoreResult};

/// Writes a new schedule.
pub fn insert(conn: &Connection, schedule: &Schedule) -> StoreResult<()> {
    let (body, paused, next, created, updated) = schedule_rows::columns(schedule)?;
    conn.prepare_cached(
        "INSERT INTO schedules (id, body, paused, next_tick_at, created_at, updated_at, version)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
    )?
    .execute(params![schedule.id, body, paused, next, created, updated, schedule.version as i64])?;
    Ok(())
}

/// Replaces a schedule's definition, paused flag and next tick, over the
/// version before `schedule.version`.
pub fn update(conn: &Connection, schedule: &Schedule) -> StoreResult<()> {
    let (body, paused, next, _, updated) = schedule_rows::columns(schedule)?;
    let changed = conn
        .prepare_cached(
            "UPDATE schedules SET body = ?2, paused = ?3, next_tick_at = ?4, updated_at = ?5, version = ?6
             WHERE id = ?1 AND version = ?6 - 1",
        )?
        .execute(params![schedule.id, body, paused, next, updated, schedule.version as i64])?;
    if changed == 1 {
        return Ok(());
    }
    Err(StoreError::not_updated("schedule", super::resources::version_of(conn, "schedules", &schedule.id)?))
}

/// Deletes a schedule and its ticks; what its ticks submitted stays.
pub fn delete(conn: &Connection, id: &str) -> StoreResult<()> {
    conn.prepare_cached("DELETE FROM schedule_ticks WHERE schedule_id = ?1")?.execute([id])?;
    let deleted = conn.prepare_cached("DELETE FROM schedules WHERE id = ?1")?.execute([id])?;
    if deleted == 0 {
        return Err(StoreError::NotFound("schedule"));
    }
    Ok(())
}

/// One schedule.
pub fn get(conn: &Connection, id: &str) -> StoreResult<Option<Schedule>> {
    let mut select = conn.prepare_cached(&format!("SELECT {COLUMNS} FROM schedules WHERE id = ?1"))?;
    let found = all(select.query([id])?, |row| schedule_rows::schedule(row))?;
    Ok(found.into_iter().next())
}

/// Every schedule, by ID.
pub fn list(conn: &Connection) -> StoreResult<Vec<Schedule>> {
    let mut select = conn.prepare_cached(&format!("SELECT {COLUMNS} FROM schedules ORDER BY id"))?;
    let found = all(select.query([])?, |row| schedule_rows::schedule(row))?;
    Ok(found)
}

/// Schedules not paused whose next tick is at or before `now`, soonest first.
pub fn due(conn: &Connection, now: DateTime<Utc>, limit: u32) -> StoreResult<Vec<Schedule>> {
    let mut select = conn.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM schedules INDEXED BY schedules_due
         WHERE paused = 0 AND next_tick_at IS NOT NULL AND next_tick_at <= ?1 ORDER BY next_tick_at LIMIT ?2"
    ))?;
    let found = all(select.query(params![ms(now), limit as i64])?, |row| schedule_rows::schedule(row))?;
    Ok(found)
}

/// When the soonest tick of a schedule not paused falls.
pub fn next_due(conn: &Connection) -> StoreResult<Option<DateTime<Utc>>> {
    let due: Option<i64> = conn
        .prepare_cached(
            "SELECT next_tick_at FROM schedules INDEXED BY schedules_due
             WHERE paused = 0 AND next_tick_at IS NOT NULL ORDER BY next_tick_at LIMIT 1",
        )?
        .query_row([], |r| r.get(0))
        .optional()?;
    Ok(due.map(at))
}

/// Moves the schedule on to `following`, if its next tick is still
/// `expected` and it is not paused, and records the tick (see
/// [`schedule_rows::RECORD_TICK`]): `true` when this moved it.
pub fn record_tick(
    conn: &Connection,
    id: &str,
    expected: DateTime<Utc>,
    tick: &Tick,
    following: Option<DateTime<Utc>>,
) -> StoreResult<bool> {
    let moved = conn.prepare_cached(schedule_rows::ADVANCE)?.execute(params![
        following.map(ms),
        ms(tick.tick_at),
        id,
        ms(expected)
    ])?;
    conn.prepare_cached(schedule_rows::RECORD_TICK)?.execute(params![
        id,
        ms(tick.tick_at),
        tick.kind,
        tick.id,
        tick.skipped,
        ms(expected)
    ])?;
    Ok(moved == 1)
}

/// A schedule's ticks, newest first.
pub fn ticks(conn: &Connection, id: &str, limit: u32) -> StoreResult<Vec<Tick>> {
    let mut select = conn.prepare_cached(&format!(
        "SELECT {TICK_COLUMNS} FROM schedule_ticks WHERE schedule_id = ?1 ORDER BY tick_at DESC LIMIT ?2"
    ))?;
    let found = all(select.query(params![id, limit as i64])?, |row| schedule_rows::tick(row))?;
    Ok(found)
}

/// The newest tick that submitted something.
pub fn last_submission(conn: &Connection, id: &str) -> StoreResult<Option<Tick>> {
    let mut select = conn.prepare_cached(&format!(
        "SELECT {TICK_COLUMNS} FROM schedule_ticks WHERE schedule_id = ?1 AND subject_id IS NOT NULL
         ORDER BY tick_at DESC LIMIT 1"
    ))?;
    let found = all(select.query([id])?, |row| schedule_rows::tick(row))?;
    Ok(found.into_iter().next())
}
