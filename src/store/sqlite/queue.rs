//! The queue's writes: enqueue, claim and hand-back. Each function runs
//! inside the writer's transaction.

use chrono::{DateTime, Utc};
use serde_json::{json, Value};
use sqlx::sqlite::SqliteConnection;
use sqlx::Row;

use super::progress::{fence, finish, insert_events};
use super::rows::{self, ms};
use crate::model::{NewEvent, Run, RunStatus};
use crate::store::{Claim, Enqueued, HandBack, IdempotencyKey, Lease, NewRun, StoreError, StoreResult};

/// Statuses of a run that still holds its session's turn.
const ACTIVE: &str = "('queued','running','waiting')";

pub async fn enqueue(conn: &mut SqliteConnection, new: NewRun, key: Option<IdempotencyKey>) -> StoreResult<Enqueued> {
    if let Some(key) = &key {
        let found = sqlx::query("SELECT request_hash, run_id FROM idempotency_keys WHERE scope = ? AND key = ?")
            .bind(&key.scope)
            .bind(&key.key)
            .fetch_optional(&mut *conn)
            .await?;
        if let Some(row) = found {
            let hash: String = row.try_get("request_hash")?;
            if hash != key.request_hash {
                return Err(StoreError::Conflict(
                    "this Idempotency-Key was already used with a different request".into(),
                ));
            }
            let run_id: String = row.try_get("run_id")?;
            let run = get_run(&mut *conn, &run_id).await?.ok_or(StoreError::NotFound("run"))?;
            return Ok(Enqueued { run, created: false });
        }
    }
    let mut blocked = false;
    if let Some(session_id) = &new.session_id {
        let row = sqlx::query(&format!(
            "SELECT EXISTS(SELECT 1 FROM sessions WHERE id = ?1) AS present,
                    EXISTS(SELECT 1 FROM runs INDEXED BY runs_session
                           WHERE session_id = ?1 AND status IN {ACTIVE}) AS busy"
        ))
        .bind(session_id)
        .fetch_one(&mut *conn)
        .await?;
        if !row.try_get::<bool, _>("present")? {
            return Err(StoreError::NotFound("session"));
        }
        blocked = row.try_get("busy")?;
    }
    let at = Utc::now();
    let now = ms(at);
    sqlx::query(
        "INSERT INTO runs (id, kind, status, blocked, session_id, agent_id, agent, input, work_dir,
                           max_attempts, event_seq, created_at, updated_at)
         VALUES (?, ?, 'queued', ?, ?, ?, ?, ?, ?, ?, 1, ?, ?)",
    )
    .bind(&new.id)
    .bind(new.kind.as_str())
    .bind(blocked)
    .bind(&new.session_id)
    .bind(&new.agent.id)
    .bind(serde_json::to_string(&new.agent)?)
    .bind(serde_json::to_string(&new.input)?)
    .bind(&new.work_dir)
    .bind(new.max_attempts as i64)
    .bind(now)
    .bind(now)
    .execute(&mut *conn)
    .await?;
    let queued = NewEvent::new(
        "run_queued",
        json!({"kind": new.kind.as_str(), "session_id": new.session_id, "agent_id": new.agent.id}),
    );
    insert_events(conn, &new.id, 1, &[queued], at).await?;
    if let Some(key) = &key {
        sqlx::query(
            "INSERT INTO idempotency_keys (scope, key, request_hash, run_id, created_at) VALUES (?, ?, ?, ?, ?)",
        )
        .bind(&key.scope)
        .bind(&key.key)
        .bind(&key.request_hash)
        .bind(&new.id)
        .bind(now)
        .execute(&mut *conn)
        .await?;
    }
    let run = get_run(&mut *conn, &new.id).await?.ok_or(StoreError::NotFound("run"))?;
    Ok(Enqueued { run, created: true })
}

/// Reads a run, in the writer's transaction or from the read pool.
pub async fn get_run<'e>(exec: impl sqlx::SqliteExecutor<'e>, id: &str) -> StoreResult<Option<Run>> {
    let row = sqlx::query(&format!("SELECT {} FROM runs WHERE id = ?", rows::RUN_COLUMNS))
        .bind(id)
        .fetch_optional(exec)
        .await?;
    row.as_ref().map(rows::run).transpose()
}

/// Claims runs for a worker: first those whose worker's lease expired (they
/// resume), then queued runs at the head of their session, oldest first.
pub async fn claim(
    conn: &mut SqliteConnection,
    worker_id: &str,
    limit: u32,
    now: DateTime<Utc>,
) -> StoreResult<Vec<Claim>> {
    // A worker whose own lease lapsed must not claim: its runs are orphans now,
    // and claiming them under the same id would run one twice in one process.
    let live: Option<i64> = sqlx::query_scalar("SELECT 1 FROM workers WHERE id = ? AND lease_expires_at > ?")
        .bind(worker_id)
        .bind(ms(now))
        .fetch_optional(&mut *conn)
        .await?;
    if live.is_none() {
        return Err(StoreError::Fenced);
    }
    let mut started = Vec::new();
    let orphans = sqlx::query(
        "SELECT id, attempt, max_attempts FROM runs INDEXED BY runs_running
         WHERE status = 'running' AND NOT EXISTS
           (SELECT 1 FROM workers w WHERE w.id = runs.worker_id AND w.lease_expires_at > ?)
         ORDER BY queue_seq LIMIT ?",
    )
    .bind(ms(now))
    .bind(limit as i64)
    .fetch_all(&mut *conn)
    .await?;
    for row in orphans {
        let id: String = row.try_get("id")?;
        let attempt: i64 = row.try_get("attempt")?;
        let max_attempts: i64 = row.try_get("max_attempts")?;
        if attempt >= max_attempts {
            let error = format!(
                "gave up after {attempt} attempts: each time, the worker running it stopped renewing its lease"
            );
            finish(conn, &id, RunStatus::Failed, Some(error), None, now).await?;
            continue;
        }
        let row = sqlx::query(
            "UPDATE runs SET worker_id = ?, lease_epoch = lease_epoch + 1, attempt = attempt + 1, updated_at = ?,
                    event_seq = event_seq + 1
             WHERE id = ? RETURNING id, lease_epoch, attempt, event_seq",
        )
        .bind(worker_id)
        .bind(ms(now))
        .bind(&id)
        .fetch_one(&mut *conn)
        .await?;
        started.push(claimed(&row, worker_id)?);
    }
    let room = limit.saturating_sub(started.len() as u32);
    let queued = sqlx::query(
        "UPDATE runs SET status = 'running', worker_id = ?1, lease_epoch = lease_epoch + 1, attempt = attempt + 1,
                started_at = COALESCE(started_at, ?2), updated_at = ?2, event_seq = event_seq + 1
         WHERE queue_seq IN (SELECT queue_seq FROM runs INDEXED BY runs_ready
                             WHERE status = 'queued' AND blocked = 0 ORDER BY queue_seq LIMIT ?3)
         RETURNING id, lease_epoch, attempt, event_seq",
    )
    .bind(worker_id)
    .bind(ms(now))
    .bind(room as i64)
    .fetch_all(&mut *conn)
    .await?;
    for row in &queued {
        started.push(claimed(row, worker_id)?);
    }
    write_started(conn, &started, now).await?;
    Ok(started.into_iter().map(|(claim, _)| claim).collect())
}

/// Reads a claimed row (`RETURNING id, lease_epoch, attempt, event_seq`).
fn claimed(row: &sqlx::sqlite::SqliteRow, worker_id: &str) -> StoreResult<(Claim, u64)> {
    let claim = Claim {
        lease: Lease {
            run_id: row.try_get("id")?,
            worker_id: worker_id.to_string(),
            epoch: row.try_get::<i64, _>("lease_epoch")? as u64,
        },
        attempt: row.try_get::<i64, _>("attempt")? as u32,
    };
    Ok((claim, row.try_get::<i64, _>("event_seq")? as u64))
}

/// Writes `run_started` for every claimed run in one statement (each number
/// was reserved by the claim's update), so every attempt shows in the log
/// even if it crashes before its first step ends.
async fn write_started(conn: &mut SqliteConnection, started: &[(Claim, u64)], now: DateTime<Utc>) -> StoreResult<()> {
    if started.is_empty() {
        return Ok(());
    }
    let rows: Vec<Value> = started
        .iter()
        .map(|(c, seq)| {
            json!({"run_id": c.lease.run_id, "seq": seq,
                   "data": {"attempt": c.attempt, "worker_id": c.lease.worker_id}})
        })
        .collect();
    sqlx::query(
        "INSERT INTO run_events (run_id, seq, type, data, at)
         SELECT value ->> '$.run_id', value ->> '$.seq', 'run_started', value -> '$.data', ?1
         FROM json_each(?2) ORDER BY key",
    )
    .bind(ms(now))
    .bind(serde_json::to_string(&rows)?)
    .execute(&mut *conn)
    .await?;
    Ok(())
}
/// Puts a run back in the queue, uncharged, if the lease is still held, and
/// says so in its log: `run_handed_back` tells the next attempt that nothing
/// was in flight.
pub async fn release(conn: &mut SqliteConnection, lease: &Lease, how: HandBack, now: DateTime<Utc>) -> StoreResult<()> {
    let seq = fence(conn, lease, 1, now).await?;
    let (interrupted, reason) = match how {
        HandBack::AtStepBoundary => (false, "the worker shut down between steps"),
        HandBack::Interrupted => (true, "the worker shut down and its grace period ran out mid-step"),
    };
    let event = NewEvent::new("run_handed_back", json!({"interrupted": interrupted, "reason": reason}));
    insert_events(conn, &lease.run_id, seq, &[event], now).await?;
    sqlx::query(
        "UPDATE runs SET status = 'queued', worker_id = NULL, attempt = MAX(attempt - 1, 0), updated_at = ? WHERE id = ?",
    )
    .bind(ms(now))
    .bind(&lease.run_id)
    .execute(&mut *conn)
    .await?;
    Ok(())
}
