//! `GET /queue` on PostgreSQL: four reads in one read-only transaction at
//! `REPEATABLE READ`, so that they see one snapshot (at `READ COMMITTED`
//! each statement has its own, and a claim between two of them made the
//! counts disagree with the keys' table).

use sqlx::postgres::PgPool;
use sqlx::Row;

use crate::domain::queue::{KeyCount, NextRun, PriorityCount, QueueView, QueuedWhy};
use crate::store::rows::at;
use crate::store::StoreResult;

/// Counted with `FILTER`s, one statement for each part.
pub async fn read(pool: &PgPool, next: u32) -> StoreResult<QueueView> {
    let mut tx = super::begin_snapshot(pool).await?;
    let counts = sqlx::query(
        "SELECT COUNT(*) FILTER (WHERE status = 'queued' AND blocked = 0 AND held = 0) AS ready,
                COUNT(*) FILTER (WHERE status = 'queued' AND blocked = 1 AND fleet_run_id IS NULL) AS session_busy,
                COUNT(*) FILTER (WHERE status = 'queued' AND blocked = 1 AND fleet_run_id IS NOT NULL) AS fleet_at_cap,
                COUNT(*) FILTER (WHERE status = 'queued' AND blocked = 0 AND held = 1) AS key_at_limit,
                COUNT(*) FILTER (WHERE status = 'queued' AND held = 2) AS rate_limited,
                COUNT(*) FILTER (WHERE status = 'running') AS running,
                COUNT(*) FILTER (WHERE status = 'waiting') AS waiting
         FROM runs WHERE status IN ('queued', 'running', 'waiting')",
    )
    .fetch_one(&mut *tx)
    .await?;
    let n = |name: &str| counts.try_get::<i64, _>(name).map(|n| n as u64);
    let queued = QueuedWhy {
        ready: n("ready")?,
        session_busy: n("session_busy")?,
        fleet_at_cap: n("fleet_at_cap")?,
        key_at_limit: n("key_at_limit")?,
        rate_limited: n("rate_limited")?,
    };
    let by_priority: Vec<(i16, i64, i64)> = sqlx::query_as(
        "SELECT priority, COUNT(*) FILTER (WHERE status = 'queued'), COUNT(*) FILTER (WHERE status = 'running')
         FROM runs WHERE status IN ('queued', 'running') GROUP BY priority ORDER BY priority DESC",
    )
    .fetch_all(&mut *tx)
    .await?;
    let keys: Vec<(String, Option<i32>, i64, i64, i64)> = sqlx::query_as(
        "SELECT concurrency_key, MAX(concurrency_limit), COUNT(*) FILTER (WHERE status = 'running'),
                COUNT(*) FILTER (WHERE status = 'queued'), COUNT(*) FILTER (WHERE status = 'queued' AND held = 1)
         FROM runs WHERE concurrency_key IS NOT NULL AND status IN ('queued', 'running')
         GROUP BY concurrency_key ORDER BY 4 DESC, 1 LIMIT 100",
    )
    .fetch_all(&mut *tx)
    .await?;
    let ready: Vec<(String, i16, Option<String>, i64)> = sqlx::query_as(
        "SELECT id, priority, concurrency_key, created_at FROM runs
         WHERE status = 'queued' AND blocked = 0 AND held = 0 ORDER BY priority DESC, vt, queue_seq LIMIT $1",
    )
    .bind(next as i64)
    .fetch_all(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(QueueView {
        queued,
        running: n("running")?,
        waiting: n("waiting")?,
        by_priority: by_priority
            .into_iter()
            .map(|(priority, queued, running)| PriorityCount {
                priority: priority.into(),
                queued: queued as u64,
                running: running as u64,
            })
            .collect(),
        keys: keys
            .into_iter()
            .map(|(key, limit, running, queued, held)| KeyCount {
                key,
                limit: limit.unwrap_or(0).max(0) as u64,
                running: running as u64,
                queued: queued as u64,
                held: held as u64,
            })
            .collect(),
        next: ready
            .into_iter()
            .map(|(run_id, priority, concurrency_key, queued_at)| NextRun {
                run_id,
                priority: priority.into(),
                concurrency_key,
                queued_at: at(queued_at),
            })
            .collect(),
        budgets: Vec::new(),
    })
}
