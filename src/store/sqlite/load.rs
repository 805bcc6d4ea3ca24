//! Reading what a worker needs to execute a run, on a read connection (see
//! `readers.rs`) inside one read transaction, so that every part comes from
//! the same snapshot.

use rusqlite::{Connection, OptionalExtension};

use super::rows;
use crate::checkpoint::Checkpoint;
use crate::model::{Agent, Message};
use crate::store::{RunContext, StoreError, StoreResult};

/// Loads the contexts of `run_ids`, in order, from one snapshot.
pub fn run_contexts(conn: &Connection, run_ids: &[String]) -> StoreResult<Vec<RunContext>> {
    let snapshot = conn.unchecked_transaction()?;
    let contexts = run_ids.iter().map(|id| run_context(conn, id)).collect::<StoreResult<Vec<_>>>()?;
    snapshot.commit()?;
    Ok(contexts)
}

/// Loads a run with its agent snapshot, the session history before it, its
/// checkpoints and what its event log says about an interrupted step.
fn run_context(conn: &Connection, run_id: &str) -> StoreResult<RunContext> {
    let (run, agent, work_dir) = {
        let mut select =
            conn.prepare_cached(&format!("SELECT {}, agent, work_dir FROM runs WHERE id = ?1", rows::RUN_COLUMNS))?;
        let mut found = select.query([run_id])?;
        let row = found.next()?.ok_or(StoreError::NotFound("run"))?;
        let agent: Agent = serde_json::from_str(&row.get::<_, String>("agent")?)?;
        (rows::run(row)?, agent, row.get::<_, String>("work_dir")?)
    };
    let history = match &run.session_id {
        Some(session_id) => history_before(conn, session_id, run_id)?,
        None => Vec::new(),
    };
    let checkpoints = checkpoints(conn, run_id)?;
    let open_step = open_step(conn, run_id)?;
    // The claim that handed the run to this worker wrote one `run_started`;
    // any earlier one means an earlier attempt got there first.
    let resumed: bool = conn
        .prepare_cached("SELECT COUNT(*) > 1 FROM run_events WHERE run_id = ?1 AND type = 'run_started'")?
        .query_row([run_id], |r| r.get(0))?;
    // The event just before this attempt's `run_started`: a hand-back between
    // steps means the previous attempt had nothing in flight.
    let handed_back: Option<bool> = conn
        .prepare_cached(
            "SELECT type = 'run_handed_back' AND data ->> '$.interrupted' = 0 FROM run_events
             WHERE run_id = ?1 AND seq < (SELECT MAX(seq) FROM run_events WHERE run_id = ?1 AND type = 'run_started')
             ORDER BY seq DESC LIMIT 1",
        )?
        .query_row([run_id], |r| r.get(0))
        .optional()?;
    let handed_back = handed_back.unwrap_or(false);
    Ok(RunContext { run, agent, work_dir, history, checkpoints, open_step, resumed, handed_back })
}

/// The history before this run: every message written by runs that ended earlier.
fn history_before(conn: &Connection, session_id: &str, run_id: &str) -> StoreResult<Vec<Message>> {
    let mut select = conn.prepare_cached(
        "SELECT message FROM session_messages WHERE session_id = ?1 AND (run_id IS NULL OR run_id <> ?2) ORDER BY idx",
    )?;
    let history =
        rows::all(select.query([session_id, run_id])?, |row| Ok(serde_json::from_str(&row.get::<_, String>(0)?)?))?;
    Ok(history)
}

/// A run's stored checkpoints, in the order they were made.
pub fn checkpoints(conn: &Connection, run_id: &str) -> StoreResult<Vec<Checkpoint>> {
    let mut select =
        conn.prepare_cached("SELECT step, body FROM checkpoints WHERE run_id = ?1 ORDER BY step, created_at, call_id")?;
    let checkpoints = rows::all(select.query([run_id])?, |row| rows::checkpoint(row))?;
    Ok(checkpoints)
}

/// The last step that has a `step_started` (or `step_restarted`) event but no
/// `step_completed`: a step that was in flight when the last attempt ended.
fn open_step(conn: &Connection, run_id: &str) -> StoreResult<Option<u32>> {
    let last: Option<(String, Option<i64>)> = conn
        .prepare_cached(
            "SELECT type, json_extract(data, '$.step') FROM run_events
             WHERE run_id = ?1 AND type IN ('step_started', 'step_restarted', 'step_completed')
             ORDER BY seq DESC LIMIT 1",
        )?
        .query_row([run_id], |r| Ok((r.get(0)?, r.get(1)?)))
        .optional()?;
    Ok(match last {
        Some((kind, step)) if kind != "step_completed" => step.map(|s| s as u32),
        _ => None,
    })
}
