//! Decoding SQLite rows into domain types, and the conversions they need.

use chrono::{DateTime, TimeZone, Utc};
use serde::de::DeserializeOwned;
use sqlx::sqlite::SqliteRow;
use sqlx::Row;

use crate::checkpoint::{Checkpoint, CheckpointBody};
use crate::model::{Agent, Event, Run, RunKind, RunStatus, Session};
use crate::store::{StoreError, StoreResult};

impl From<sqlx::Error> for StoreError {
    fn from(e: sqlx::Error) -> Self {
        StoreError::Backend(e.to_string())
    }
}

impl From<serde_json::Error> for StoreError {
    fn from(e: serde_json::Error) -> Self {
        StoreError::Backend(format!("stored JSON is invalid: {e}"))
    }
}

/// A timestamp as stored: milliseconds since the Unix epoch.
pub fn ms(t: DateTime<Utc>) -> i64 {
    t.timestamp_millis()
}

/// A stored timestamp back as a date.
pub fn at(ms: i64) -> DateTime<Utc> {
    Utc.timestamp_millis_opt(ms).single().unwrap_or_default()
}

fn json<T: DeserializeOwned>(row: &SqliteRow, col: &str) -> StoreResult<T> {
    let text: String = row.try_get(col)?;
    Ok(serde_json::from_str(&text)?)
}

fn opt_json<T: DeserializeOwned>(row: &SqliteRow, col: &str) -> StoreResult<Option<T>> {
    let text: Option<String> = row.try_get(col)?;
    text.map(|t| serde_json::from_str(&t)).transpose().map_err(Into::into)
}

/// The columns [`run`] reads, in a `SELECT`.
pub const RUN_COLUMNS: &str = "id, kind, status, attempt, session_id, agent_id, fleet_run_id, task_index, \
     input, response, usage, steps, tool_calls, error, created_at, started_at, finished_at, updated_at";

/// Decodes a run row selected with [`RUN_COLUMNS`].
pub fn run(row: &SqliteRow) -> StoreResult<Run> {
    let status: String = row.try_get("status")?;
    let kind: String = row.try_get("kind")?;
    Ok(Run {
        id: row.try_get("id")?,
        kind: if kind == "fleet_task" { RunKind::FleetTask } else { RunKind::Message },
        status: RunStatus::parse(&status).ok_or_else(|| StoreError::Backend(format!("unknown status {status}")))?,
        attempt: row.try_get::<i64, _>("attempt")? as u32,
        session_id: row.try_get("session_id")?,
        agent_id: row.try_get("agent_id")?,
        fleet_run_id: row.try_get("fleet_run_id")?,
        task_index: row.try_get::<Option<i64>, _>("task_index")?.map(|i| i as u32),
        input: json(row, "input")?,
        response: row.try_get("response")?,
        usage: opt_json(row, "usage")?.unwrap_or_default(),
        steps: row.try_get::<i64, _>("steps")? as u32,
        tool_calls: opt_json(row, "tool_calls")?.unwrap_or_default(),
        error: row.try_get("error")?,
        created_at: at(row.try_get("created_at")?),
        started_at: row.try_get::<Option<i64>, _>("started_at")?.map(at),
        finished_at: row.try_get::<Option<i64>, _>("finished_at")?.map(at),
        updated_at: at(row.try_get("updated_at")?),
    })
}

/// Decodes an agent row (`body` holds the whole agent as JSON).
pub fn agent(row: &SqliteRow) -> StoreResult<Agent> {
    json(row, "body")
}

/// Decodes a session row.
pub fn session(row: &SqliteRow) -> StoreResult<Session> {
    Ok(Session {
        id: row.try_get("id")?,
        agent_id: row.try_get("agent_id")?,
        title: row.try_get("title")?,
        work_dir: row.try_get("work_dir")?,
        metadata: json(row, "metadata")?,
        created_at: at(row.try_get("created_at")?),
        updated_at: at(row.try_get("updated_at")?),
    })
}

/// Decodes an event row (`run_id, seq, type, data, at`).
pub fn event(row: &SqliteRow) -> StoreResult<Event> {
    Ok(Event {
        run_id: row.try_get("run_id")?,
        seq: row.try_get::<i64, _>("seq")? as u64,
        kind: row.try_get("type")?,
        data: json(row, "data")?,
        at: at(row.try_get("at")?),
    })
}

/// Decodes a checkpoint row (`step, body`).
pub fn checkpoint(row: &SqliteRow) -> StoreResult<Checkpoint> {
    let body: CheckpointBody = json(row, "body")?;
    Ok(Checkpoint { step: row.try_get::<i64, _>("step")? as u32, body })
}
