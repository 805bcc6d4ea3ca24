//! Retention on SQLite: pruning the logs of runs, fleet runs and formation runs that ended
//! long ago and the records nothing needs any more, and deleting a run that has ended. Each call is one write of the
//! writer's batch, kept to a bounded number of rows: SQLite has one writer,
//! and every claim and commit of the queue waits behind it.

use std::time::Duration;

use chrono::{DateTime, Utc};
use rusqlite::{params, Connection, OptionalExtension};

use super::rows::ms;
use crate::store::retention::{check_ended, RemovedLog};
use crate::store::{Pruned, StoreError, StoreResult};

/// The tables whose rows have logs: runs, and fleet runs and formation
/// runs (events only).
#[derive(Debug, Clone, Copy)]
enum Owner {
    Runs,
    FleetRuns,
    FormationRuns,
}

impl Owner {
    /// The oldest ended logs not yet pruned, through the partial index that
    /// holds exactly those.
    fn ended_sql(self) -> &'static str {
        match self {
            Owner::Runs => {
                "SELECT id FROM runs INDEXED BY runs_unpruned
                 WHERE finished_at IS NOT NULL AND pruned_at IS NULL AND finished_at < ?1
                 ORDER BY finished_at LIMIT ?2"
            }
            Owner::FleetRuns => {
                "SELECT id FROM fleet_runs INDEXED BY fleet_runs_unpruned
                 WHERE finished_at IS NOT NULL AND pruned_at IS NULL AND finished_at < ?1
                 ORDER BY finished_at LIMIT ?2"
            }
            Owner::FormationRuns => {
                "SELECT id FROM formation_runs INDEXED BY formation_runs_unpruned
                 WHERE finished_at IS NOT NULL AND pruned_at IS NULL AND finished_at < ?1
                 ORDER BY finished_at LIMIT ?2"
            }
        }
    }

    fn mark_sql(self) -> &'static str {
        match self {
            Owner::Runs => "UPDATE runs SET pruned_at = ?2 WHERE id = ?1",
            Owner::FleetRuns => "UPDATE fleet_runs SET pruned_at = ?2 WHERE id = ?1",
            Owner::FormationRuns => "UPDATE formation_runs SET pruned_at = ?2 WHERE id = ?1",
        }
    }
}

/// [`crate::store::Store::prune_logs`], judged by `now`: runs' logs first,
/// then fleet runs' and formation runs', each found through its owner's
/// partial index.
pub fn prune(conn: &Connection, older_than: Duration, limit: u32, now: DateTime<Utc>) -> StoreResult<Pruned> {
    let cutoff = ms(now) - i64::try_from(older_than.as_millis()).unwrap_or(i64::MAX);
    let limit = u64::from(limit.max(1));
    let mut pruned = Pruned::default();
    for owner in [Owner::Runs, Owner::FleetRuns, Owner::FormationRuns] {
        let ids: Vec<String> = conn
            .prepare_cached(owner.ended_sql())?
            .query_map(params![cutoff, (limit - pruned.rows) as i64], |r| r.get(0))?
            .collect::<Result<_, _>>()?;
        for id in ids {
            let budget = limit - pruned.rows;
            let removed = delete_log(conn, &id, budget)?;
            removed.add_to(&mut pruned);
            if removed.rows() == budget {
                // The budget is spent, maybe before the log's end: the next
                // batch finishes it (or finds it empty and marks it).
                return Ok(pruned);
            }
            conn.prepare_cached("DELETE FROM run_inbox WHERE run_id = ?1")?.execute([&id])?;
            conn.prepare_cached(owner.mark_sql())?.execute(params![id, ms(now)])?;
            pruned.logs += 1;
        }
    }
    Ok(pruned)
}

/// Removes up to `budget` rows of a log: events first, then checkpoints.
fn delete_log(conn: &Connection, id: &str, budget: u64) -> StoreResult<RemovedLog> {
    let held: Vec<i64> = conn
        .prepare_cached(
            "DELETE FROM run_events WHERE gid IN (SELECT gid FROM run_events WHERE run_id = ?1 LIMIT ?2)
             RETURNING last_seq - first_seq + 1",
        )?
        .query_map(params![id, budget as i64], |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    let mut removed =
        RemovedLog { event_rows: held.len() as u64, events: held.iter().sum::<i64>() as u64, checkpoints: 0 };
    if removed.event_rows == budget {
        return Ok(removed);
    }
    removed.checkpoints = conn
        .prepare_cached(
            "DELETE FROM checkpoints WHERE rowid IN (SELECT rowid FROM checkpoints WHERE run_id = ?1 LIMIT ?2)",
        )?
        .execute(params![id, (budget - removed.event_rows) as i64])? as u64;
    Ok(removed)
}

/// One write of [`crate::store::Store::delete_run`]: at most `limit` rows
/// of the run's log, then, once none is left, its row, inbox and keys, and
/// its agent's snapshot if no other run names it.
/// True when the run is gone.
pub fn delete_run(conn: &Connection, id: &str, limit: u32) -> StoreResult<bool> {
    let status: Option<String> =
        conn.prepare_cached("SELECT status FROM runs WHERE id = ?1")?.query_row([id], |r| r.get(0)).optional()?;
    let status = status.ok_or(StoreError::NotFound("run"))?;
    check_ended(id, &status)?;
    let limit = u64::from(limit.max(1));
    if delete_log(conn, id, limit)?.rows() == limit {
        return Ok(false);
    }
    conn.prepare_cached("DELETE FROM run_inbox WHERE run_id = ?1")?.execute([id])?;
    conn.prepare_cached("DELETE FROM idempotency_keys WHERE run_id = ?1")?.execute([id])?;
    let digest: Option<String> =
        conn.prepare_cached("DELETE FROM runs WHERE id = ?1 RETURNING agent_digest")?.query_row([id], |r| r.get(0))?;
    if let Some(digest) = digest {
        conn.prepare_cached(
            "DELETE FROM agent_snapshots WHERE digest = ?1
               AND NOT EXISTS (SELECT 1 FROM runs INDEXED BY runs_agent_digest WHERE agent_digest = ?1)",
        )?
        .execute([digest])?;
    }
    Ok(true)
}

/// [`crate::store::Store::prune_records`], judged by `now`: ended
/// deliveries with their attempts, then ticks, then keys, `limit` of them
/// at most, each found through its index by age.
pub fn prune_records(conn: &Connection, older_than: Duration, limit: u32, now: DateTime<Utc>) -> StoreResult<Pruned> {
    let cutoff = ms(now) - i64::try_from(older_than.as_millis()).unwrap_or(i64::MAX);
    let mut pruned = Pruned::default();
    let left = |pruned: &Pruned| (i64::from(limit.max(1)) - pruned.rows as i64).max(0);
    let deliveries: Vec<String> = conn
        .prepare_cached(
            "SELECT id FROM deliveries INDEXED BY deliveries_ended
             WHERE status <> 'pending' AND created_at < ?1 ORDER BY created_at LIMIT ?2",
        )?
        .query_map(params![cutoff, left(&pruned)], |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    for id in &deliveries {
        pruned.attempts +=
            conn.prepare_cached("DELETE FROM delivery_attempts WHERE delivery_id = ?1")?.execute([id])? as u64;
        conn.prepare_cached("DELETE FROM deliveries WHERE id = ?1")?.execute([id])?;
    }
    pruned.deliveries = deliveries.len() as u64;
    pruned.rows = pruned.deliveries;
    pruned.ticks = conn
        .prepare_cached(
            "DELETE FROM schedule_ticks WHERE rowid IN (
                SELECT t.rowid FROM schedule_ticks t INDEXED BY schedule_ticks_at
                WHERE t.tick_at < ?1 AND NOT (t.kind IS NOT NULL AND t.tick_at =
                    (SELECT MAX(n.tick_at) FROM schedule_ticks n WHERE n.schedule_id = t.schedule_id AND n.kind IS NOT NULL))
                LIMIT ?2)",
        )?
        .execute(params![cutoff, left(&pruned)])? as u64;
    pruned.rows += pruned.ticks;
    pruned.keys = conn
        .prepare_cached(
            "DELETE FROM idempotency_keys WHERE rowid IN (
                SELECT k.rowid FROM idempotency_keys k INDEXED BY idempotency_keys_created
                WHERE k.created_at < ?1
                  AND NOT EXISTS (SELECT 1 FROM runs r WHERE r.id = k.run_id AND r.finished_at IS NULL)
                  AND NOT EXISTS (SELECT 1 FROM fleet_runs f WHERE f.id = k.run_id AND f.finished_at IS NULL)
                  AND NOT EXISTS (SELECT 1 FROM formation_runs m WHERE m.id = k.run_id AND m.finished_at IS NULL)
                LIMIT ?2)",
        )?
        .execute(params![cutoff, left(&pruned)])? as u64;
    pruned.rows += pruned.keys;
    Ok(pruned)
}
