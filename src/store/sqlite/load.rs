//! Reading what a worker needs to execute a run, on a read connection (see
//! `readers.rs`) inside one read transaction, so that every part comes from
//! the same snapshot.

use rusqlite::Connection;

use super::rows;
use crate::domain::checkpoint::Checkpoint;
use crate::domain::history::{History, HistoryCache, HistoryRow};
use crate::store::rows::Columns;
use crate::store::{agent_snapshots, RunContext, StoreError, StoreResult};

/// Loads the contexts of `run_ids`, in order, from one snapshot.
pub fn run_contexts(conn: &Connection, run_ids: &[String], histories: &HistoryCache) -> StoreResult<Vec<RunContext>> {
    let snapshot = conn.unchecked_transaction()?;
    let contexts = run_ids.iter().map(|id| run_context(conn, id, histories)).collect::<StoreResult<Vec<_>>>()?;
    snapshot.commit()?;
    Ok(contexts)
}

/// Loads a run with its agent snapshot, the session history and shell state
/// before it, its checkpoints and what its event log says about an
/// interrupted step.
fn run_context(conn: &Connection, run_id: &str, histories: &HistoryCache) -> StoreResult<RunContext> {
    let (run, agent, work_dir, shell, rewinds, open_step, handed_back) = {
        let mut select = conn.prepare_cached(&format!(
            "SELECT {}, {}, work_dir, open_step, handed_back,
                    (SELECT shell FROM sessions WHERE sessions.id = runs.session_id) AS shell,
                    (SELECT rewinds FROM sessions WHERE sessions.id = runs.session_id) AS rewinds
             FROM runs WHERE id = ?1",
            rows::RUN_COLUMNS,
            agent_snapshots::AGENT_COLUMN
        ))?;
        let mut found = select.query([run_id])?;
        let row = found.next()?.ok_or(StoreError::NotFound("run"))?;
        let agent = agent_snapshots::parse(&row.text("agent")?)?;
        let shell = rows::shell(row.opt_text("shell")?.as_deref());
        let rewinds = row.opt_int("rewinds")?.unwrap_or(0);
        let (open_step, handed_back) = (row.opt_int("open_step")?, row.int("handed_back")? != 0);
        (super::run_rows::run(conn, row)?, agent, row.text("work_dir")?, shell, rewinds, open_step, handed_back)
    };
    let history = match &run.session_id {
        Some(session_id) => history_before(conn, session_id, rewinds, histories)?,
        None => History::default(),
    };
    let checkpoints = checkpoints(conn, run_id)?;
    let open_step = open_step.map(|s| s as u32);
    // The claim that handed the run to this worker was its first, or not.
    let resumed = run.attempt > 1;
    let inbox = super::people::read_inbox(conn, run_id)?;
    Ok(RunContext { run, agent, work_dir, history, checkpoints, open_step, resumed, handed_back, inbox, shell })
}

/// The history before this run: every message written by runs that ended
/// earlier (a run writes its own when it ends, after which it is never
/// executed again), except those a rewind set aside. Only the rows after
/// what `histories` knows are read.
fn history_before(conn: &Connection, session_id: &str, rewinds: i64, histories: &HistoryCache) -> StoreResult<History> {
    let known = histories.known(session_id, rewinds);
    let mut select = conn.prepare_cached(
        "SELECT idx, message FROM session_messages WHERE session_id = ?1 AND idx > ?2 AND branch = 0 ORDER BY idx",
    )?;
    let rows = rows::all(select.query(rusqlite::params![session_id, known.last_row()])?, |row| {
        Ok(HistoryRow { idx: row.get(0)?, messages: vec![serde_json::from_str(&row.get::<_, String>(1)?)?] })
    })?;
    let history = known.extended(rows);
    histories.keep(session_id, rewinds, &history);
    Ok(history)
}

/// Reads a run's checkpoints, by step and then as they were written.
pub fn checkpoints(conn: &Connection, run_id: &str) -> StoreResult<Vec<Checkpoint>> {
    let mut select =
        conn.prepare_cached("SELECT step, body FROM checkpoints WHERE run_id = ?1 ORDER BY step, created_at, call_id")?;
    let checkpoints = rows::all(select.query([run_id])?, |row| rows::checkpoint(row))?;
    Ok(checkpoints)
}
