//! Workers and their leases, judged by the database's clock.

use std::time::Duration;

use sqlx::PgConnection;

use crate::store::{Heartbeat, Lease, StoreResult, WorkerInfo};

/// Registers a worker with a lease of `lease` from now, and forgets workers
/// that have been gone for an hour and hold nothing.
pub async fn register(c: &mut PgConnection, id: &str, name: &str, lease: Duration) -> StoreResult<()> {
    sqlx::query(
        "DELETE FROM workers WHERE lease_expires_at < wingman_ms() - $1 AND NOT EXISTS
           (SELECT 1 FROM runs WHERE runs.worker_id = workers.id AND runs.status = 'running')",
    )
    .bind(WorkerInfo::FORGOTTEN_AFTER.as_millis() as i64)
    .execute(&mut *c)
    .await?;
    sqlx::query(
        "INSERT INTO workers (id, name, started_at, lease_expires_at) VALUES ($1, $2, wingman_ms(), wingman_ms() + $3)",
    )
    .bind(id)
    .bind(name)
    .bind(lease.as_millis() as i64)
    .execute(&mut *c)
    .await?;
    Ok(())
}

/// Renews a lease that has not lapsed, and lists the runs the worker still
/// holds with their claims' leases.
pub async fn heartbeat(c: &mut PgConnection, id: &str, lease: Duration) -> StoreResult<Heartbeat> {
    let renewed = sqlx::query(
        "UPDATE workers SET lease_expires_at = wingman_ms() + $2 WHERE id = $1 AND lease_expires_at > wingman_ms()",
    )
    .bind(id)
    .bind(lease.as_millis() as i64)
    .execute(&mut *c)
    .await?
    .rows_affected();
    if renewed == 0 {
        return Ok(Heartbeat::Lost);
    }
    let held: Vec<(String, i64)> =
        sqlx::query_as("SELECT id, lease_epoch FROM runs WHERE worker_id = $1 AND status = 'running'")
            .bind(id)
            .fetch_all(&mut *c)
            .await?;
    let held_runs = held.into_iter().map(|(run_id, epoch)| Lease { run_id, worker_id: id.into(), epoch: epoch as u64 });
    Ok(Heartbeat::Renewed { held_runs: held_runs.collect() })
}

/// Ends a worker's lease at once (a clean shutdown).
pub async fn deregister(c: &mut PgConnection, id: &str) -> StoreResult<()> {
    sqlx::query("UPDATE workers SET lease_expires_at = 0 WHERE id = $1").bind(id).execute(&mut *c).await?;
    Ok(())
}
