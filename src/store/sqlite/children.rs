//! Sub-agents' runs on SQLite ([`crate::domain::lifecycle::child_ended`] and its
//! kin): started by their parent's commit, their ends written into the
//! parent, and cancelled with it. Each function runs inside the writer's
//! transaction, whose single writer makes the parent's count exact.

use chrono::{DateTime, Utc};
use rusqlite::{params, Connection};

use super::progress::{finish, insert_checkpoints, insert_events};
use super::queue::insert_run;
use super::resources::insert_session;
use super::rows::{self, ms};
use crate::domain::lifecycle::{self, ChildEnd, EndReason, NewChild, ParentRow};
use crate::store::StoreResult;

/// Writes the children a parent's commit starts: each one's session and
/// queued run (with the parent's `max_attempts`), and the parent's count.
pub fn start(conn: &Connection, parent_id: &str, children: &[NewChild], now: DateTime<Utc>) -> StoreResult<()> {
    if children.is_empty() {
        return Ok(());
    }
    let max_attempts: i64 =
        conn.prepare_cached("SELECT max_attempts FROM runs WHERE id = ?1")?.query_row([parent_id], |r| r.get(0))?;
    let runs: Vec<_> = children.iter().map(|child| child.run(max_attempts as u32)).collect();
    let first = super::fair::first_start(conn, &runs[0], runs.len())?;
    for ((i, child), run) in children.iter().enumerate().zip(&runs) {
        insert_session(conn, &child.session)?;
        insert_run(conn, run, false, None, first + i as i64, &lifecycle::queued(run, None), now)?;
        conn.prepare_cached("UPDATE runs SET parent_run_id = ?2, parent_call_id = ?3 WHERE id = ?1")?
            .execute(params![run.id, parent_id, child.call_id()])?;
    }
    conn.prepare_cached("UPDATE runs SET children_open = children_open + ?2 WHERE id = ?1")?
        .execute(params![parent_id, children.len() as i64])?;
    Ok(())
}

/// Parks a run: `waiting`, or queued again if it parked for children that
/// have all ended ([`lifecycle::parks_as`]).
pub fn park(conn: &Connection, run_id: &str, awaits_children: bool, now: DateTime<Utc>) -> StoreResult<()> {
    let open: i64 =
        conn.prepare_cached("SELECT children_open FROM runs WHERE id = ?1")?.query_row([run_id], |r| r.get(0))?;
    let parked = lifecycle::parks_as(awaits_children, open as u32);
    conn.prepare_cached(
        "UPDATE runs SET status = ?3, worker_id = NULL, handed_back = 1, updated_at = ?2 WHERE id = ?1",
    )?
    .execute(params![run_id, ms(now), parked.status.as_str()])?;
    Ok(())
}

/// Writes a child's end into its parent, as [`lifecycle::child_ended`] decides.
pub fn ended(conn: &Connection, end: &ChildEnd, now: DateTime<Utc>) -> StoreResult<()> {
    let parent_id = &end.parent.run_id;
    let (status, open): (String, i64) = conn
        .prepare_cached("SELECT status, children_open FROM runs WHERE id = ?1")?
        .query_row([parent_id], |r| Ok((r.get(0)?, r.get(1)?)))?;
    let parent = ParentRow { status: rows::status(&status)?, children_open: open as u32 };
    let Some(wake) = lifecycle::child_ended(parent, end) else { return Ok(()) };
    let before: i64 = conn
        .prepare_cached(
            "UPDATE runs SET children_open = MAX(children_open - 1, 0), status = ?2,
                    event_seq = event_seq + ?3, updated_at = ?4
             WHERE id = ?1 RETURNING event_seq - ?3",
        )?
        .query_row(params![parent_id, wake.parent.status.as_str(), wake.events.len() as i64, ms(now)], |r| r.get(0))?;
    insert_checkpoints(conn, parent_id, &wake.checkpoints, now)?;
    insert_events(conn, parent_id, before as u64 + 1, &wake.events, now)
}

/// Ends the children of `run_id` that have not ended, because it ended.
pub fn cancel(conn: &Connection, run_id: &str, now: DateTime<Utc>) -> StoreResult<()> {
    let open = rows::select_all(
        conn,
        "SELECT id FROM runs INDEXED BY runs_parent
         WHERE parent_run_id = ?1 AND status IN ('queued', 'running', 'waiting')",
        [run_id],
        |r| Ok(r.get::<_, String>(0)?),
    )?;
    for child in open {
        finish(conn, &child, &EndReason::ParentEnded, now)?;
    }
    Ok(())
}
