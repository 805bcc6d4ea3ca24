//! Fleet runs in SQLite: enqueue, the end of a task (its `result`, the
//! counts, its slot passed on, the fleet run's `done`), cancel, and reads.
//! The writes run inside the writer's transaction, on its thread; the rules
//! are [`crate::domain::fleet`]'s.

use chrono::{DateTime, Utc};
use rusqlite::{params, Connection};

use super::progress::insert_events;
use super::queue::{insert_run, remember_key, remembered};
use super::resources::insert_session;
use super::rows::{self, ms};
use crate::domain::access::By;
use crate::domain::fleet;
use crate::domain::lifecycle::{self, EndReason, EndedTask, IdempotencyKey, NewFleetRun};
use crate::domain::model::FleetRun;
use crate::store::{EnqueuedFleetRun, StoreError, StoreResult};

/// The columns of a fleet run with its running tasks counted: those hold a
/// worker, so they are few, and the count reads only them.
pub const SELECT: &str = "SELECT f.*, (SELECT COUNT(*) FROM runs INDEXED BY runs_running
     WHERE runs.status = 'running' AND runs.fleet_run_id = f.id) AS running FROM fleet_runs f";

/// [`crate::store::Store::enqueue_fleet_run`], a row at a time in the writer's transaction.
pub fn enqueue(conn: &Connection, new: NewFleetRun, key: Option<IdempotencyKey>) -> StoreResult<EnqueuedFleetRun> {
    if let Some(key) = &key {
        if let Some(id) = remembered(conn, key)? {
            let fleet_run = get(conn, &id)?.ok_or(StoreError::NotFound("fleet run"))?;
            return Ok(EnqueuedFleetRun { fleet_run, created: false });
        }
    }
    let present: bool = conn
        .prepare_cached("SELECT EXISTS(SELECT 1 FROM fleets WHERE id = ?1)")?
        .query_row([&new.fleet_id], |r| r.get(0))?;
    if !present {
        return Err(StoreError::NotFound("fleet"));
    }
    let at = Utc::now();
    insert(conn, &new, at)?;
    if let Some(key) = &key {
        remember_key(conn, key, &new.id, at)?;
    }
    let fleet_run = get(conn, &new.id)?.ok_or(StoreError::NotFound("fleet run"))?;
    Ok(EnqueuedFleetRun { fleet_run, created: true })
}

/// Writes a fleet run, its `fleet_queued`, and its tasks' sessions and runs
/// (with their `run_queued`), as [`lifecycle::fleet_run`] plans them.
pub fn insert(conn: &Connection, new: &NewFleetRun, at: DateTime<Utc>) -> StoreResult<()> {
    let plan = lifecycle::fleet_run(new);
    conn.prepare_cached(
        "INSERT INTO fleet_runs (id, fleet_id, agent_id, status, worker_count, tasks, webhook_url, event_seq,
                                 created_at, updated_at, owner)
         VALUES (?1, ?2, ?3, 'queued', ?4, ?5, ?6, 1, ?7, ?7, ?8)",
    )?
    .execute(params![
        new.id,
        new.fleet_id,
        new.agent.id,
        new.worker_count as i64,
        new.tasks.len() as i64,
        new.webhook,
        ms(at),
        new.owner
    ])?;
    insert_events(conn, &new.id, 1, &[plan.queued], at)?;
    let first = match plan.tasks.first() {
        Some(task) => super::fair::first_start(conn, &task.run, plan.tasks.len())?,
        None => 0,
    };
    for ((index, task), run) in new.tasks.iter().enumerate().zip(&plan.tasks) {
        insert_session(conn, &task.session)?;
        let vt = first + index as i64;
        insert_run(conn, &run.run, run.blocked, Some((&new.id, index as u32)), vt, &run.queued, at)?;
    }
    Ok(())
}

/// Reads a fleet run inside the writer's transaction.
pub fn get(conn: &Connection, id: &str) -> StoreResult<Option<FleetRun>> {
    let mut select = conn.prepare_cached(&format!("{SELECT} WHERE f.id = ?1"))?;
    let mut found = select.query([id])?;
    match found.next()? {
        Some(row) => Ok(Some(rows::fleet_run(row)?)),
        None => Ok(None),
    }
}

/// Marks a fleet run started when the first of its tasks is claimed.
pub fn task_started(conn: &Connection, run_id: &str, now: DateTime<Utc>) -> StoreResult<()> {
    conn.prepare_cached(
        "UPDATE fleet_runs SET status = 'running', started_at = ?2, updated_at = ?2
         WHERE status = 'queued' AND id = (SELECT fleet_run_id FROM runs WHERE id = ?1)",
    )?
    .execute(params![run_id, ms(now)])?;
    Ok(())
}

/// Writes what [`fleet::task_ended`] makes of a task's end, given the fleet
/// run's row as the writer's transaction reads it.
pub fn task_ended(conn: &Connection, task: EndedTask, now: DateTime<Utc>) -> StoreResult<()> {
    let (fleet_run, seq) = conn
        .prepare_cached(&format!("SELECT {} FROM fleet_runs WHERE id = ?1", rows::FLEET_RUN_ROW))?
        .query_row([task.fleet_run_id], |r| Ok(rows::fleet_run_row(r)))??;
    let ended = fleet::task_ended(&task.end, task.held_slot, &fleet_run);
    conn.prepare_cached(
        "UPDATE fleet_runs SET succeeded = ?2, failed = ?3, cancelled = ?4, event_seq = event_seq + ?5,
                status = COALESCE(?6, status), finished_at = CASE WHEN ?6 IS NULL THEN finished_at ELSE ?7 END,
                updated_at = ?7
         WHERE id = ?1",
    )?
    .execute(params![
        task.fleet_run_id,
        ended.progress.succeeded as i64,
        ended.progress.failed as i64,
        ended.progress.cancelled as i64,
        ended.events.len() as i64,
        ended.ends.map(|status| status.as_str()),
        ms(now)
    ])?;
    insert_events(conn, task.fleet_run_id, seq + 1, &ended.events, now)?;
    if let Some(delivery) = &ended.delivery {
        super::deliveries::insert(conn, delivery, now)?;
    }
    if let Some(status) = ended.ends {
        super::formations::fleet_run_ended(conn, task.fleet_run_id, status, &ended.progress, now)?;
    }
    if ended.passes_slot {
        conn.prepare_cached(
            "UPDATE runs SET blocked = 0 WHERE queue_seq =
               (SELECT MIN(queue_seq) FROM runs INDEXED BY runs_fleet_waiting
                WHERE fleet_run_id = ?1 AND status = 'queued' AND blocked = 1)",
        )?
        .execute([task.fleet_run_id])?;
    }
    Ok(())
}

/// [`crate::store::Store::cancel_fleet_run`]. Blocked tasks end first, so
/// that no slot passes to a task about to end too.
pub fn cancel(conn: &Connection, id: &str, by: &By, now: DateTime<Utc>) -> StoreResult<FleetRun> {
    let run = get(conn, id)?.ok_or(StoreError::NotFound("fleet run"))?;
    let reason = lifecycle::cancel_fleet_run(&run, by)?;
    end_tasks(conn, id, &reason, now)?;
    get(conn, id)?.ok_or(StoreError::NotFound("fleet run"))
}

/// Ends every task of a fleet run that has not ended, for `reason`, with
/// the fleet run's cancel requested: the last task's end ends it.
pub fn end_tasks(conn: &Connection, id: &str, reason: &EndReason, now: DateTime<Utc>) -> StoreResult<()> {
    conn.prepare_cached("UPDATE fleet_runs SET cancel_requested = 1, updated_at = ?2 WHERE id = ?1")?
        .execute(params![id, ms(now)])?;
    let open: Vec<String> = conn
        .prepare_cached(
            "SELECT id FROM runs INDEXED BY runs_fleet WHERE fleet_run_id = ?1
               AND status IN ('queued','running','waiting') ORDER BY blocked DESC, task_index",
        )?
        .query_map([id], |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    for run_id in open {
        super::progress::finish(conn, &run_id, reason, now)?;
    }
    Ok(())
}
