//! People in the loop on SQLite: what a new message does to its session's
//! unfinished runs, runs that wait for a decision, and the inbox of what
//! people send a run. Each function runs inside the writer's transaction.

use chrono::{DateTime, Utc};
use rusqlite::{params, Connection};

use super::progress::{finish, insert_checkpoints, insert_events};
use super::queue::get_run;
use super::rows::{self, ms};
use crate::domain::access::By;
use crate::domain::checkpoint::Checkpoint;
use crate::domain::event::RunEvent;
use crate::domain::lifecycle::{self, InboxItem, InboxKind, MakeWay};
use crate::domain::model::{MultitaskStrategy, Run};
use crate::store::{StoreError, StoreResult};

/// Carries out [`lifecycle::make_way`] for a session, reading its unfinished
/// runs by `runs_session_active`.
pub fn make_way(
    conn: &Connection,
    session_id: &str,
    strategy: MultitaskStrategy,
    now: DateTime<Utc>,
) -> StoreResult<()> {
    if !lifecycle::reads_unfinished(strategy) {
        return Ok(());
    }
    let unfinished = rows::select_all(
        conn,
        "SELECT id, status FROM runs INDEXED BY runs_session_active
         WHERE session_id = ?1 AND status IN ('queued', 'running', 'waiting') ORDER BY queue_seq",
        [session_id],
        |r| Ok((r.get::<_, String>(0)?, rows::status(&r.get::<_, String>(1)?)?)),
    )?;
    for step in lifecycle::make_way(strategy, session_id, &unfinished)? {
        match step {
            MakeWay::Interrupt { run_id } => add(conn, &run_id, &InboxKind::Interrupt, None, now)?,
            MakeWay::End { run_id, reason } => finish(conn, &run_id, &reason, now)?,
        }
    }
    Ok(())
}

/// [`crate::store::Store::steer_run`], in the writer's transaction.
pub fn steer(conn: &Connection, run_id: &str, message: &str, by: &By, now: DateTime<Utc>) -> StoreResult<Run> {
    let run = get_run(conn, run_id)?.ok_or(StoreError::NotFound("run"))?;
    let steer = lifecycle::steer(&run, message)?;
    add(conn, run_id, &steer.item, Some(by), now)?;
    if steer.requeue {
        conn.prepare_cached("UPDATE runs SET status = 'queued', updated_at = ?2 WHERE id = ?1")?
            .execute(params![run_id, ms(now)])?;
    }
    get_run(conn, run_id)?.ok_or(StoreError::NotFound("run"))
}

/// [`crate::store::Store::decide`], in the writer's transaction.
pub fn decide(
    conn: &Connection,
    run_id: &str,
    step: u32,
    answers: &[Checkpoint],
    events: &[RunEvent],
    now: DateTime<Utc>,
) -> StoreResult<Run> {
    let run = get_run(conn, run_id)?.ok_or(StoreError::NotFound("run"))?;
    lifecycle::decide(&run, step, answers)?;
    insert_checkpoints(conn, run_id, answers, now)?;
    let before: i64 = conn
        .prepare_cached(
            "UPDATE runs SET status = 'queued', event_seq = event_seq + ?3, updated_at = ?2 WHERE id = ?1
             RETURNING event_seq - ?3",
        )?
        .query_row(params![run_id, ms(now), events.len() as i64], |r| r.get(0))?;
    insert_events(conn, run_id, before as u64 + 1, events, now)?;
    get_run(conn, run_id)?.ok_or(StoreError::NotFound("run"))
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
    let sql = "SELECT seq, kind, message, by_json FROM run_inbox WHERE run_id = ?1 ORDER BY seq";
    rows::select_all(conn, sql, [run_id], |r| {
        let kind = rows::inbox_kind(&r.get::<_, String>(1)?, r.get(2)?)?;
        Ok(InboxItem { seq: r.get::<_, i64>(0)? as u64, kind, by: rows::stored_by(r.get(3)?)? })
    })
}

fn add(conn: &Connection, run_id: &str, kind: &InboxKind, by: Option<&By>, now: DateTime<Utc>) -> StoreResult<()> {
    conn.prepare_cached(
        "INSERT INTO run_inbox (run_id, kind, message, by_json, created_at) VALUES (?1, ?2, ?3, ?4, ?5)",
    )?
    .execute(params![run_id, kind.as_str(), kind.message(), rows::by_json(by)?, ms(now)])?;
    Ok(())
}
