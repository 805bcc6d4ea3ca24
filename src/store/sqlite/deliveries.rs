//! Webhook deliveries on SQLite ([`crate::domain::webhook`]): written in the
//! transaction that ends their subject, claimed by a server's deliverer for
//! one attempt at a time, and read with their attempts.

use std::time::Duration;

use chrono::{DateTime, Utc};
use rusqlite::{params, Connection, OptionalExtension};

use super::rows::{all, ms};
use crate::domain::webhook::{Attempt, Delivery, NewDelivery, Next};
use crate::store::delivery_rows::{self, ATTEMPT_COLUMNS, COLUMNS};
use crate::store::rows::at;
use crate::store::StoreResult;

/// Writes a delivery, due at once.
pub fn insert(conn: &Connection, delivery: &NewDelivery, now: DateTime<Utc>) -> StoreResult<()> {
    conn.prepare_cached(
        "INSERT INTO deliveries (id, subject, subject_id, url, payload, next_attempt_at, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?6)",
    )?
    .execute(params![
        delivery.id,
        delivery.subject.as_str(),
        delivery.subject_id,
        delivery.url,
        delivery.payload,
        ms(now)
    ])?;
    Ok(())
}

/// Claims up to `limit` due deliveries for one attempt each: the attempt is
/// counted, and the next one put off by `lease` in case this one never ends.
pub fn claim(conn: &Connection, lease: Duration, limit: u32, now: DateTime<Utc>) -> StoreResult<Vec<Delivery>> {
    let until = ms(now) + lease.as_millis() as i64;
    let mut claim = conn.prepare_cached(&format!(
        "UPDATE deliveries SET attempts = attempts + 1, next_attempt_at = ?2
         WHERE id IN (SELECT id FROM deliveries INDEXED BY deliveries_due
                      WHERE status = 'pending' AND next_attempt_at <= ?1 ORDER BY next_attempt_at LIMIT ?3)
         RETURNING {COLUMNS}"
    ))?;
    let claimed = claim.query(params![ms(now), until, limit as i64])?;
    all(claimed, |row| delivery_rows::delivery(row))
}

/// Records how attempt `attempt.attempt` ended and what follows, if no later
/// claim took the delivery over and the attempt is not recorded yet (else
/// nothing is written: `false`).
pub fn record(conn: &Connection, id: &str, attempt: &Attempt, next: &Next) -> StoreResult<bool> {
    let (next_at, delivered_at) = match next {
        Next::RetryAt(when) => (Some(ms(*when)), None),
        Next::Delivered => (None, Some(ms(attempt.at) + attempt.duration_ms as i64)),
        Next::GaveUp => (None, None),
    };
    let updated = conn
        .prepare_cached(
            "UPDATE deliveries SET status = ?3, next_attempt_at = ?4, delivered_at = ?5
             WHERE id = ?1 AND attempts = ?2 AND status = 'pending'
               AND NOT EXISTS (SELECT 1 FROM delivery_attempts WHERE delivery_id = ?1 AND attempt = ?2)",
        )?
        .execute(params![id, attempt.attempt as i64, next.status().as_str(), next_at, delivered_at])?;
    if updated == 0 {
        return Ok(false);
    }
    conn.prepare_cached(
        "INSERT INTO delivery_attempts (delivery_id, attempt, at, duration_ms, status_code, error)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    )?
    .execute(params![
        id,
        attempt.attempt as i64,
        ms(attempt.at),
        attempt.duration_ms as i64,
        attempt.status_code.map(i64::from),
        attempt.error
    ])?;
    Ok(true)
}

/// When the soonest pending delivery is due.
pub fn next_due(conn: &Connection) -> StoreResult<Option<DateTime<Utc>>> {
    let due: Option<i64> = conn
        .prepare_cached(
            "SELECT next_attempt_at FROM deliveries INDEXED BY deliveries_due
             WHERE status = 'pending' ORDER BY next_attempt_at LIMIT 1",
        )?
        .query_row([], |r| r.get(0))
        .optional()?
        .flatten();
    Ok(due.map(at))
}

/// A subject's deliveries, oldest first, each with its finished attempts.
pub fn list(conn: &Connection, subject_id: &str) -> StoreResult<Vec<Delivery>> {
    let mut select =
        conn.prepare_cached(&format!("SELECT {COLUMNS} FROM deliveries WHERE subject_id = ?1 ORDER BY id"))?;
    let mut deliveries = all(select.query([subject_id])?, |row| delivery_rows::delivery(row))?;
    let mut attempts = conn.prepare_cached(&format!(
        "SELECT {ATTEMPT_COLUMNS} FROM delivery_attempts
         WHERE delivery_id IN (SELECT id FROM deliveries WHERE subject_id = ?1) ORDER BY delivery_id, attempt"
    ))?;
    let found = all(attempts.query([subject_id])?, |row| delivery_rows::attempt(row))?;
    delivery_rows::attach(&mut deliveries, found);
    Ok(deliveries)
}
