//! Runs' event logs on PostgreSQL, a write's events for one run in one row
//! ([`crate::store::event_rows`]). The log of all runs is read in commit
//! order, row by row ((transaction, row number), as [`super`] explains), and
//! a cursor also holds the number of the last event taken from its row, so
//! that a read that stopped inside a row resumes there.

use sqlx::postgres::{PgPool, PgRow};
use sqlx::Row;

use crate::domain::model::Event;
use crate::store::event_rows::expand;
use crate::store::{EventCursor, StoreResult};

/// The oldest transaction still open, as of the statement's snapshot: every
/// transaction below it has committed or rolled back.
const HORIZON: &str = "pg_snapshot_xmin(pg_current_snapshot())::text::bigint";

/// A run's events numbered after `after`, at most `limit` of them.
pub async fn read(pool: &PgPool, run_id: &str, after: u64, limit: u32) -> StoreResult<Vec<Event>> {
    let after_stored = crate::store::rows::stored_place(after);
    let found = sqlx::query(
        "SELECT run_id, first_seq, last_seq, events, at FROM run_events
         WHERE run_id = $1 AND last_seq > $2 ORDER BY last_seq LIMIT $3",
    )
    .bind(run_id)
    .bind(after_stored)
    .bind(limit as i64)
    .fetch_all(pool)
    .await?;
    let mut events = Vec::new();
    for row in &found {
        events.extend(expand(row, after)?);
    }
    events.truncate(limit as usize);
    Ok(events)
}

/// The place after the newest event that no open transaction can precede.
pub async fn cursor(pool: &PgPool) -> StoreResult<EventCursor> {
    let newest = sqlx::query(&format!(
        "SELECT tx, gid, last_seq FROM run_events WHERE tx < {HORIZON} ORDER BY tx DESC, gid DESC LIMIT 1"
    ))
    .fetch_optional(pool)
    .await?;
    match newest {
        Some(row) => Ok(EventCursor { seq: row.try_get::<i64, _>("last_seq")? as u64, ..row_place(&row)? }),
        None => Ok(EventCursor::default()),
    }
}

/// Events in commit order after `cursor`, at most `limit`, each with its
/// place: rows in (transaction, row number) order, from transactions that
/// have all ended (a transaction still open may yet commit events, and its
/// ID is at or above the horizon, so no event can commit behind the
/// cursor). The cursor's own row is read again if it holds events after
/// the last one taken from it.
pub async fn since(pool: &PgPool, cursor: EventCursor, limit: u32) -> StoreResult<Vec<(EventCursor, Event)>> {
    let found = sqlx::query(&format!(
        "SELECT tx, gid, run_id, first_seq, last_seq, events, at FROM run_events
         WHERE (tx, gid) >= ($1, $2) AND NOT ((tx, gid) = ($1, $2) AND last_seq <= $4)
           AND tx < {HORIZON} ORDER BY tx, gid LIMIT $3"
    ))
    .bind(i64::try_from(cursor.tx).unwrap_or(i64::MAX))
    .bind(i64::try_from(cursor.gid).unwrap_or(i64::MAX))
    .bind(limit as i64 + 1)
    .bind(i64::try_from(cursor.seq).unwrap_or(i64::MAX))
    .fetch_all(pool)
    .await?;
    let mut events = Vec::new();
    for row in &found {
        let place = row_place(row)?;
        let after = if (place.tx, place.gid) == (cursor.tx, cursor.gid) { cursor.seq } else { 0 };
        for event in expand(row, after)? {
            events.push((EventCursor { seq: event.seq, ..place }, event));
        }
    }
    events.truncate(limit as usize);
    Ok(events)
}

/// A row's place in commit order, before any of its events.
fn row_place(row: &PgRow) -> StoreResult<EventCursor> {
    let tx = row.try_get::<i64, _>("tx")? as u64;
    Ok(EventCursor { tx, gid: row.try_get::<i64, _>("gid")? as u64, seq: 0 })
}
