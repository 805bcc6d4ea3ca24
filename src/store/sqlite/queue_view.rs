//! `GET /queue` on SQLite: four reads on a read connection.

use rusqlite::Connection;

use super::rows::{self, at};
use crate::domain::queue::{KeyCount, NextRun, PriorityCount, QueueView, QueuedWhy};
use crate::store::StoreResult;

/// Counted with `SUM`s of conditions, through the index each part has.
pub fn read(conn: &Connection, next: u32) -> StoreResult<QueueView> {
    let (queued, running, waiting) = conn
        .prepare_cached(
            "SELECT COALESCE(SUM(status = 'queued' AND blocked = 0 AND held = 0), 0),
                    COALESCE(SUM(status = 'queued' AND blocked = 1 AND fleet_run_id IS NULL), 0),
                    COALESCE(SUM(status = 'queued' AND blocked = 1 AND fleet_run_id IS NOT NULL), 0),
                    COALESCE(SUM(status = 'queued' AND blocked = 0 AND held = 1), 0),
                    COALESCE(SUM(status = 'running'), 0), COALESCE(SUM(status = 'waiting'), 0),
                    COALESCE(SUM(status = 'queued' AND held = 2), 0)
             FROM runs INDEXED BY runs_status WHERE status IN ('queued', 'running', 'waiting')",
        )?
        .query_row([], |r| {
            let n = |i| r.get::<_, i64>(i).map(|n| n as u64);
            let (ready, session_busy, fleet_at_cap, key_at_limit) = (n(0)?, n(1)?, n(2)?, n(3)?);
            let why = QueuedWhy { ready, session_busy, fleet_at_cap, key_at_limit, rate_limited: n(6)? };
            Ok((why, n(4)?, n(5)?))
        })?;
    let by_priority = rows::all(
        conn.prepare_cached(
            "SELECT priority, SUM(status = 'queued'), SUM(status = 'running') FROM runs INDEXED BY runs_status
             WHERE status IN ('queued', 'running') GROUP BY priority ORDER BY priority DESC",
        )?
        .query([])?,
        |r| {
            Ok(PriorityCount {
                priority: r.get(0)?,
                queued: r.get::<_, i64>(1)? as u64,
                running: r.get::<_, i64>(2)? as u64,
            })
        },
    )?;
    let keys = rows::all(
        conn.prepare_cached(
            "SELECT concurrency_key, MAX(concurrency_limit), SUM(status = 'running'), SUM(status = 'queued'),
                    SUM(status = 'queued' AND held = 1)
             FROM runs INDEXED BY runs_keyed WHERE concurrency_key IS NOT NULL AND status IN ('queued', 'running')
             GROUP BY concurrency_key ORDER BY 4 DESC, 1 LIMIT 100",
        )?
        .query([])?,
        |r| {
            let n = |i| r.get::<_, i64>(i).map(|n| n as u64);
            Ok(KeyCount { key: r.get(0)?, limit: n(1)?, running: n(2)?, queued: n(3)?, held: n(4)? })
        },
    )?;
    let next = rows::all(
        conn.prepare_cached(
            "SELECT id, priority, concurrency_key, created_at FROM runs INDEXED BY runs_ready
             WHERE status = 'queued' AND blocked = 0 AND held = 0 ORDER BY priority DESC, vt, queue_seq LIMIT ?1",
        )?
        .query([next as i64])?,
        |r| {
            Ok(NextRun { run_id: r.get(0)?, priority: r.get(1)?, concurrency_key: r.get(2)?, queued_at: at(r.get(3)?) })
        },
    )?;
    Ok(QueueView { queued, running, waiting, by_priority, keys, next, budgets: Vec::new() })
}
