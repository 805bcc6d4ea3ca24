//! Rewind and fork on SQLite ([`crate::domain::branch`]): what a session's
//! history rows say, and the writes that set rows aside or copy them. The
//! writes run in the writer's transaction, so each is whole or not at all.

use chrono::{DateTime, Utc};
use rusqlite::{params, Connection, OptionalExtension};

use super::rows;
use super::{progress, resources};
use crate::domain::branch::{self, Branch, HistoryAt, Lineage, RewindTo, RunRows, SessionFacts};
use crate::domain::model::{ForkedFrom, Message, Session};
use crate::domain::retry::Reused;
use crate::store::rows::{at, ms};
use crate::store::{StoreError, StoreResult};

/// What the rules need of a session; `NotFound` when there is none.
fn facts(conn: &Connection, session_id: &str) -> StoreResult<SessionFacts> {
    let found: Option<i64> = conn
        .prepare_cached("SELECT 1 FROM sessions WHERE id = ?1")?
        .query_row([session_id], |r| r.get(0))
        .optional()?;
    found.ok_or(StoreError::NotFound("session"))?;
    let (top, last_live): (i64, i64) = conn
        .prepare_cached(
            "SELECT COALESCE(MAX(idx), 0), COALESCE(MAX(CASE WHEN branch = 0 THEN idx END), 0)
             FROM session_messages WHERE session_id = ?1",
        )?
        .query_row([session_id], |r| Ok((r.get(0)?, r.get(1)?)))?;
    let tops = rows::select_all(
        conn,
        "SELECT top_idx FROM session_branches WHERE session_id = ?1 ORDER BY branch",
        [session_id],
        |r| Ok(r.get(0)?),
    )?;
    let active_run = conn
        .prepare_cached(
            "SELECT id FROM runs WHERE session_id = ?1 AND status IN ('queued','running','waiting')
             ORDER BY queue_seq LIMIT 1",
        )?
        .query_row([session_id], |r| r.get(0))
        .optional()?;
    Ok(SessionFacts { session_id: session_id.to_string(), top, last_live, tops, active_run })
}

/// Where a run's messages are in the session's history: `None` when it
/// added none; `NotFound` when the run is not the session's (a fork's
/// copied messages name the runs of the session it was forked from).
fn run_rows(conn: &Connection, session_id: &str, run_id: &str) -> StoreResult<Option<RunRows>> {
    let (first, last, branch): (Option<i64>, Option<i64>, Option<i64>) = conn
        .prepare_cached(
            "SELECT MIN(idx), MAX(idx), MAX(branch) FROM session_messages WHERE session_id = ?1 AND run_id = ?2",
        )?
        .query_row([session_id, run_id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
    if let (Some(first), Some(last), Some(branch)) = (first, last, branch) {
        return Ok(Some(RunRows { first, last, branch }));
    }
    let owned: Option<i64> = conn
        .prepare_cached("SELECT 1 FROM runs WHERE id = ?1 AND session_id = ?2")?
        .query_row([run_id, session_id], |r| r.get(0))
        .optional()?;
    owned.map(|_| None).ok_or(StoreError::NotFound("run"))
}

/// The rows a history held at `at` ([`branch::lineage`]).
fn lineage(conn: &Connection, facts: &SessionFacts, at: &HistoryAt) -> StoreResult<Lineage> {
    let rows = at.run_id().map(|run_id| run_rows(conn, &facts.session_id, run_id)).transpose()?.flatten();
    branch::lineage(facts, at, rows)?.ok_or(StoreError::NotFound(at.missing()))
}

/// The messages a lineage holds, oldest first.
fn messages(conn: &Connection, session_id: &str, lineage: Lineage) -> StoreResult<Vec<Message>> {
    rows::select_all(
        conn,
        "SELECT message FROM session_messages
         WHERE session_id = ?1 AND idx <= ?2 AND (branch = 0 OR branch > ?3) ORDER BY idx",
        params![session_id, lineage.through, lineage.set_aside],
        |row| Ok(serde_json::from_str(&row.get::<_, String>(0)?)?),
    )
}

/// [`crate::store::Store::session_history_at`], in one read transaction.
pub fn history_at(conn: &Connection, session_id: &str, at: &HistoryAt) -> StoreResult<Vec<Message>> {
    let snapshot = conn.unchecked_transaction()?;
    let facts = facts(conn, session_id)?;
    let lineage = lineage(conn, &facts, at)?;
    let found = messages(conn, session_id, lineage)?;
    snapshot.commit()?;
    Ok(found)
}

/// [`crate::store::Store::fork_session`], in the writer's transaction.
pub fn fork(conn: &Connection, fork: &Session, from: &str, at: Option<&str>) -> StoreResult<Session> {
    let facts = facts(conn, from)?;
    let at = at.map_or(HistoryAt::Live, |run_id| HistoryAt::AfterRun(run_id.to_string()));
    let lineage = lineage(conn, &facts, &at)?;
    let run_id = match at {
        HistoryAt::AfterRun(run_id) => Some(run_id),
        _ => last_run(conn, from, lineage)?,
    };
    let mut fork = fork.clone();
    fork.forked_from = Some(ForkedFrom { session_id: from.to_string(), run_id });
    resources::insert_session(conn, &fork)?;
    conn.prepare_cached(
        "INSERT INTO session_messages (session_id, idx, run_id, message, created_at)
         SELECT ?1, ROW_NUMBER() OVER (ORDER BY idx), run_id, message, created_at FROM session_messages
         WHERE session_id = ?2 AND idx <= ?3 AND (branch = 0 OR branch > ?4)",
    )?
    .execute(params![fork.id, from, lineage.through, lineage.set_aside])?;
    Ok(fork)
}

/// The run that wrote the last row a lineage holds.
fn last_run(conn: &Connection, session_id: &str, lineage: Lineage) -> StoreResult<Option<String>> {
    let found: Option<Option<String>> = conn
        .prepare_cached(
            "SELECT run_id FROM session_messages
             WHERE session_id = ?1 AND idx <= ?2 AND (branch = 0 OR branch > ?3) ORDER BY idx DESC LIMIT 1",
        )?
        .query_row(params![session_id, lineage.through, lineage.set_aside], |r| r.get(0))
        .optional()?;
    Ok(found.flatten())
}

/// [`crate::store::Store::rewind_session`], in the writer's transaction.
pub fn rewind(conn: &Connection, session_id: &str, to: &RewindTo, now: DateTime<Utc>) -> StoreResult<Option<Branch>> {
    let facts = facts(conn, session_id)?;
    let rows = run_rows(conn, session_id, to.run_id())?;
    let Some(rewind) = branch::rewind(&facts, to, rows)? else { return Ok(None) };
    let after_run_id = last_run(conn, session_id, Lineage::live(rewind.cut, facts.rewinds()))?;
    conn.prepare_cached("UPDATE session_messages SET branch = ?1 WHERE session_id = ?2 AND branch = 0 AND idx > ?3")?
        .execute(params![rewind.branch, session_id, rewind.cut])?;
    conn.prepare_cached(
        "INSERT INTO session_branches (session_id, branch, cut_idx, top_idx, after_run_id, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    )?
    .execute(params![session_id, rewind.branch, rewind.cut, rewind.top, after_run_id, ms(now)])?;
    conn.prepare_cached("UPDATE sessions SET rewinds = rewinds + 1, updated_at = ?1 WHERE id = ?2")?
        .execute(params![ms(now), session_id])?;
    let listed = branches(conn, session_id)?;
    Ok(listed.into_iter().find(|b| b.branch == rewind.branch))
}

/// Writes a retry's copies of its original's checkpoints and their
/// `step_reused` events, numbered after its `run_queued`.
pub fn reuse(conn: &Connection, run_id: &str, reused: &Reused, now: DateTime<Utc>) -> StoreResult<()> {
    progress::insert_checkpoints(conn, run_id, &reused.checkpoints, now)?;
    let count = reused.events.len() as i64;
    let before: i64 = conn
        .prepare_cached("UPDATE runs SET event_seq = event_seq + ?2 WHERE id = ?1 RETURNING event_seq - ?2")?
        .query_row(params![run_id, count], |r| r.get(0))?;
    progress::insert_events(conn, run_id, before as u64 + 1, &reused.events, now)
}

/// [`crate::store::Store::session_branches`]: each branch with its runs
/// (in the order of their rows) and its count of messages.
pub fn branches(conn: &Connection, session_id: &str) -> StoreResult<Vec<Branch>> {
    let mut listed = rows::select_all(
        conn,
        "SELECT branch, after_run_id, created_at FROM session_branches WHERE session_id = ?1 ORDER BY branch",
        [session_id],
        |r| {
            Ok(Branch {
                branch: r.get(0)?,
                after_run_id: r.get(1)?,
                runs: Vec::new(),
                messages: 0,
                created_at: at(r.get(2)?),
            })
        },
    )?;
    let found: Vec<(i64, Option<String>, i64)> = rows::select_all(
        conn,
        "SELECT branch, run_id, COUNT(*) FROM session_messages WHERE session_id = ?1 AND branch > 0
         GROUP BY branch, run_id ORDER BY branch, MIN(idx)",
        [session_id],
        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
    )?;
    branch::tally(&mut listed, found);
    Ok(listed)
}
