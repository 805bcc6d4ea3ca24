//! Fleet runs in SQLite: enqueue, the end of a task (its `result`, the
//! counts, its slot passed on, the fleet run's `done`), cancel, and reads.
//! The writes run inside the writer's transaction, on its thread; the rules
//! are [`crate::fleet`]'s.

use chrono::{DateTime, Utc};
use rusqlite::{params, Connection};

use super::progress::insert_events;
use super::queue::{insert_run, remember_key, remembered};
use super::resources::insert_session;
use super::rows::{self, ms};
use crate::event::RunEvent;
use crate::fleet;
use crate::model::{FleetRun, RunKind, RunStatus};
use crate::store::task_end::EndedTask;
use crate::store::{EnqueuedFleetRun, IdempotencyKey, NewFleetRun, NewRun, StoreError, StoreResult};

/// The columns of a fleet run with its running tasks counted: those hold a
/// worker, so they are few, and the count reads only them.
pub const SELECT: &str = "SELECT f.*, (SELECT COUNT(*) FROM runs INDEXED BY runs_running
     WHERE runs.status = 'running' AND runs.fleet_run_id = f.id) AS running FROM fleet_runs f";

/// Writes a fleet run and all its tasks; see [`crate::store::Store::enqueue_fleet_run`].
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
    conn.prepare_cached(
        "INSERT INTO fleet_runs (id, fleet_id, agent_id, status, worker_count, tasks, event_seq, created_at, updated_at)
         VALUES (?1, ?2, ?3, 'queued', ?4, ?5, 1, ?6, ?6)",
    )?
    .execute(params![new.id, new.fleet_id, new.agent.id, new.worker_count as i64, new.tasks.len() as i64, ms(at)])?;
    let queued = fleet::queued_event(&new.fleet_id, &new.agent.id, new.tasks.len(), new.worker_count);
    insert_events(conn, &new.id, 1, &[queued], at)?;
    for (index, task) in new.tasks.into_iter().enumerate() {
        let index = index as u32;
        insert_session(conn, &task.session)?;
        let run = NewRun {
            id: task.run_id,
            kind: RunKind::FleetTask,
            session_id: Some(task.session.id.clone()),
            agent: new.agent.clone(),
            input: task.input,
            work_dir: task.session.work_dir,
            max_attempts: new.max_attempts,
            strategy: Default::default(),
        };
        insert_run(conn, &run, fleet::starts_blocked(index, new.worker_count), Some((&new.id, index)), at)?;
    }
    if let Some(key) = &key {
        remember_key(conn, key, &new.id, at)?;
    }
    let fleet_run = get(conn, &new.id)?.ok_or(StoreError::NotFound("fleet run"))?;
    Ok(EnqueuedFleetRun { fleet_run, created: true })
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

/// The end of a task, in the transaction that ends its run: the task's
/// `result` event, the fleet run's counts, its slot handed to the next
/// waiting task and, when it was the last task, the fleet run's end.
pub fn task_ended(conn: &Connection, task: EndedTask, now: DateTime<Utc>) -> StoreResult<()> {
    let column = task.counter();
    let seq: i64 = conn
        .prepare_cached(&format!(
            "UPDATE fleet_runs SET {column} = {column} + 1, event_seq = event_seq + 1, updated_at = ?2
             WHERE id = ?1 RETURNING event_seq"
        ))?
        .query_row(params![task.fleet_run_id, ms(now)], |r| r.get(0))?;
    insert_events(conn, task.fleet_run_id, seq as u64, &[task.result_event()?], now)?;
    if !task.blocked {
        conn.prepare_cached(
            "UPDATE runs SET blocked = 0 WHERE queue_seq =
               (SELECT MIN(queue_seq) FROM runs INDEXED BY runs_fleet_waiting
                WHERE fleet_run_id = ?1 AND status = 'queued' AND blocked = 1)",
        )?
        .execute([task.fleet_run_id])?;
    }
    let fleet_run = get(conn, task.fleet_run_id)?.ok_or(StoreError::NotFound("fleet run"))?;
    if fleet_run.progress.finished() == fleet_run.progress.total {
        let status = fleet::final_status(&fleet_run.progress, fleet_run.cancel_requested);
        write_done(conn, &fleet_run, RunEvent::fleet_done(status, &fleet_run.progress), status.as_str(), now)?;
    }
    Ok(())
}

fn write_done(conn: &Connection, run: &FleetRun, done: RunEvent, status: &str, now: DateTime<Utc>) -> StoreResult<()> {
    let seq: i64 = conn
        .prepare_cached(
            "UPDATE fleet_runs SET status = ?2, event_seq = event_seq + 1, finished_at = ?3, updated_at = ?3
             WHERE id = ?1 RETURNING event_seq",
        )?
        .query_row(params![run.id, status, ms(now)], |r| r.get(0))?;
    insert_events(conn, &run.id, seq as u64, &[done], now)
}

/// Cancels every task that has not ended, waiting ones first so that no
/// slot passes to a task about to be cancelled anyway.
pub fn cancel(conn: &Connection, id: &str, now: DateTime<Utc>) -> StoreResult<FleetRun> {
    let run = get(conn, id)?.ok_or(StoreError::NotFound("fleet run"))?;
    if run.status.is_terminal() {
        return Err(StoreError::Conflict(format!("fleet run {id} is already {}", run.status.as_str())));
    }
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
        super::progress::finish(conn, &run_id, RunStatus::Cancelled, Some("fleet run cancelled".into()), now)?;
    }
    get(conn, id)?.ok_or(StoreError::NotFound("fleet run"))
}
