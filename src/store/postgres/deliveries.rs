//! The webhook outbox on PostgreSQL ([`crate::domain::webhook`]). Claims skip rows
//! another server has locked, so servers claiming at once share the due
//! deliveries out instead of waiting on each other.

use std::time::Duration;

use chrono::{DateTime, Utc};
use sqlx::postgres::PgPool;
use sqlx::PgConnection;

use crate::domain::webhook::{Attempt, Delivery, NewDelivery, Next};
use crate::store::delivery_rows::{self, ATTEMPT_COLUMNS, COLUMNS};
use crate::store::rows::{at, ms};
use crate::store::StoreResult;

/// Adds a delivery to the outbox in the caller's transaction, due now.
pub async fn insert(c: &mut PgConnection, delivery: &NewDelivery) -> StoreResult<()> {
    sqlx::query(
        "INSERT INTO deliveries (id, subject, subject_id, url, payload, next_attempt_at, created_at)
         VALUES ($1, $2, $3, $4, $5, wingman_ms(), wingman_ms())",
    )
    .bind(&delivery.id)
    .bind(delivery.subject.as_str())
    .bind(&delivery.subject_id)
    .bind(&delivery.url)
    .bind(&delivery.payload)
    .execute(&mut *c)
    .await?;
    Ok(())
}

/// Takes up to `limit` due rows for one attempt each, counting it and
/// moving the row's next attempt `lease` ahead, past this one's time limit.
pub async fn claim(pool: &PgPool, lease: Duration, limit: u32) -> StoreResult<Vec<Delivery>> {
    let rows = sqlx::query(&format!(
        "UPDATE deliveries SET attempts = attempts + 1, next_attempt_at = wingman_ms() + $1
         WHERE id IN (SELECT id FROM deliveries WHERE status = 'pending' AND next_attempt_at <= wingman_ms()
                      ORDER BY next_attempt_at LIMIT $2 FOR UPDATE SKIP LOCKED)
         RETURNING {COLUMNS}"
    ))
    .bind(lease.as_millis() as i64)
    .bind(limit as i64)
    .fetch_all(pool)
    .await?;
    rows.iter().map(delivery_rows::delivery).collect()
}

/// Writes an attempt's outcome unless the row was claimed again since (its
/// attempt count moved on) or this attempt was written already; answers
/// whether it was written.
pub async fn record(pool: &PgPool, id: &str, attempt: &Attempt, next: &Next) -> StoreResult<bool> {
    let (next_at, delivered_at) = match next {
        Next::RetryAt(when) => (Some(ms(*when)), None),
        Next::Delivered => (None, Some(ms(attempt.at) + attempt.duration_ms as i64)),
        Next::GaveUp => (None, None),
    };
    let written = sqlx::query(
        "WITH updated AS (
             UPDATE deliveries SET status = $3, next_attempt_at = $4, delivered_at = $5
             WHERE id = $1 AND attempts = $2 AND status = 'pending'
               AND NOT EXISTS (SELECT 1 FROM delivery_attempts WHERE delivery_id = $1 AND attempt = $2)
             RETURNING id)
         INSERT INTO delivery_attempts (delivery_id, attempt, at, duration_ms, status_code, error)
         SELECT id, $2, $6, $7, $8, $9 FROM updated",
    )
    .bind(id)
    .bind(attempt.attempt as i64)
    .bind(next.status().as_str())
    .bind(next_at)
    .bind(delivered_at)
    .bind(ms(attempt.at))
    .bind(attempt.duration_ms as i64)
    .bind(attempt.status_code.map(i64::from))
    .bind(&attempt.error)
    .execute(pool)
    .await?;
    Ok(written.rows_affected() == 1)
}

/// The due time of the pending row that comes first.
pub async fn next_due(pool: &PgPool) -> StoreResult<Option<DateTime<Utc>>> {
    let due: Option<i64> = sqlx::query_scalar(
        "SELECT next_attempt_at FROM deliveries WHERE status = 'pending' ORDER BY next_attempt_at LIMIT 1",
    )
    .fetch_optional(pool)
    .await?
    .flatten();
    Ok(due.map(at))
}

/// Every delivery of a run, fleet run or formation run, in the order they
/// were made, with the attempts that finished.
pub async fn list(pool: &PgPool, subject_id: &str) -> StoreResult<Vec<Delivery>> {
    let rows = sqlx::query(&format!("SELECT {COLUMNS} FROM deliveries WHERE subject_id = $1 ORDER BY id"))
        .bind(subject_id)
        .fetch_all(pool)
        .await?;
    let mut deliveries = rows.iter().map(delivery_rows::delivery).collect::<StoreResult<Vec<_>>>()?;
    let attempts = sqlx::query(&format!(
        "SELECT {ATTEMPT_COLUMNS} FROM delivery_attempts
         WHERE delivery_id = ANY(SELECT id FROM deliveries WHERE subject_id = $1) ORDER BY delivery_id, attempt"
    ))
    .bind(subject_id)
    .fetch_all(pool)
    .await?;
    let attempts = attempts.iter().map(delivery_rows::attempt).collect::<StoreResult<Vec<_>>>()?;
    delivery_rows::attach(&mut deliveries, attempts);
    Ok(deliveries)
}
