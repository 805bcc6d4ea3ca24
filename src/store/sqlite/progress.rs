//! A run's progress: fenced commits of checkpoints and events, and ending a
//! run. Each function runs inside the writer's transaction, on the writer's
//! thread, with cached prepared statements.

use chrono::{DateTime, Utc};
use rusqlite::{params, Connection, OptionalExtension};

use super::queue::get_run;
use super::rows::ms;
use super::{fleet, load, people};
use crate::checkpoint::{summarize, Checkpoint, RunSummary};
use crate::event::RunEvent;
use crate::model::{Message, Run, RunInput, RunStatus};
use crate::store::task_end::EndedTask;
use crate::store::{Commit, Committed, Effect, Finish, Lease, StoreError, StoreResult};

/// Writes events numbered from `first_seq`.
pub fn insert_events(
    conn: &Connection,
    run_id: &str,
    first_seq: u64,
    events: &[RunEvent],
    now: DateTime<Utc>,
) -> StoreResult<()> {
    let mut insert =
        conn.prepare_cached("INSERT INTO run_events (run_id, seq, type, data, at) VALUES (?1, ?2, ?3, ?4, ?5)")?;
    for (i, event) in events.iter().enumerate() {
        insert.execute(params![run_id, (first_seq + i as u64) as i64, event.kind(), event.data_json(), ms(now)])?;
    }
    Ok(())
}

/// Reserves `events` event numbers for a run if, and only if, the lease is
/// still held, and records the resume facts the write changes. Returns the
/// first reserved number. This is the first write of every fenced change, so
/// a refusal leaves nothing behind.
pub fn fence(conn: &Connection, lease: &Lease, effect: Effect, now: DateTime<Utc>) -> StoreResult<u64> {
    let (moves_step, open_step) = match effect.open_step {
        Some(step) => (true, step.map(i64::from)),
        None => (false, None),
    };
    let last: Option<i64> = conn
        .prepare_cached(
            "UPDATE runs SET event_seq = event_seq + ?1, updated_at = ?2, progressed = progressed OR ?6,
                    open_step = CASE WHEN ?7 THEN ?8 ELSE open_step END
             WHERE id = ?3 AND status = 'running' AND lease_epoch = ?4 AND worker_id = ?5
               AND EXISTS (SELECT 1 FROM workers WHERE id = ?5 AND lease_expires_at > ?2)
             RETURNING event_seq",
        )?
        .query_row(
            params![
                effect.events as i64,
                ms(now),
                lease.run_id,
                lease.epoch as i64,
                lease.worker_id,
                effect.progressed,
                moves_step,
                open_step
            ],
            |r| r.get(0),
        )
        .optional()?;
    let last = last.ok_or(StoreError::Fenced)?;
    Ok(last as u64 - effect.events + 1)
}

/// Writes a worker's progress under its lease, or nothing at all if the
/// lease is gone: checkpoints, events, and, when the commit ends the run,
/// its summary, `done` event, history and the session's next turn.
pub fn commit(conn: &Connection, lease: &Lease, commit: Commit, now: DateTime<Utc>) -> StoreResult<Committed> {
    // The newest inbox item this commit does not take in: a run does not end
    // or start waiting with one, and the worker hears of it otherwise.
    let unread = people::read_inbox(conn, &lease.run_id)?
        .into_iter()
        .map(|item| item.seq)
        .filter(|seq| !commit.delivered.contains(seq))
        .max();
    if (commit.finish.is_some() || commit.wait) && unread.is_some() {
        return Err(StoreError::InboxWaiting);
    }
    let mut events = commit.events;
    let finish = match commit.finish {
        Some(Finish { status, error, summary }) => {
            let summary = match summary {
                Some(summary) => summary,
                None => summary_from_store(conn, &lease.run_id, status, &commit.checkpoints)?,
            };
            events.push(RunEvent::done(status, error.clone(), &summary));
            Some((status, error, summary))
        }
        None => None,
    };
    let first = fence(conn, lease, Effect::of(&commit.checkpoints, &events), now)?;
    insert_checkpoints(conn, &lease.run_id, &commit.checkpoints, now)?;
    insert_events(conn, &lease.run_id, first, &events, now)?;
    if let Some((status, error, summary)) = finish {
        end_run(conn, &lease.run_id, status, &error, &summary, now)?;
    }
    if commit.wait {
        people::wait(conn, &lease.run_id, now)?;
    }
    people::take_delivered(conn, &lease.run_id, &commit.delivered)?;
    Ok(Committed { inbox_newest: unread })
}

pub(super) fn insert_checkpoints(
    conn: &Connection,
    run_id: &str,
    checkpoints: &[Checkpoint],
    now: DateTime<Utc>,
) -> StoreResult<()> {
    let mut insert = conn.prepare_cached(
        "INSERT INTO checkpoints (run_id, step, kind, call_id, body, created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    )?;
    for cp in checkpoints {
        let body = serde_json::to_string(&cp.body)?;
        insert.execute(params![run_id, cp.step as i64, cp.kind(), cp.call_id(), body, ms(now)])?;
    }
    Ok(())
}

/// Summarises a run from its stored checkpoints plus `pending` ones not yet written.
pub fn summary_from_store(
    conn: &Connection,
    run_id: &str,
    status: RunStatus,
    pending: &[Checkpoint],
) -> StoreResult<RunSummary> {
    let input: String =
        conn.prepare_cached("SELECT input FROM runs WHERE id = ?1")?.query_row([run_id], |r| r.get(0))?;
    let input: RunInput = serde_json::from_str(&input)?;
    let mut checkpoints = load::checkpoints(conn, run_id)?;
    checkpoints.extend(pending.iter().cloned());
    Ok(summarize(&input, &checkpoints, status))
}

/// Ends a run outside a worker's commit (cancel, a run out of attempts, a
/// deleted session): its summary from the stored checkpoints, the `done`
/// event, its history and the session's next turn.
pub fn finish(
    conn: &Connection,
    run_id: &str,
    status: RunStatus,
    error: Option<String>,
    now: DateTime<Utc>,
) -> StoreResult<()> {
    let summary = summary_from_store(conn, run_id, status, &[])?;
    finish_with(conn, run_id, status, error, summary, now)
}

/// Ends a run as [`finish`] does, with the summary given (a rolled-back
/// run's leaves nothing in the history).
pub fn finish_with(
    conn: &Connection,
    run_id: &str,
    status: RunStatus,
    error: Option<String>,
    summary: RunSummary,
    now: DateTime<Utc>,
) -> StoreResult<()> {
    let seq: i64 = conn
        .prepare_cached("UPDATE runs SET event_seq = event_seq + 1, updated_at = ?2 WHERE id = ?1 RETURNING event_seq")?
        .query_row(params![run_id, ms(now)], |r| r.get(0))?;
    insert_events(conn, run_id, seq as u64, &[RunEvent::done(status, error.clone(), &summary)], now)?;
    end_run(conn, run_id, status, &error, &summary, now)
}

/// The terminal state of a run: its summary, its messages appended to the
/// session's history, and, if this run held the session's turn, the turn
/// passed to the session's next queued run.
///
/// A run holds its session's turn unless it is `blocked` (queued behind an
/// unfinished run of its session). Only the holder passes the turn on:
/// ending a blocked run (a cancel of a queued run further back, say) must not
/// start the next one beside the run that is still going.
fn end_run(
    conn: &Connection,
    run_id: &str,
    status: RunStatus,
    error: &Option<String>,
    summary: &RunSummary,
    now: DateTime<Utc>,
) -> StoreResult<()> {
    // `blocked` is left as it was, so RETURNING tells whether the run held the turn.
    let (session_id, blocked, fleet_run_id, task_index, input): (
        Option<String>,
        bool,
        Option<String>,
        Option<i64>,
        String,
    ) = conn
        .prepare_cached(
            "UPDATE runs SET status = ?2, response = ?3, usage = ?4, steps = ?5, tool_calls = ?6, error = ?7,
                    finished_at = ?8, updated_at = ?8, worker_id = NULL
             WHERE id = ?1 RETURNING session_id, blocked, fleet_run_id, task_index, input",
        )?
        .query_row(
            params![
                run_id,
                status.as_str(),
                summary.response,
                serde_json::to_string(&summary.usage)?,
                summary.steps as i64,
                serde_json::to_string(&summary.tool_calls)?,
                error,
                ms(now)
            ],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)),
        )?;
    if let (Some(fleet_run_id), Some(task_index)) = (&fleet_run_id, task_index) {
        let task = EndedTask {
            run_id,
            session_id: session_id.as_deref(),
            fleet_run_id,
            task_index: task_index as u32,
            blocked,
            input: &input,
            status,
            error,
            summary,
        };
        fleet::task_ended(conn, task, now)?;
    }
    let Some(session_id) = session_id else { return Ok(()) };
    append_history(conn, &session_id, run_id, &summary.history, now)?;
    // A task is the first run of its own session, so it always holds the
    // session's turn: its `blocked` is about its fleet's slots.
    if !blocked || fleet_run_id.is_some() {
        conn.prepare_cached(
            "UPDATE runs SET blocked = 0 WHERE queue_seq =
               (SELECT MIN(queue_seq) FROM runs INDEXED BY runs_session_active
                WHERE session_id = ?1 AND status IN ('queued', 'running', 'waiting')
                  AND status = 'queued' AND blocked = 1)",
        )?
        .execute([&session_id])?;
    }
    Ok(())
}

/// Appends messages to a session's history, numbered after its last one.
fn append_history(
    conn: &Connection,
    session_id: &str,
    run_id: &str,
    messages: &[Message],
    now: DateTime<Utc>,
) -> StoreResult<()> {
    if messages.is_empty() {
        return Ok(());
    }
    let last: i64 = conn
        .prepare_cached("SELECT COALESCE(MAX(idx), 0) FROM session_messages WHERE session_id = ?1")?
        .query_row([session_id], |r| r.get(0))?;
    let mut insert = conn.prepare_cached(
        "INSERT INTO session_messages (session_id, idx, run_id, message, created_at) VALUES (?1, ?2, ?3, ?4, ?5)",
    )?;
    for (i, message) in messages.iter().enumerate() {
        let text = serde_json::to_string(message)?;
        insert.execute(params![session_id, last + 1 + i as i64, run_id, text, ms(now)])?;
    }
    Ok(())
}

/// Cancels a run that has not ended; a finished one is a conflict.
pub fn cancel(conn: &Connection, id: &str, now: DateTime<Utc>) -> StoreResult<Run> {
    let run = get_run(conn, id)?.ok_or(StoreError::NotFound("run"))?;
    if run.status.is_terminal() {
        return Err(StoreError::Conflict(format!("run {id} is already {}", run.status.as_str())));
    }
    finish(conn, id, RunStatus::Cancelled, Some("cancelled".into()), now)?;
    get_run(conn, id)?.ok_or(StoreError::NotFound("run"))
}
