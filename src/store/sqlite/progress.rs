//! A run's progress: fenced commits of checkpoints and events, and ending a
//! run. Each function runs inside the writer's transaction, on the writer's
//! thread, with cached prepared statements.

use chrono::{DateTime, Utc};
use rusqlite::{params, params_from_iter, Connection, OptionalExtension, ToSql};

use super::encoded::{EncodedCommit, EndOf, EndText};
use super::queue::get_run;
use super::rows::{self, ms};
use super::{children, deliveries, fleet, formations, load, people, quotas};
use crate::domain::access::By;
use crate::domain::checkpoint::Checkpoint;
use crate::domain::event::RunEvent;
use crate::domain::lifecycle::{self, Commit, Effect, EndReason, EndedRow, Ending, Lease, Stored};
use crate::domain::model::Run;
use crate::domain::quota;
use crate::store::{event_rows, Committed, StoreError, StoreResult};

/// Writes events numbered from `first_seq`, as one row
/// ([`crate::store::event_rows`]).
pub fn insert_events(
    conn: &Connection,
    run_id: &str,
    first_seq: u64,
    events: &[RunEvent],
    now: DateTime<Utc>,
) -> StoreResult<()> {
    if events.is_empty() {
        return Ok(());
    }
    let last_seq = event_rows::last_seq(first_seq, events);
    insert_event_row(conn, run_id, (first_seq, last_seq), &event_rows::encode(events), now)
}

/// Writes the row of events numbered `seqs` (first and last), encoded as
/// `text` ([`event_rows::encode`]).
fn insert_event_row(
    conn: &Connection,
    run_id: &str,
    seqs: (u64, u64),
    text: &str,
    now: DateTime<Utc>,
) -> StoreResult<()> {
    conn.prepare_cached(
        "INSERT INTO run_events (run_id, first_seq, last_seq, events, at) VALUES (?1, ?2, ?3, ?4, ?5)",
    )?
    .execute(params![run_id, seqs.0 as i64, seqs.1 as i64, text, ms(now)])?;
    Ok(())
}

/// Reserves `events` event numbers for a run if, and only if, the lease is
/// still held, and records the resume facts the write changes. Returns the
/// first reserved number. This (or [`fence_and_end`], for a commit that
/// ends its run) is the first write of every fenced change, so a refusal
/// leaves nothing behind.
pub fn fence(conn: &Connection, lease: &Lease, effect: Effect, now: DateTime<Utc>) -> StoreResult<u64> {
    let (moves_step, open_step) = step_change(&effect);
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

/// The open step's change as the fence's parameters: whether it moves,
/// and to what.
fn step_change(effect: &Effect) -> (bool, Option<i64>) {
    match effect.open_step {
        Some(step) => (true, step.map(i64::from)),
        None => (false, None),
    }
}

/// Writes a worker's progress under its lease, or nothing at all if the
/// lease is gone or the rules refuse the commit ([`lifecycle::admit`]):
/// checkpoints, events, the shell state its session keeps, and, when the
/// commit ends the run, its end. `ahead` is the commit as
/// [`EncodedCommit::ahead`] encoded it, if it could.
pub fn commit(
    conn: &Connection,
    lease: &Lease,
    commit: &Commit,
    ahead: Option<&EncodedCommit>,
    now: DateTime<Utc>,
) -> StoreResult<Committed> {
    let inbox: Vec<u64> = people::read_inbox(conn, &lease.run_id)?.iter().map(|item| item.seq).collect();
    let inbox_newest = lifecycle::admit(commit, &inbox)?;
    let encoded_here;
    let encoded = match ahead {
        Some(encoded) => encoded,
        None => {
            let stored = if commit.needs_stored() { Some(stored(conn, &lease.run_id)?) } else { None };
            encoded_here = EncodedCommit::of(commit, stored)?;
            &encoded_here
        }
    };
    let done = &encoded.done;
    // A commit that ends its run fences and ends it in one statement, so
    // that the run's row is rewritten once. (It starts no children, which
    // the end would have to count: `admit` refuses that.)
    let (first, ended) = match encoded.ending() {
        Some(end) => {
            let (first, row) = fence_and_end(conn, lease, done.effect, end, now)?;
            (first, Some((end, row)))
        }
        None => (fence(conn, lease, done.effect, now)?, None),
    };
    if done.writes_checkpoints() {
        insert_checkpoints(conn, &lease.run_id, &commit.checkpoints, now)?;
    }
    if let Some(charged) = quota::charged(&commit.checkpoints, done.ending.is_some()) {
        quotas::charge(conn, &lease.run_id, &charged, now)?;
    }
    if !done.events.is_empty() {
        let seqs = (first, event_rows::last_seq(first, &done.events));
        insert_event_row(conn, &lease.run_id, seqs, &encoded.events, now)?;
    }
    if let Some(state) = &commit.shell {
        conn.prepare_cached("UPDATE sessions SET shell = ?2 WHERE id = (SELECT session_id FROM runs WHERE id = ?1)")?
            .execute(params![lease.run_id, rows::shell_text(state)?])?;
    }
    children::start(conn, &lease.run_id, &commit.children, now)?;
    if let Some((end, row)) = ended {
        after_end(conn, end, row, now)?;
    }
    if commit.wait {
        children::park(conn, &lease.run_id, commit.awaits_children, now)?;
    }
    people::take_delivered(conn, &lease.run_id, &commit.delivered)?;
    Ok(Committed { inbox_newest })
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

/// The run's input and checkpoints, from the writer's transaction.
pub fn stored(conn: &Connection, run_id: &str) -> StoreResult<Stored> {
    let input: String =
        conn.prepare_cached("SELECT input FROM runs WHERE id = ?1")?.query_row([run_id], |r| r.get(0))?;
    Ok(Stored { input: serde_json::from_str(&input)?, checkpoints: load::checkpoints(conn, run_id)? })
}

/// Writes the end [`Ending::of`] gives `reason` (an end no worker decided),
/// its `done` numbered after the run's last event.
pub fn finish(conn: &Connection, run_id: &str, reason: &EndReason, now: DateTime<Utc>) -> StoreResult<()> {
    let ending = Ending::of(reason, &stored(conn, run_id)?);
    let seq: i64 = conn
        .prepare_cached("UPDATE runs SET event_seq = event_seq + 1, updated_at = ?2 WHERE id = ?1 RETURNING event_seq")?
        .query_row(params![run_id, ms(now)], |r| r.get(0))?;
    insert_events(conn, run_id, seq as u64, std::slice::from_ref(&ending.done), now)?;
    quotas::charge(conn, run_id, &quota::ended(), now)?;
    end_run(conn, run_id, &ending, now)
}

/// The columns a run's end writes: `?1` is the run, `?2` to `?10` as
/// [`EndValues`] gives them. A run whose messages spell its response and
/// calls has its row say which of its session's history rows hold them
/// (the rows [`append_history`] writes next), instead of a copy
/// ([`crate::store::answer_rows`]). `blocked` is left as it was: the rules
/// read it from what [`ended_returning`] says.
macro_rules! end_columns {
    () => {
        "status = ?2, usage = ?4, steps = ?5, error = ?7,
         response = CASE WHEN ?9 AND session_id IS NOT NULL THEN NULL ELSE ?3 END,
         tool_calls = CASE WHEN ?9 AND session_id IS NOT NULL
             THEN (SELECT json_object('history', json_array(top + 1, top + ?10))
                   FROM (SELECT COALESCE(MAX(idx), 0) AS top FROM session_messages
                         WHERE session_id = runs.session_id))
             ELSE ?6 END,
         finished_at = ?8, updated_at = ?8, worker_id = NULL"
    };
}

/// What an ended run's row answers ([`EndedColumns`]).
macro_rules! ended_returning {
    () => {
        "id, session_id, blocked, fleet_run_id, task_index,
         CASE WHEN fleet_run_id IS NOT NULL OR parent_run_id IS NOT NULL OR formation_run_id IS NOT NULL
              THEN input END,
         children_open, json_extract(input, '$.webhook')"
    };
}

/// The values of [`end_columns`]' parameters `?1` to `?10`.
struct EndValues<'a> {
    run_id: &'a str,
    status: &'a str,
    response: Option<&'a str>,
    usage: &'a str,
    steps: i64,
    tool_calls: &'a str,
    error: Option<&'a str>,
    now: i64,
    spelled_by_history: bool,
    history_len: i64,
}

impl<'a> EndValues<'a> {
    fn of(run_id: &'a str, (ending, text): EndOf<'a>, now: DateTime<Utc>) -> EndValues<'a> {
        EndValues {
            run_id,
            status: ending.status.as_str(),
            response: ending.summary.response.as_deref(),
            usage: &text.usage,
            steps: ending.summary.steps as i64,
            tool_calls: &text.tool_calls,
            error: ending.error.as_deref(),
            now: ms(now),
            spelled_by_history: text.spelled_by_history,
            history_len: ending.summary.history.len() as i64,
        }
    }

    /// `?1` to `?10`.
    fn params(&self) -> [&dyn ToSql; 10] {
        [
            &self.run_id,
            &self.status,
            &self.response,
            &self.usage,
            &self.steps,
            &self.tool_calls,
            &self.error,
            &self.now,
            &self.spelled_by_history,
            &self.history_len,
        ]
    }
}

/// Fences a commit that ends its run ([`fence`]'s conditions and resume
/// facts) and writes the end, in one statement: the first reserved event
/// number, and what the ended row says.
fn fence_and_end(
    conn: &Connection,
    lease: &Lease,
    effect: Effect,
    end: EndOf<'_>,
    now: DateTime<Utc>,
) -> StoreResult<(u64, EndedRow)> {
    let (moves_step, open_step) = step_change(&effect);
    let values = EndValues::of(&lease.run_id, end, now);
    let epoch = lease.epoch as i64;
    let events = effect.events as i64;
    let fenced: [&dyn ToSql; 6] = [&events, &effect.progressed, &moves_step, &open_step, &epoch, &lease.worker_id];
    let params = values.params().into_iter().chain(fenced);
    let found = conn
        .prepare_cached(concat!(
            "UPDATE runs SET ",
            end_columns!(),
            ", event_seq = event_seq + ?11, progressed = progressed OR ?12,
               open_step = CASE WHEN ?13 THEN ?14 ELSE open_step END
             WHERE id = ?1 AND status = 'running' AND lease_epoch = ?15 AND worker_id = ?16
               AND EXISTS (SELECT 1 FROM workers WHERE id = ?16 AND lease_expires_at > ?8)
             RETURNING event_seq, ",
            ended_returning!()
        ))?
        .query_row(params_from_iter(params), |r| Ok((r.get::<_, i64>(0)?, ended_columns(r, 1)?)))
        .optional()?;
    let (last, columns) = found.ok_or(StoreError::Fenced)?;
    Ok((last as u64 - effect.events + 1, ended_row(columns)?))
}

/// The terminal state of a run, and where its end goes besides
/// ([`after_end`]).
fn end_run(conn: &Connection, run_id: &str, ending: &Ending, now: DateTime<Utc>) -> StoreResult<()> {
    let text = EndText::of(ending)?;
    let values = EndValues::of(run_id, (ending, &text), now);
    let columns = conn
        .prepare_cached(concat!("UPDATE runs SET ", end_columns!(), " WHERE id = ?1 RETURNING ", ended_returning!()))?
        .query_row(params_from_iter(values.params()), |r| ended_columns(r, 0))?;
    after_end(conn, (ending, &text), ended_row(columns)?, now)
}

/// Where a run's end goes besides its row ([`lifecycle::after_end`]): its
/// fleet task's end, its messages appended to the session's history, and
/// the session's turn passed on. A run that succeeded loses its
/// checkpoints ([`Ending::keeps_checkpoints`]).
fn after_end(conn: &Connection, (ending, text): EndOf<'_>, row: EndedRow, now: DateTime<Utc>) -> StoreResult<()> {
    let run_id = row.run_id.as_str();
    if !ending.keeps_checkpoints() {
        conn.prepare_cached("DELETE FROM checkpoints WHERE run_id = ?1")?.execute([run_id])?;
    }
    let after = lifecycle::after_end(&row, ending);
    // First, so that the ends below that read this run's row (a fleet's
    // last task, a sub-agent's parent) find the history rows it names.
    if let Some((session_id, _)) = after.history {
        append_history(conn, session_id, run_id, &text.history, now)?;
    }
    if let Some(task) = after.task {
        fleet::task_ended(conn, task, now)?;
    }
    if let Some(end) = &after.parent {
        children::ended(conn, end, now)?;
    }
    if let Some(parent) = after.cancels_children {
        children::cancel(conn, parent, now)?;
    }
    if let Some((node, outcome)) = after.node {
        formations::node_ended(conn, node, outcome, now)?;
    }
    if let Some(delivery) = &after.delivery {
        deliveries::insert(conn, delivery, now)?;
    }
    if let Some(session_id) = after.passes_turn {
        conn.prepare_cached(
            "UPDATE runs SET blocked = 0 WHERE queue_seq =
               (SELECT MIN(queue_seq) FROM runs INDEXED BY runs_session_active
                WHERE session_id = ?1 AND status IN ('queued', 'running', 'waiting')
                  AND status = 'queued' AND blocked = 1)",
        )?
        .execute([session_id])?;
    }
    Ok(())
}

/// What an ended run's row says (`RETURNING id, session_id, blocked,
/// fleet_run_id, task_index`, a fleet task's or sub-agent's input, its
/// children still open, and its webhook).
type EndedColumns = (String, Option<String>, bool, Option<String>, Option<i64>, Option<String>, i64, Option<String>);

/// Reads [`EndedColumns`] from `row`, starting at column `from`.
fn ended_columns(row: &rusqlite::Row<'_>, from: usize) -> rusqlite::Result<EndedColumns> {
    let at = |i: usize| from + i;
    Ok((
        row.get(at(0))?,
        row.get(at(1))?,
        row.get(at(2))?,
        row.get(at(3))?,
        row.get(at(4))?,
        row.get(at(5))?,
        row.get(at(6))?,
        row.get(at(7))?,
    ))
}

fn ended_row(columns: EndedColumns) -> StoreResult<EndedRow> {
    let (run_id, session_id, blocked, fleet_run_id, task_index, input, children_open, webhook) = columns;
    let input = rows::ended_input(input.as_deref())?;
    Ok(EndedRow {
        run_id,
        session_id,
        blocked,
        fleet_run_id,
        task_index: task_index.map(|i| i as u32),
        task_data: input.data,
        parent: input.parent,
        node: input.node,
        children_open: children_open as u32,
        webhook,
    })
}

/// Appends messages (`messages`, each as JSON) to a session's history,
/// numbered after its last one.
fn append_history(
    conn: &Connection,
    session_id: &str,
    run_id: &str,
    messages: &[String],
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
        insert.execute(params![session_id, last + 1 + i as i64, run_id, message, ms(now)])?;
    }
    Ok(())
}

/// [`crate::store::Store::cancel_run`], in the writer's transaction.
pub fn cancel(conn: &Connection, id: &str, by: &By, now: DateTime<Utc>) -> StoreResult<Run> {
    let run = get_run(conn, id)?.ok_or(StoreError::NotFound("run"))?;
    finish(conn, id, &lifecycle::cancel(&run, by)?, now)?;
    get_run(conn, id)?.ok_or(StoreError::NotFound("run"))
}
