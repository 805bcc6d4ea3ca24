//! People in the loop on SQLite: what a new message does to its session's
//! unfinished runs, runs that wait for a decision, and the inbox of what
//! people send a run. Each function runs inside the writer's transaction.

use chrono::{DateTime, Utc};
use rusqlite::{params, Connection};

use super::progress::{finish, finish_with, insert_checkpoints, insert_events, summary_from_store};
use super::queue::get_run;
use super::rows::{self, ms};
use crate::checkpoint::Checkpoint;
use crate::event::RunEvent;
use crate::model::{MultitaskStrategy, Run, RunStatus};
use crate::store::{check_decisions, InboxItem, InboxKind, StoreError, StoreResult};

/// Applies a new message's strategy to the session's unfinished runs, before
/// the message is written: `reject` refuses if there is one, `interrupt`
/// stops them (a running one at its next step boundary, the others now),
/// `rollback` cancels them now and forgets what they did.
pub fn make_way(
    conn: &Connection,
    session_id: &str,
    strategy: MultitaskStrategy,
    now: DateTime<Utc>,
) -> StoreResult<()> {
    if strategy == MultitaskStrategy::Enqueue {
        return Ok(());
    }
    let active: Vec<(String, String)> = rows::select_all(
        conn,
        "SELECT id, status FROM runs INDEXED BY runs_session_active
         WHERE session_id = ?1 AND status IN ('queued', 'running', 'waiting') ORDER BY queue_seq",
        [session_id],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )?;
    for (run_id, status) in active {
        match strategy {
            MultitaskStrategy::Reject => {
                return Err(StoreError::Busy(format!(
                    "session {session_id} has an unfinished run ({run_id}, {status}); multitask_strategy is reject"
                )))
            }
            MultitaskStrategy::Interrupt if status == "running" => add(conn, &run_id, &InboxKind::Interrupt, now)?,
            MultitaskStrategy::Interrupt => {
                finish(conn, &run_id, RunStatus::Interrupted, Some("interrupted by a newer message".into()), now)?
            }
            MultitaskStrategy::Rollback => {
                let mut summary = summary_from_store(conn, &run_id, RunStatus::Cancelled, &[])?;
                summary.history.clear();
                let error = Some("rolled back by a newer message".into());
                finish_with(conn, &run_id, RunStatus::Cancelled, error, summary, now)?;
            }
            MultitaskStrategy::Enqueue => {}
        }
    }
    Ok(())
}

/// Leaves a message in a run's inbox; a waiting run is queued again to take it.
pub fn steer(conn: &Connection, run_id: &str, message: &str, now: DateTime<Utc>) -> StoreResult<Run> {
    let run = get_run(conn, run_id)?.ok_or(StoreError::NotFound("run"))?;
    if run.status.is_terminal() {
        return Err(StoreError::Conflict(format!("run {run_id} is already {}", run.status.as_str())));
    }
    add(conn, run_id, &InboxKind::Steer(message.to_string()), now)?;
    if run.status == RunStatus::Waiting {
        conn.prepare_cached("UPDATE runs SET status = 'queued', updated_at = ?2 WHERE id = ?1")?
            .execute(params![run_id, ms(now)])?;
    }
    get_run(conn, run_id)?.ok_or(StoreError::NotFound("run"))
}

/// Records decisions for a waiting run and queues it again.
pub fn decide(
    conn: &Connection,
    run_id: &str,
    step: u32,
    decisions: &[Checkpoint],
    event: RunEvent,
    now: DateTime<Utc>,
) -> StoreResult<Run> {
    let run = get_run(conn, run_id)?.ok_or(StoreError::NotFound("run"))?;
    check_decisions(&run, step, decisions)?;
    insert_checkpoints(conn, run_id, decisions, now)?;
    let seq: i64 = conn
        .prepare_cached(
            "UPDATE runs SET status = 'queued', event_seq = event_seq + 1, updated_at = ?2 WHERE id = ?1
             RETURNING event_seq",
        )?
        .query_row(params![run_id, ms(now)], |r| r.get(0))?;
    insert_events(conn, run_id, seq as u64, &[event], now)?;
    get_run(conn, run_id)?.ok_or(StoreError::NotFound("run"))
}

/// Parks a run whose worker committed that it waits for a person: no worker
/// holds it, and it resumes at a step boundary, so its next attempt redoes
/// nothing.
pub fn wait(conn: &Connection, run_id: &str, now: DateTime<Utc>) -> StoreResult<()> {
    conn.prepare_cached(
        "UPDATE runs SET status = 'waiting', worker_id = NULL, handed_back = 1, updated_at = ?2 WHERE id = ?1",
    )?
    .execute(params![run_id, ms(now)])?;
    Ok(())
}

/// Removes the inbox items a commit took in.
pub fn take_delivered(conn: &Connection, run_id: &str, delivered: &[u64]) -> StoreResult<()> {
    let mut delete = conn.prepare_cached("DELETE FROM run_inbox WHERE run_id = ?1 AND seq = ?2")?;
    for seq in delivered {
        delete.execute(params![run_id, *seq as i64])?;
    }
    Ok(())
}

/// A run's inbox, oldest first.
pub fn read_inbox(conn: &Connection, run_id: &str) -> StoreResult<Vec<InboxItem>> {
    rows::select_all(conn, "SELECT seq, kind, message FROM run_inbox WHERE run_id = ?1 ORDER BY seq", [run_id], |r| {
        let kind = InboxKind::from_stored(&r.get::<_, String>(1)?, r.get(2)?)?;
        Ok(InboxItem { seq: r.get::<_, i64>(0)? as u64, kind })
    })
}

fn add(conn: &Connection, run_id: &str, kind: &InboxKind, now: DateTime<Utc>) -> StoreResult<()> {
    conn.prepare_cached("INSERT INTO run_inbox (run_id, kind, message, created_at) VALUES (?1, ?2, ?3, ?4)")?
        .execute(params![run_id, kind.as_str(), kind.message(), ms(now)])?;
    Ok(())
}
