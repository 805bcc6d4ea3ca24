//! The schedules of a PostgreSQL database ([`crate::domain::schedule`]). Servers
//! that fire a tick together each record it; only the one whose read of
//! `next_tick_at` still holds moves the schedule on.

use chrono::{DateTime, Utc};
use sqlx::postgres::PgPool;

use crate::domain::schedule::{Schedule, Tick};
use crate::store::rows::{at, ms};
use crate::store::schedule_rows::{self, COLUMNS, TICK_COLUMNS};
use crate::store::{StoreError, StoreResult};

/// Adds a schedule.
pub async fn insert(pool: &PgPool, schedule: &Schedule) -> StoreResult<()> {
    let (body, paused, next, created, updated) = schedule_rows::columns(schedule)?;
    sqlx::query(
        "INSERT INTO schedules (id, body, paused, next_tick_at, created_at, updated_at, version)
         VALUES ($1, $2, $3, $4, $5, $6, $7)",
    )
    .bind(&schedule.id)
    .bind(body)
    .bind(paused)
    .bind(next)
    .bind(created)
    .bind(updated)
    .bind(schedule.version as i64)
    .execute(pool)
    .await?;
    Ok(())
}

/// Writes a schedule's new definition, pause and next tick over the
/// version before `schedule.version`.
pub async fn update(pool: &PgPool, schedule: &Schedule) -> StoreResult<()> {
    let (body, paused, next, _, updated) = schedule_rows::columns(schedule)?;
    let changed = sqlx::query(
        "UPDATE schedules SET body = $2, paused = $3, next_tick_at = $4, updated_at = $5, version = $6
         WHERE id = $1 AND version = $6 - 1",
    )
    .bind(&schedule.id)
    .bind(body)
    .bind(paused)
    .bind(next)
    .bind(updated)
    .bind(schedule.version as i64)
    .execute(pool)
    .await?;
    if changed.rows_affected() == 1 {
        return Ok(());
    }
    let mut c = pool.acquire().await?;
    let current = super::resources::version_of(&mut c, "schedules", &schedule.id).await?;
    Err(StoreError::not_updated("schedule", current))
}

/// Removes a schedule with its tick records (not what they submitted).
pub async fn delete(pool: &PgPool, id: &str) -> StoreResult<()> {
    let deleted = sqlx::query(
        "WITH ticks AS (DELETE FROM schedule_ticks WHERE schedule_id = $1) DELETE FROM schedules WHERE id = $1",
    )
    .bind(id)
    .execute(pool)
    .await?;
    if deleted.rows_affected() == 0 {
        return Err(StoreError::NotFound("schedule"));
    }
    Ok(())
}

/// The schedule with this ID, if any.
pub async fn get(pool: &PgPool, id: &str) -> StoreResult<Option<Schedule>> {
    let row =
        sqlx::query(&format!("SELECT {COLUMNS} FROM schedules WHERE id = $1")).bind(id).fetch_optional(pool).await?;
    row.as_ref().map(schedule_rows::schedule).transpose()
}

/// All schedules, ordered by ID.
pub async fn list(pool: &PgPool) -> StoreResult<Vec<Schedule>> {
    let rows = sqlx::query(&format!("SELECT {COLUMNS} FROM schedules ORDER BY id")).fetch_all(pool).await?;
    rows.iter().map(schedule_rows::schedule).collect()
}

/// Active schedules whose tick has come by `now`, the oldest tick first.
pub async fn due(pool: &PgPool, now: DateTime<Utc>, limit: u32) -> StoreResult<Vec<Schedule>> {
    let rows = sqlx::query(&format!(
        "SELECT {COLUMNS} FROM schedules WHERE paused = 0 AND next_tick_at IS NOT NULL AND next_tick_at <= $1
         ORDER BY next_tick_at LIMIT $2"
    ))
    .bind(ms(now))
    .bind(limit as i64)
    .fetch_all(pool)
    .await?;
    rows.iter().map(schedule_rows::schedule).collect()
}

/// The time of the first tick to come among active schedules.
pub async fn next_due(pool: &PgPool) -> StoreResult<Option<DateTime<Utc>>> {
    let due: Option<i64> = sqlx::query_scalar(
        "SELECT next_tick_at FROM schedules WHERE paused = 0 AND next_tick_at IS NOT NULL
         ORDER BY next_tick_at LIMIT 1",
    )
    .fetch_optional(pool)
    .await?;
    Ok(due.map(at))
}

/// Advances the schedule from `expected` to `following` and, in the same
/// transaction, writes the tick's record (see [`schedule_rows::RECORD_TICK`]);
/// answers whether the advance was this call's.
pub async fn record_tick(
    pool: &PgPool,
    id: &str,
    expected: DateTime<Utc>,
    tick: &Tick,
    following: Option<DateTime<Utc>>,
) -> StoreResult<bool> {
    let mut tx = pool.begin().await?;
    let moved = sqlx::query(schedule_rows::ADVANCE)
        .bind(following.map(ms))
        .bind(ms(tick.tick_at))
        .bind(id)
        .bind(ms(expected))
        .execute(&mut *tx)
        .await?;
    sqlx::query(schedule_rows::RECORD_TICK)
        .bind(id)
        .bind(ms(tick.tick_at))
        .bind(&tick.kind)
        .bind(&tick.id)
        .bind(&tick.skipped)
        .bind(ms(expected))
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(moved.rows_affected() == 1)
}

/// The newest `limit` ticks of a schedule.
pub async fn ticks(pool: &PgPool, id: &str, limit: u32) -> StoreResult<Vec<Tick>> {
    let rows = sqlx::query(&format!(
        "SELECT {TICK_COLUMNS} FROM schedule_ticks WHERE schedule_id = $1 ORDER BY tick_at DESC LIMIT $2"
    ))
    .bind(id)
    .bind(limit as i64)
    .fetch_all(pool)
    .await?;
    rows.iter().map(schedule_rows::tick).collect()
}

/// The latest tick of the schedule that made a run, fleet run or formation run.
pub async fn last_submission(pool: &PgPool, id: &str) -> StoreResult<Option<Tick>> {
    let row = sqlx::query(&format!(
        "SELECT {TICK_COLUMNS} FROM schedule_ticks WHERE schedule_id = $1 AND subject_id IS NOT NULL
         ORDER BY tick_at DESC LIMIT 1"
    ))
    .bind(id)
    .fetch_optional(pool)
    .await?;
    row.as_ref().map(schedule_rows::tick).transpose()
}
