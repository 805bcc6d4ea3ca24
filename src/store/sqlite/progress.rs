//! A run's progress: fenced commits of checkpoints and events, and ending a
//! run. Each function runs inside the writer's transaction.
//!
//! Statements are few on purpose: each is a round trip to the connection's
//! thread (~125 µs on a small VM), so events, checkpoints and history
//! messages are each written by one `INSERT … SELECT … FROM json_each(?)`,
//! whatever their number, and a worker's commit is one script.

use chrono::{DateTime, Utc};
use serde_json::{json, Value};
use sqlx::sqlite::SqliteConnection;
use sqlx::Row;

use super::queue::get_run;
use super::rows::{self, ms};
use crate::checkpoint::{summarize, Checkpoint, RunSummary};
use crate::model::{Message, NewEvent, Run, RunInput, RunStatus};
use crate::store::{Commit, Finish, Lease, StoreError, StoreResult};

/// Writes events numbered from `first_seq`, in one statement.
pub async fn insert_events(
    conn: &mut SqliteConnection,
    run_id: &str,
    first_seq: u64,
    events: &[NewEvent],
    now: DateTime<Utc>,
) -> StoreResult<()> {
    if events.is_empty() {
        return Ok(());
    }
    let rows: Vec<Value> = events.iter().map(|e| json!({"type": e.kind, "data": e.data})).collect();
    sqlx::query(
        "INSERT INTO run_events (run_id, seq, type, data, at)
         SELECT ?1, ?2 + key, value ->> '$.type', value -> '$.data', ?3 FROM json_each(?4) ORDER BY key",
    )
    .bind(run_id)
    .bind(first_seq as i64)
    .bind(ms(now))
    .bind(serde_json::to_string(&rows)?)
    .execute(&mut *conn)
    .await?;
    Ok(())
}

/// Reserves `count` event numbers for a run if, and only if, the lease is
/// still held. Returns the first reserved number.
pub async fn fence(conn: &mut SqliteConnection, lease: &Lease, count: u64, now: DateTime<Utc>) -> StoreResult<u64> {
    let row = sqlx::query(
        "UPDATE runs SET event_seq = event_seq + ?1, updated_at = ?2
         WHERE id = ?3 AND status = 'running' AND lease_epoch = ?4 AND worker_id = ?5
           AND EXISTS (SELECT 1 FROM workers WHERE id = ?5 AND lease_expires_at > ?2)
         RETURNING event_seq",
    )
    .bind(count as i64)
    .bind(ms(now))
    .bind(&lease.run_id)
    .bind(lease.epoch as i64)
    .bind(&lease.worker_id)
    .fetch_optional(&mut *conn)
    .await?;
    let last: i64 = row.ok_or(StoreError::Fenced)?.try_get(0)?;
    Ok(last as u64 - count + 1)
}

/// The fenced part of every commit. `temp.fence` (created with the write
/// connection) records whether the fence held and the first reserved event
/// number; every later statement writes only if it held.
///
/// Parameters are `$N`, never `?N`, in scripts: SQLite leaves unnamed gaps
/// in a statement's `?N` parameter list, and sqlx's binder counts those gaps
/// across the statements of a script until it stops binding (the rest become
/// NULL). `$N` parameters are numbered without gaps and bound by name.
const COMMIT_SCRIPT: &str = "
DELETE FROM temp.fence;
UPDATE runs SET event_seq = event_seq + $1, updated_at = $2
 WHERE id = $3 AND status = 'running' AND lease_epoch = $4 AND worker_id = $5
   AND EXISTS (SELECT 1 FROM workers WHERE id = $5 AND lease_expires_at > $2);
INSERT INTO temp.fence (ok, first_seq) SELECT changes(), (SELECT event_seq FROM runs WHERE id = $3) - $1 + 1;
INSERT INTO checkpoints (run_id, step, kind, call_id, body, created_at)
 SELECT $3, value ->> '$.step', value ->> '$.kind', value ->> '$.call_id', value -> '$.body', $2
 FROM json_each($6), temp.fence WHERE fence.ok = 1 ORDER BY key;
INSERT INTO run_events (run_id, seq, type, data, at)
 SELECT $3, fence.first_seq + key, value ->> '$.type', value -> '$.data', $2
 FROM json_each($7), temp.fence WHERE fence.ok = 1 ORDER BY key;
";

/// Ending the run, appended to [`COMMIT_SCRIPT`] when the commit finishes it.
const FINISH_SCRIPT: &str = "
UPDATE runs SET status = $8, response = $9, usage = $10, steps = $11, tool_calls = $12, error = $13,
       finished_at = $2, worker_id = NULL, blocked = 0
 WHERE id = $3 AND (SELECT ok FROM temp.fence) = 1;
WITH base AS MATERIALIZED (
  SELECT r.session_id AS session_id, COALESCE(MAX(m.idx), 0) AS last
  FROM runs r LEFT JOIN session_messages m ON m.session_id = r.session_id WHERE r.id = $3)
INSERT INTO session_messages (session_id, idx, run_id, message, created_at)
 SELECT base.session_id, base.last + key + 1, $3, value, $2
 FROM json_each($14), base, temp.fence WHERE fence.ok = 1 AND base.session_id IS NOT NULL ORDER BY key;
UPDATE runs SET blocked = 0 WHERE (SELECT ok FROM temp.fence) = 1 AND queue_seq =
  (SELECT MIN(queue_seq) FROM runs INDEXED BY runs_session WHERE status = 'queued' AND blocked = 1
     AND session_id = (SELECT session_id FROM runs WHERE id = $3));
";

/// Writes a worker's progress under its lease — nothing at all if the lease
/// is gone — in one round trip to the connection: the statements run as one
/// script, each after the fence applying only if the fence held.
pub async fn commit(conn: &mut SqliteConnection, lease: &Lease, commit: Commit, now: DateTime<Utc>) -> StoreResult<()> {
    let mut events = commit.events;
    let finish = match commit.finish {
        Some(Finish { status, error, summary }) => {
            let summary = match summary {
                Some(summary) => summary,
                None => summary_from_store(conn, &lease.run_id, status, &commit.checkpoints).await?,
            };
            events.push(done_event(status, &error, &summary));
            Some((status, error, summary))
        }
        None => None,
    };
    let rows: Vec<Value> = events.iter().map(|e| json!({"type": e.kind, "data": e.data})).collect();
    let cps: Vec<Value> = commit
        .checkpoints
        .iter()
        .map(|c| json!({"step": c.step, "kind": c.kind(), "call_id": c.call_id(), "body": c.body}))
        .collect();
    let script = match finish {
        Some(_) => format!("{COMMIT_SCRIPT}{FINISH_SCRIPT}SELECT ok FROM temp.fence;"),
        None => format!("{COMMIT_SCRIPT}SELECT ok FROM temp.fence;"),
    };
    let mut query = sqlx::query_scalar::<_, i64>(&script)
        .bind(events.len() as i64)
        .bind(ms(now))
        .bind(&lease.run_id)
        .bind(lease.epoch as i64)
        .bind(&lease.worker_id)
        .bind(serde_json::to_string(&cps)?)
        .bind(serde_json::to_string(&rows)?);
    if let Some((status, error, summary)) = &finish {
        query = query
            .bind(status.as_str())
            .bind(summary.response.clone())
            .bind(serde_json::to_string(&summary.usage)?)
            .bind(summary.steps as i64)
            .bind(serde_json::to_string(&summary.tool_calls)?)
            .bind(error.clone())
            .bind(serde_json::to_string(&summary.history)?);
    }
    // fetch_all, not fetch_one: every statement of the script must run.
    let applied = query.fetch_all(&mut *conn).await?;
    match applied.as_slice() {
        [1] => Ok(()),
        [0] => Err(StoreError::Fenced),
        other => Err(StoreError::Backend(format!("unexpected fence result {other:?}"))),
    }
}

/// Summarises a run from its stored checkpoints plus `pending` ones not yet written.
async fn summary_from_store(
    conn: &mut SqliteConnection,
    run_id: &str,
    status: RunStatus,
    pending: &[Checkpoint],
) -> StoreResult<RunSummary> {
    let input: String =
        sqlx::query_scalar("SELECT input FROM runs WHERE id = ?").bind(run_id).fetch_one(&mut *conn).await?;
    let input: RunInput = serde_json::from_str(&input)?;
    let mut checkpoints = load_checkpoints(conn, run_id).await?;
    checkpoints.extend(pending.iter().cloned());
    Ok(summarize(&input, &checkpoints, status))
}

pub async fn load_checkpoints(conn: &mut SqliteConnection, run_id: &str) -> StoreResult<Vec<Checkpoint>> {
    let found = sqlx::query("SELECT step, body FROM checkpoints WHERE run_id = ? ORDER BY step, created_at, call_id")
        .bind(run_id)
        .fetch_all(&mut *conn)
        .await?;
    found.iter().map(rows::checkpoint).collect()
}

/// The `done` event of a run that ends with `status`.
fn done_event(status: RunStatus, error: &Option<String>, summary: &RunSummary) -> NewEvent {
    let mut done = json!({
        "status": status.as_str(),
        "response": summary.response,
        "usage": summary.usage,
        "steps": summary.steps,
    });
    if let Some(error) = error {
        done["error"] = Value::String(error.clone());
    }
    NewEvent::new("done", done)
}

/// Ends a run: its summary, the `done` event, its messages in the session
/// history, and the turn passed to the next run of the session. Without a
/// `summary` from the caller, it is computed from the stored checkpoints.
pub async fn finish(
    conn: &mut SqliteConnection,
    run_id: &str,
    status: RunStatus,
    error: Option<String>,
    summary: Option<RunSummary>,
    now: DateTime<Utc>,
) -> StoreResult<()> {
    let summary = match summary {
        Some(summary) => summary,
        None => summary_from_store(conn, run_id, status, &[]).await?,
    };
    let row = sqlx::query(
        "UPDATE runs SET status = ?, response = ?, usage = ?, steps = ?, tool_calls = ?, error = ?,
                finished_at = ?, updated_at = ?, worker_id = NULL, blocked = 0, event_seq = event_seq + 1
         WHERE id = ? RETURNING event_seq, session_id",
    )
    .bind(status.as_str())
    .bind(&summary.response)
    .bind(serde_json::to_string(&summary.usage)?)
    .bind(summary.steps as i64)
    .bind(serde_json::to_string(&summary.tool_calls)?)
    .bind(&error)
    .bind(ms(now))
    .bind(ms(now))
    .bind(run_id)
    .fetch_one(&mut *conn)
    .await?;
    let seq: i64 = row.try_get("event_seq")?;
    let session_id: Option<String> = row.try_get("session_id")?;
    insert_events(conn, run_id, seq as u64, &[done_event(status, &error, &summary)], now).await?;
    if let Some(session_id) = session_id {
        append_history(conn, &session_id, run_id, &summary.history, now).await?;
        sqlx::query(
            "UPDATE runs SET blocked = 0 WHERE queue_seq =
               (SELECT MIN(queue_seq) FROM runs INDEXED BY runs_session
                WHERE session_id = ? AND status = 'queued' AND blocked = 1)",
        )
        .bind(&session_id)
        .execute(&mut *conn)
        .await?;
    }
    Ok(())
}

/// Appends messages to a session's history, numbered after its last one.
async fn append_history(
    conn: &mut SqliteConnection,
    session_id: &str,
    run_id: &str,
    messages: &[Message],
    now: DateTime<Utc>,
) -> StoreResult<()> {
    if messages.is_empty() {
        return Ok(());
    }
    // The base is read once, before any row is inserted (MATERIALIZED).
    sqlx::query(
        "WITH base AS MATERIALIZED (SELECT COALESCE(MAX(idx), 0) AS last FROM session_messages WHERE session_id = ?1)
         INSERT INTO session_messages (session_id, idx, run_id, message, created_at)
         SELECT ?1, base.last + key + 1, ?2, value, ?3 FROM json_each(?4), base ORDER BY key",
    )
    .bind(session_id)
    .bind(run_id)
    .bind(ms(now))
    .bind(serde_json::to_string(messages)?)
    .execute(&mut *conn)
    .await?;
    Ok(())
}

/// Cancels a run that has not ended; a finished one is a conflict.
pub async fn cancel(conn: &mut SqliteConnection, id: &str, now: DateTime<Utc>) -> StoreResult<Run> {
    let run = get_run(&mut *conn, id).await?.ok_or(StoreError::NotFound("run"))?;
    if run.status.is_terminal() {
        return Err(StoreError::Conflict(format!("run {id} is already {}", run.status.as_str())));
    }
    finish(conn, id, RunStatus::Cancelled, Some("cancelled".into()), None, now).await?;
    get_run(&mut *conn, id).await?.ok_or(StoreError::NotFound("run"))
}
