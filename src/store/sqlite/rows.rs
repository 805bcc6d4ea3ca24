//! Decoding SQLite rows into domain types, and the conversions they need.
//!
//! Rows come from two places: the read pool (sqlx) and the writer's own
//! connection (rusqlite). [`Columns`] lets one decoder serve both.

use chrono::{DateTime, TimeZone, Utc};
use serde::de::DeserializeOwned;
use sqlx::sqlite::SqliteRow;
use sqlx::Row;

use crate::checkpoint::{Checkpoint, CheckpointBody};
use crate::model::{Event, Fleet, FleetRun, FleetRunStatus, FleetStatus, Run, RunKind, RunStatus, Session};
use crate::store::{StoreError, StoreResult};

impl From<sqlx::Error> for StoreError {
    fn from(e: sqlx::Error) -> Self {
        let busy = match &e {
            sqlx::Error::Io(_) | sqlx::Error::PoolTimedOut | sqlx::Error::PoolClosed | sqlx::Error::WorkerCrashed => {
                true
            }
            // SQLITE_BUSY (5) and SQLITE_LOCKED (6), with their extended codes.
            sqlx::Error::Database(db) => {
                db.code().and_then(|c| c.parse::<i32>().ok()).is_some_and(|c| matches!(c & 0xff, 5 | 6))
            }
            _ => false,
        };
        if busy {
            StoreError::Unavailable(Box::new(e))
        } else {
            StoreError::Internal(Box::new(e))
        }
    }
}

impl From<rusqlite::Error> for StoreError {
    fn from(e: rusqlite::Error) -> Self {
        use rusqlite::ErrorCode::*;
        // The database was locked by another process, or the disk failed or
        // filled: nothing of this write happened, and it may work next time.
        match e.sqlite_error_code() {
            Some(DatabaseBusy | DatabaseLocked | SystemIoFailure | DiskFull | CannotOpen) => {
                StoreError::Unavailable(Box::new(e))
            }
            _ => StoreError::Internal(Box::new(e)),
        }
    }
}

/// Reading a column by name, whichever driver produced the row.
pub trait Columns {
    fn text(&self, col: &str) -> StoreResult<String>;
    fn opt_text(&self, col: &str) -> StoreResult<Option<String>>;
    fn int(&self, col: &str) -> StoreResult<i64>;
    fn opt_int(&self, col: &str) -> StoreResult<Option<i64>>;
}

impl Columns for SqliteRow {
    fn text(&self, col: &str) -> StoreResult<String> {
        Ok(self.try_get(col)?)
    }
    fn opt_text(&self, col: &str) -> StoreResult<Option<String>> {
        Ok(self.try_get(col)?)
    }
    fn int(&self, col: &str) -> StoreResult<i64> {
        Ok(self.try_get(col)?)
    }
    fn opt_int(&self, col: &str) -> StoreResult<Option<i64>> {
        Ok(self.try_get(col)?)
    }
}

impl Columns for rusqlite::Row<'_> {
    fn text(&self, col: &str) -> StoreResult<String> {
        Ok(self.get(col)?)
    }
    fn opt_text(&self, col: &str) -> StoreResult<Option<String>> {
        Ok(self.get(col)?)
    }
    fn int(&self, col: &str) -> StoreResult<i64> {
        Ok(self.get(col)?)
    }
    fn opt_int(&self, col: &str) -> StoreResult<Option<i64>> {
        Ok(self.get(col)?)
    }
}

/// Decodes every row a query on an in-thread connection returns.
pub fn all<T>(
    mut found: rusqlite::Rows<'_>,
    mut decode: impl FnMut(&rusqlite::Row<'_>) -> StoreResult<T>,
) -> StoreResult<Vec<T>> {
    let mut out = Vec::new();
    while let Some(row) = found.next()? {
        out.push(decode(row)?);
    }
    Ok(out)
}

/// A timestamp as stored: milliseconds since the Unix epoch.
pub fn ms(t: DateTime<Utc>) -> i64 {
    t.timestamp_millis()
}

/// A stored timestamp back as a date.
pub fn at(ms: i64) -> DateTime<Utc> {
    Utc.timestamp_millis_opt(ms).single().unwrap_or_default()
}

fn json<T: DeserializeOwned>(row: &impl Columns, col: &str) -> StoreResult<T> {
    Ok(serde_json::from_str(&row.text(col)?)?)
}

fn opt_json<T: DeserializeOwned>(row: &impl Columns, col: &str) -> StoreResult<Option<T>> {
    row.opt_text(col)?.map(|t| serde_json::from_str(&t)).transpose().map_err(Into::into)
}

/// The columns [`run`] reads, in a `SELECT`.
pub const RUN_COLUMNS: &str = "id, kind, status, attempt, session_id, agent_id, fleet_run_id, task_index, \
     input, response, usage, steps, tool_calls, error, created_at, started_at, finished_at, updated_at";

/// Decodes a run row selected with [`RUN_COLUMNS`].
pub fn run(row: &impl Columns) -> StoreResult<Run> {
    let status = row.text("status")?;
    let kind = row.text("kind")?;
    Ok(Run {
        id: row.text("id")?,
        kind: if kind == "fleet_task" { RunKind::FleetTask } else { RunKind::Message },
        status: RunStatus::parse(&status).ok_or_else(|| StoreError::internal(format!("unknown status {status}")))?,
        attempt: row.int("attempt")? as u32,
        session_id: row.opt_text("session_id")?,
        agent_id: row.text("agent_id")?,
        fleet_run_id: row.opt_text("fleet_run_id")?,
        task_index: row.opt_int("task_index")?.map(|i| i as u32),
        input: json(row, "input")?,
        response: row.opt_text("response")?,
        usage: opt_json(row, "usage")?.unwrap_or_default(),
        steps: row.int("steps")? as u32,
        tool_calls: opt_json(row, "tool_calls")?.unwrap_or_default(),
        error: row.opt_text("error")?,
        created_at: at(row.int("created_at")?),
        started_at: row.opt_int("started_at")?.map(at),
        finished_at: row.opt_int("finished_at")?.map(at),
        updated_at: at(row.int("updated_at")?),
    })
}

/// Decodes a definition kept whole as JSON in a `body` column (agents, fleets).
pub fn body<T: DeserializeOwned>(row: &impl Columns) -> StoreResult<T> {
    json(row, "body")
}

/// A fleet's definition and whether one of its fleet runs is unfinished.
pub const FLEET_SELECT: &str = "SELECT body, EXISTS(SELECT 1 FROM fleet_runs INDEXED BY fleet_runs_open
     WHERE fleet_runs.fleet_id = fleets.id AND fleet_runs.status IN ('queued', 'running')) AS running FROM fleets";

/// Decodes a fleet row selected with [`FLEET_SELECT`].
pub fn fleet(row: &impl Columns) -> StoreResult<Fleet> {
    let mut fleet: Fleet = json(row, "body")?;
    fleet.status = if row.int("running")? != 0 { FleetStatus::Running } else { FleetStatus::Stopped };
    Ok(fleet)
}

/// Decodes a fleet run row selected with [`super::fleet::SELECT`].
pub fn fleet_run(row: &impl Columns) -> StoreResult<FleetRun> {
    let status = row.text("status")?;
    Ok(FleetRun {
        id: row.text("id")?,
        fleet_id: row.text("fleet_id")?,
        agent_id: row.text("agent_id")?,
        status: FleetRunStatus::parse(&status)
            .ok_or_else(|| StoreError::internal(format!("unknown fleet run status {status:?}")))?,
        worker_count: row.int("worker_count")? as u32,
        progress: super::fleet::progress(row)?,
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
        agent_id: row.opt_text("agent_id")?,
        title: row.opt_text("title")?,
        work_dir: row.text("work_dir")?,
        metadata: json(row, "metadata")?,
        created_at: at(row.int("created_at")?),
        updated_at: at(row.int("updated_at")?),
    })
}

/// Decodes an event row (`run_id, seq, type, data, at`).
pub fn event(row: &impl Columns) -> StoreResult<Event> {
    Ok(Event {
        run_id: row.text("run_id")?,
        seq: row.int("seq")? as u64,
        kind: row.text("type")?,
        data: json(row, "data")?,
        at: at(row.int("at")?),
    })
}

/// Decodes a checkpoint row (`step, body`).
pub fn checkpoint(row: &impl Columns) -> StoreResult<Checkpoint> {
    let body: CheckpointBody = json(row, "body")?;
    Ok(Checkpoint { step: row.int("step")? as u32, body })
}
