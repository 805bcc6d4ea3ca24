//! Workers and their leases. Each function runs inside the writer's
//! transaction, on the writer's thread.

use std::time::Duration;

use chrono::{DateTime, Utc};
use rusqlite::{params, Connection};

use super::rows::ms;
use crate::store::{Heartbeat, Lease, StoreResult, WorkerInfo};

/// [`crate::store::Store::register_worker`], judged by `now`.
pub fn register(conn: &Connection, id: &str, name: &str, lease: Duration, now: DateTime<Utc>) -> StoreResult<()> {
    conn.prepare_cached(
        "DELETE FROM workers WHERE lease_expires_at < ?1 AND NOT EXISTS
           (SELECT 1 FROM runs WHERE runs.worker_id = workers.id AND runs.status = 'running')",
    )?
    .execute([ms(now) - WorkerInfo::FORGOTTEN_AFTER.as_millis() as i64])?;
    conn.prepare_cached("INSERT INTO workers (id, name, started_at, lease_expires_at) VALUES (?1, ?2, ?3, ?4)")?
        .execute(params![id, name, ms(now), ms(now + lease)])?;
    Ok(())
}

/// Renews a lease that has not lapsed, and lists the runs the worker still holds.
pub fn heartbeat(conn: &Connection, id: &str, lease: Duration, now: DateTime<Utc>) -> StoreResult<Heartbeat> {
    let renewed = conn
        .prepare_cached("UPDATE workers SET lease_expires_at = ?1 WHERE id = ?2 AND lease_expires_at > ?3")?
        .execute(params![ms(now + lease), id, ms(now)])?;
    if renewed == 0 {
        return Ok(Heartbeat::Lost);
    }
    let held_runs = conn
        .prepare_cached(
            "SELECT id, lease_epoch FROM runs INDEXED BY runs_running WHERE worker_id = ?1 AND status = 'running'",
        )?
        .query_map([id], |r| Ok(Lease { run_id: r.get(0)?, worker_id: id.into(), epoch: r.get(1)? }))?
        .collect::<Result<_, _>>()?;
    Ok(Heartbeat::Renewed { held_runs })
}

/// [`crate::store::Store::deregister_worker`].
pub fn deregister(conn: &Connection, id: &str) -> StoreResult<()> {
    conn.prepare_cached("UPDATE workers SET lease_expires_at = 0 WHERE id = ?1")?.execute([id])?;
    Ok(())
}
