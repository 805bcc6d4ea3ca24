//! Decoding stored rows into domain types, for every backend: both store
//! the same columns (JSON as text, times as integer milliseconds), and
//! [`Columns`] lets one decoder read a row of any driver.

use chrono::{DateTime, TimeZone, Utc};
use serde::de::DeserializeOwned;

use crate::domain::access::By;
use crate::domain::checkpoint::{Checkpoint, CheckpointBody};
use crate::domain::lifecycle::InboxKind;
use crate::domain::model::{
    Fleet, FleetProgress, FleetRun, FleetRunStatus, FleetStatus, Run, RunInput, RunKind, RunStanding, RunStatus,
    Session,
};
use crate::domain::shell::ShellState;
use crate::store::answer_rows::{self, Span, StoredAnswer};
use crate::store::{Order, RunFilter, StoreError, StoreResult, WorkerInfo, WorkerStatus};

impl From<sqlx::Error> for StoreError {
    fn from(e: sqlx::Error) -> Self {
        if let sqlx::Error::Database(db) = &e {
            // PostgreSQL's disk_full.
            if db.code().is_some_and(|code| code == "53100") {
                super::disk::noticed(false);
                return StoreError::DiskFull(Box::new(e));
            }
        }
        if matches!(e, sqlx::Error::PoolTimedOut) {
            let why = "every connection of the pool stayed in use for as long as the call could wait";
            StoreError::Overloaded(why.into())
        } else if sqlx_retryable(&e) {
            if super::postgres::is_connection_lost(&e) {
                super::postgres::note_connection_lost();
            }
            StoreError::Unavailable(Box::new(e))
        } else {
            StoreError::Internal(Box::new(e))
        }
    }
}

/// Whether an sqlx error (sqlx serves PostgreSQL alone) may go away on its
/// own: a lost or refused connection, a closed pool, and the server's
/// serialization failures, deadlocks, shutdowns or starts, lack of
/// resources, or a write sent to a server that is no longer the primary
/// (during a failover). SQLite's errors are rusqlite's, classified beside
/// its backend.
fn sqlx_retryable(e: &sqlx::Error) -> bool {
    match e {
        sqlx::Error::Io(_)
        | sqlx::Error::Tls(_)
        | sqlx::Error::Protocol(_)
        | sqlx::Error::PoolClosed
        | sqlx::Error::WorkerCrashed => true,
        // PostgreSQL's SQLSTATEs: connection, resources, serialization, deadlock,
        // shutdown, a read-only server.
        sqlx::Error::Database(db) => db.code().is_some_and(|code| {
            code.starts_with("08")
                || code.starts_with("53")
                || matches!(&*code, "25006" | "40001" | "40P01" | "55P03" | "57P01" | "57P02" | "57P03")
        }),
        _ => false,
    }
}

/// Reading a column by name, whichever driver produced the row.
pub trait Columns {
    fn text(&self, col: &str) -> StoreResult<String>;
    fn opt_text(&self, col: &str) -> StoreResult<Option<String>>;
    fn int(&self, col: &str) -> StoreResult<i64>;
    fn opt_int(&self, col: &str) -> StoreResult<Option<i64>>;
}

/// A timestamp as stored: milliseconds since the Unix epoch.
pub fn ms(t: DateTime<Utc>) -> i64 {
    t.timestamp_millis()
}

/// A stored timestamp back as a date.
pub fn at(ms: i64) -> DateTime<Utc> {
    Utc.timestamp_millis_opt(ms).single().unwrap_or_default()
}

/// An MCP listing from its row (`definition`, `server`, `tools`, `error`,
/// `listed_at`).
pub fn mcp_listing(row: &impl Columns) -> StoreResult<crate::domain::model::McpListing> {
    Ok(crate::domain::model::McpListing {
        definition: row.text("definition")?,
        server: row.text("server")?,
        tools: json(row, "tools")?,
        error: row.opt_text("error")?,
        listed_at: at(row.int("listed_at")?),
    })
}

/// Decodes a column of JSON text.
pub fn json<T: DeserializeOwned>(row: &impl Columns, col: &str) -> StoreResult<T> {
    Ok(serde_json::from_str(&row.text(col)?)?)
}

/// Decodes a column of JSON text that may be NULL.
pub fn opt_json<T: DeserializeOwned>(row: &impl Columns, col: &str) -> StoreResult<Option<T>> {
    row.opt_text(col)?.map(|t| serde_json::from_str(&t)).transpose().map_err(Into::into)
}

/// The columns [`run`] reads, in a `SELECT`.
pub const RUN_COLUMNS: &str = "id, owner, kind, status, attempt, session_id, agent_id, fleet_run_id, task_index, \
     input, response, usage, steps, tool_calls, error, created_at, started_at, finished_at, updated_at, children_open, \
     parent_run_id, parent_call_id, formation_run_id";

/// A reader's place in a log as stored (`i64`): a place past every
/// number that fits is after every event, not a wrap to below zero.
pub fn stored_place(after: u64) -> i64 {
    i64::try_from(after).unwrap_or(i64::MAX)
}

/// A run's standing ([`run_standing`]) with `$1` its ID and `$2` the
/// reader's place in its log, as `i64`: two columns of its row and one
/// probe of its log's index, on either backend.
pub const RUN_STANDING: &str = "SELECT owner, status,
            EXISTS (SELECT 1 FROM run_events WHERE run_id = $1 AND last_seq > $2) AS events_after
     FROM runs WHERE id = $1";

/// Decodes a row [`RUN_STANDING`] selects.
pub fn run_standing(row: &impl Columns) -> StoreResult<RunStanding> {
    Ok(RunStanding {
        owner: row.text("owner")?,
        status: status(&row.text("status")?)?,
        events_after: row.int("events_after")? != 0,
    })
}

/// The predicate of a run list on a run's lineage (a parent's children, a
/// formation run's nodes), with `parent` and `formation` the placeholders
/// the two filters are bound to. A filter given is an equality, which the
/// partial index on its column serves; as `? IS NULL OR col = ?` the
/// planner could not use it, and a parent's children were looked for
/// through every run.
pub fn lineage(filter: &RunFilter, parent: &str, formation: &str) -> String {
    match (&filter.parent_run_id, &filter.formation_run_id) {
        (Some(_), Some(_)) => format!("parent_run_id = {parent} AND formation_run_id = {formation}"),
        (Some(_), None) => format!("parent_run_id = {parent} AND {formation} IS NULL"),
        (None, Some(_)) => format!("formation_run_id = {formation} AND {parent} IS NULL"),
        (None, None) => format!("{parent} IS NULL AND {formation} IS NULL"),
    }
}

/// The predicate of a list on its rows' owner (`column`), bound to
/// `placeholder`: an equality when one owner's list is asked for, so that
/// the owner's index serves it, and true otherwise.
pub fn owned_by(owner: &Option<String>, column: &str, placeholder: &str) -> String {
    match owner {
        Some(_) => format!("{column} = {placeholder}"),
        None => format!("{placeholder} IS NULL"),
    }
}

/// Decodes a run row selected with [`RUN_COLUMNS`] whose answer the row
/// holds (as PostgreSQL's always do).
pub fn run(row: &impl Columns) -> StoreResult<Run> {
    match run_with_answer(row)? {
        (run, None) => Ok(run),
        (run, Some(_)) => Err(StoreError::internal(format!("run {}: its answer is in history rows not read", run.id))),
    }
}

/// Decodes a run row selected with [`RUN_COLUMNS`], and where its history
/// rows hold its response and calls when the row does not
/// ([`super::answer_rows`]): the run's `response` and `tool_calls` are then
/// left empty for the caller to fill.
pub fn run_with_answer(row: &impl Columns) -> StoreResult<(Run, Option<Span>)> {
    let (tool_calls, span) = match answer_rows::parse(row.opt_text("tool_calls")?.as_deref())? {
        StoredAnswer::Listed(calls) => (calls, None),
        StoredAnswer::InHistory(span) => (Vec::new(), Some(span)),
    };
    let kind = row.text("kind")?;
    let input: crate::domain::model::RunInput = json(row, "input")?;
    let run = Run {
        id: row.text("id")?,
        owner: row.text("owner")?,
        kind: RunKind::parse(&kind).ok_or_else(|| StoreError::internal(format!("unknown run kind {kind:?}")))?,
        status: status(&row.text("status")?)?,
        attempt: row.int("attempt")? as u32,
        session_id: row.opt_text("session_id")?,
        agent_id: row.text("agent_id")?,
        fleet_run_id: row.opt_text("fleet_run_id")?,
        task_index: row.opt_int("task_index")?.map(|i| i as u32),
        trace_id: input.trace_id(),
        input,
        response: row.opt_text("response")?,
        usage: opt_json(row, "usage")?.unwrap_or_default(),
        steps: row.int("steps")? as u32,
        tool_calls,
        error: row.opt_text("error")?,
        children_open: row.int("children_open")? as u32,
        parent_run_id: row.opt_text("parent_run_id")?,
        parent_call_id: row.opt_text("parent_call_id")?,
        formation_run_id: row.opt_text("formation_run_id")?,
        created_at: at(row.int("created_at")?),
        started_at: row.opt_int("started_at")?.map(at),
        finished_at: row.opt_int("finished_at")?.map(at),
        updated_at: at(row.int("updated_at")?),
    };
    Ok((run, span))
}

/// What an ended run's stored input tells its end's rules: a fleet task's
/// `data`, a sub-agent's parent call, an agent node's formation run (none
/// for a run that is none of them, whose input is not read).
pub fn ended_input(input: Option<&str>) -> StoreResult<RunInput> {
    let Some(input) = input else { return Ok(RunInput::new("", Default::default())) };
    Ok(serde_json::from_str::<RunInput>(input)?)
}

/// The columns [`fleet_run_row`] reads.
pub const FLEET_RUN_ROW: &str = "id, tasks, succeeded, failed, cancelled, cancel_requested, webhook_url, event_seq";

/// A fleet run's row as a task's end reads it ([`crate::domain::fleet::task_ended`]),
/// and the number of its last event.
pub fn fleet_run_row(row: &impl Columns) -> StoreResult<(crate::domain::fleet::FleetRunRow, u64)> {
    let count = |column| row.int(column).map(|n| n as u64);
    let progress = FleetProgress {
        total: count("tasks")?,
        succeeded: count("succeeded")?,
        failed: count("failed")?,
        cancelled: count("cancelled")?,
        ..Default::default()
    };
    let fleet_run = crate::domain::fleet::FleetRunRow {
        id: row.text("id")?,
        progress,
        cancel_requested: row.int("cancel_requested")? != 0,
        webhook: row.opt_text("webhook_url")?,
    };
    Ok((fleet_run, count("event_seq")?))
}

/// A session's stored shell state (`sessions.shell`). One that does not
/// decode (written by a later version, say) is read as none: the next bash
/// call starts afresh in the work_dir, which is better than a run that
/// cannot start.
pub fn shell(stored: Option<&str>) -> Option<ShellState> {
    serde_json::from_str(stored?).ok()
}

/// A shell state as `sessions.shell` stores it.
pub fn shell_text(state: &ShellState) -> StoreResult<String> {
    Ok(serde_json::to_string(state)?)
}

/// Decodes a run's stored status.
pub fn status(stored: &str) -> StoreResult<RunStatus> {
    RunStatus::parse(stored).ok_or_else(|| StoreError::internal(format!("unknown run status {stored:?}")))
}

/// Decodes a stored inbox item's kind and message.
pub fn inbox_kind(kind: &str, message: Option<String>) -> StoreResult<InboxKind> {
    InboxKind::from_stored(kind, message).ok_or_else(|| StoreError::internal(format!("unknown inbox item {kind:?}")))
}

/// Who sent an inbox item, as stored (JSON).
pub fn by_json(by: Option<&By>) -> StoreResult<Option<String>> {
    Ok(by.map(serde_json::to_string).transpose()?)
}

/// Reads who sent an inbox item back.
pub fn stored_by(stored: Option<String>) -> StoreResult<Option<By>> {
    Ok(stored.map(|json| serde_json::from_str(&json)).transpose()?)
}

/// The direction of a list's `ORDER BY` in `order`.
pub fn order_by(order: Order) -> &'static str {
    match order {
        Order::OldestFirst => "ASC",
        Order::NewestFirst => "DESC",
    }
}

/// The comparison that keeps the rows past a cursor: what comes after a row
/// in `order`.
pub fn past(order: Order) -> &'static str {
    match order {
        Order::OldestFirst => ">",
        Order::NewestFirst => "<",
    }
}

/// Decodes a definition kept whole as JSON in a `body` column (agents, fleets).
pub fn body<T: DeserializeOwned>(row: &impl Columns) -> StoreResult<T> {
    json(row, "body")
}

/// Decodes a fleet row: its `body` and whether a fleet run of it is unfinished (`running`).
pub fn fleet(row: &impl Columns) -> StoreResult<Fleet> {
    let mut fleet: Fleet = json(row, "body")?;
    fleet.status = if row.int("running")? != 0 { FleetStatus::Running } else { FleetStatus::Stopped };
    Ok(fleet)
}

/// Decodes a fleet run row with its running tasks counted (`running`).
pub fn fleet_run(row: &impl Columns) -> StoreResult<FleetRun> {
    let status = row.text("status")?;
    Ok(FleetRun {
        id: row.text("id")?,
        owner: row.text("owner")?,
        fleet_id: row.text("fleet_id")?,
        agent_id: row.text("agent_id")?,
        status: FleetRunStatus::parse(&status)
            .ok_or_else(|| StoreError::internal(format!("unknown fleet run status {status:?}")))?,
        worker_count: row.int("worker_count")? as u32,
        progress: progress(row)?,
        cancel_requested: row.int("cancel_requested")? != 0,
        created_at: at(row.int("created_at")?),
        started_at: row.opt_int("started_at")?.map(at),
        finished_at: row.opt_int("finished_at")?.map(at),
        updated_at: at(row.int("updated_at")?),
    })
}

/// Decodes a session row.
pub fn session(row: &impl Columns) -> StoreResult<Session> {
    Ok(Session {
        id: row.text("id")?,
        owner: row.text("owner")?,
        agent_id: row.opt_text("agent_id")?,
        title: row.opt_text("title")?,
        work_dir: row.text("work_dir")?,
        metadata: json(row, "metadata")?,
        added_tools: json(row, "tools")?,
        forked_from: row.opt_text("forked_from")?.map(|f| serde_json::from_str(&f)).transpose()?,
        created_at: at(row.int("created_at")?),
        updated_at: at(row.int("updated_at")?),
    })
}

/// Decodes a checkpoint row (`step, body`).
pub fn checkpoint(row: &impl Columns) -> StoreResult<Checkpoint> {
    let body: CheckpointBody = json(row, "body")?;
    Ok(Checkpoint { step: row.int("step")? as u32, body })
}

/// Decodes the counts of a fleet run row (with its `running` column).
pub fn progress(row: &impl Columns) -> StoreResult<FleetProgress> {
    let total = row.int("tasks")? as u64;
    let (succeeded, failed, cancelled) =
        (row.int("succeeded")? as u64, row.int("failed")? as u64, row.int("cancelled")? as u64);
    let running = row.int("running")? as u64;
    let queued = total.saturating_sub(succeeded + failed + cancelled + running);
    Ok(FleetProgress { total, queued, running, succeeded, failed, cancelled })
}

/// The query of every backend's `list_workers`: the 1000 workers with the
/// newest leases (live ones first; a stopped worker's lease is 0), each
/// joined with the runs it holds, and the clock (`now`) their leases are
/// judged by, which the backend supplies as its first parameter.
pub const WORKERS_SELECT: &str = "SELECT w.id, w.name, w.started_at, w.lease_expires_at, r.id AS run_id, NOW_MS AS now
     FROM (SELECT * FROM workers ORDER BY lease_expires_at DESC, id LIMIT 1000) w
     LEFT JOIN runs r ON r.worker_id = w.id AND r.status = 'running'
     ORDER BY w.lease_expires_at DESC, w.id, r.queue_seq";

/// Adds one row of [`WORKERS_SELECT`] to `workers` (rows come grouped by
/// worker): a new worker, or one more run of the last.
pub fn push_worker(workers: &mut Vec<WorkerInfo>, row: &impl Columns) -> StoreResult<()> {
    let id = row.text("id")?;
    if workers.last().is_none_or(|w| w.id != id) {
        let expires = row.int("lease_expires_at")?;
        let status = match expires {
            0 => WorkerStatus::Stopped,
            e if e > row.int("now")? => WorkerStatus::Live,
            _ => WorkerStatus::Lapsed,
        };
        workers.push(WorkerInfo {
            id,
            name: row.text("name")?,
            status,
            started_at: at(row.int("started_at")?),
            lease_expires_at: (expires != 0).then(|| at(expires)),
            runs: Vec::new(),
        });
    }
    if let (Some(worker), Some(run)) = (workers.last_mut(), row.opt_text("run_id")?) {
        worker.runs.push(run);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pool_exhausted_by_load_is_busy_not_unavailable() {
        let busy = StoreError::from(sqlx::Error::PoolTimedOut);
        assert!(matches!(busy, StoreError::Overloaded(_)) && busy.is_retryable(), "{busy:?}");
        assert!(busy.to_string().starts_with("database busy: every connection"), "{busy}");
        let lost = StoreError::from(sqlx::Error::PoolClosed);
        assert!(matches!(lost, StoreError::Unavailable(_)) && lost.is_retryable());
    }
}
