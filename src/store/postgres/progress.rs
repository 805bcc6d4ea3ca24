//! A run's progress on PostgreSQL: fenced commits of checkpoints and events,
//! and ending a run (its summary, `done`, history and the session's turn).

use sqlx::PgConnection;

use super::queue::get_run;
use super::{fleet, load, Pending};
use crate::checkpoint::{summarize, Checkpoint, RunSummary};
use crate::event::RunEvent;
use crate::model::{Message, Run, RunInput, RunStatus};
use crate::store::task_end::EndedTask;
use crate::store::{Commit, Effect, Finish, Lease, StoreError, StoreResult};

/// Reserves event numbers for a run if, and only if, the lease is still
/// held, and records the resume facts the write changes; returns the first
/// reserved number. The first statement of every fenced write: it locks the
/// run's row, and a rescue that took the run meanwhile has raised its epoch.
pub async fn fence(c: &mut PgConnection, lease: &Lease, effect: Effect) -> StoreResult<u64> {
    let (moves_step, open_step) = match effect.open_step {
        Some(step) => (true, step.map(i64::from)),
        None => (false, None),
    };
    let last: Option<i64> = sqlx::query_scalar(
        "UPDATE runs SET event_seq = event_seq + $1, updated_at = wingman_ms(),
                progressed = CASE WHEN $5 THEN 1 ELSE progressed END,
                open_step = CASE WHEN $6 THEN $7 ELSE open_step END
         WHERE id = $2 AND status = 'running' AND lease_epoch = $3 AND worker_id = $4
           AND EXISTS (SELECT 1 FROM workers WHERE id = $4 AND lease_expires_at > wingman_ms())
         RETURNING event_seq",
    )
    .bind(effect.events as i64)
    .bind(&lease.run_id)
    .bind(lease.epoch as i64)
    .bind(&lease.worker_id)
    .bind(effect.progressed)
    .bind(moves_step)
    .bind(open_step)
    .fetch_optional(&mut *c)
    .await?;
    let last = last.ok_or(StoreError::Fenced)?;
    Ok(last as u64 - effect.events + 1)
}

/// Writes a worker's progress under its lease, or nothing at all.
pub async fn commit(c: &mut PgConnection, p: &mut Pending, lease: &Lease, commit: Commit) -> StoreResult<()> {
    let mut events = commit.events;
    let finish = match &commit.finish {
        Some(Finish { status, error, summary }) => {
            let summary = match summary {
                Some(summary) => summary.clone(),
                None => summary_from_store(c, &lease.run_id, *status, &commit.checkpoints).await?,
            };
            events.push(RunEvent::done(*status, error.clone(), &summary));
            Some((*status, error.clone(), summary))
        }
        None => None,
    };
    let first = fence(c, lease, Effect::of(&commit.checkpoints, &events)).await?;
    insert_checkpoints(c, &lease.run_id, &commit.checkpoints).await?;
    p.push(&lease.run_id, first, &events);
    if let Some((status, error, summary)) = finish {
        end_run(c, p, &lease.run_id, status, &error, &summary).await?;
    }
    Ok(())
}

async fn insert_checkpoints(c: &mut PgConnection, run_id: &str, checkpoints: &[Checkpoint]) -> StoreResult<()> {
    if checkpoints.is_empty() {
        return Ok(());
    }
    let steps: Vec<i64> = checkpoints.iter().map(|cp| cp.step as i64).collect();
    let kinds: Vec<&str> = checkpoints.iter().map(|cp| cp.kind()).collect();
    let call_ids: Vec<String> = checkpoints.iter().map(|cp| cp.call_id()).collect();
    let bodies = checkpoints.iter().map(|cp| serde_json::to_string(&cp.body)).collect::<Result<Vec<_>, _>>()?;
    sqlx::query(
        "INSERT INTO checkpoints (run_id, step, kind, call_id, body, created_at)
         SELECT $1, s, k, i, b, wingman_ms() FROM UNNEST($2::bigint[], $3::text[], $4::text[], $5::text[]) AS u(s, k, i, b)",
    )
    .bind(run_id)
    .bind(&steps)
    .bind(&kinds)
    .bind(&call_ids)
    .bind(&bodies)
    .execute(&mut *c)
    .await?;
    Ok(())
}

/// Summarises a run from its stored checkpoints plus `pending` ones not yet written.
async fn summary_from_store(
    c: &mut PgConnection,
    run_id: &str,
    status: RunStatus,
    pending: &[Checkpoint],
) -> StoreResult<RunSummary> {
    let input: String =
        sqlx::query_scalar("SELECT input FROM runs WHERE id = $1").bind(run_id).fetch_one(&mut *c).await?;
    let input: RunInput = serde_json::from_str(&input)?;
    let mut checkpoints = load::checkpoints(c, run_id).await?;
    checkpoints.extend(pending.iter().cloned());
    Ok(summarize(&input, &checkpoints, status))
}

/// Ends a run outside a worker's commit (cancel, a run out of attempts, a
/// deleted session). The caller holds, or here takes, the run's row lock.
pub async fn finish(
    c: &mut PgConnection,
    p: &mut Pending,
    run_id: &str,
    status: RunStatus,
    error: Option<String>,
) -> StoreResult<()> {
    let seq: i64 = sqlx::query_scalar(
        "UPDATE runs SET event_seq = event_seq + 1, updated_at = wingman_ms() WHERE id = $1 RETURNING event_seq",
    )
    .bind(run_id)
    .fetch_one(&mut *c)
    .await?;
    let summary = summary_from_store(c, run_id, status, &[]).await?;
    p.push(run_id, seq as u64, &[RunEvent::done(status, error.clone(), &summary)]);
    end_run(c, p, run_id, status, &error, &summary).await
}

/// The terminal state of a run: its summary, its messages appended to the
/// session's history, and, if it held the session's turn, the turn passed
/// on (under the session's row lock, which enqueue takes too).
async fn end_run(
    c: &mut PgConnection,
    p: &mut Pending,
    run_id: &str,
    status: RunStatus,
    error: &Option<String>,
    summary: &RunSummary,
) -> StoreResult<()> {
    let (session_id, blocked, fleet_run_id, task_index, input): (
        Option<String>,
        i64,
        Option<String>,
        Option<i64>,
        String,
    ) = sqlx::query_as(
        "UPDATE runs SET status = $2, response = $3, usage = $4, steps = $5, tool_calls = $6, error = $7,
                    finished_at = wingman_ms(), updated_at = wingman_ms(), worker_id = NULL
             WHERE id = $1 RETURNING session_id, blocked, fleet_run_id, task_index, input",
    )
    .bind(run_id)
    .bind(status.as_str())
    .bind(&summary.response)
    .bind(serde_json::to_string(&summary.usage)?)
    .bind(summary.steps as i64)
    .bind(serde_json::to_string(&summary.tool_calls)?)
    .bind(error)
    .fetch_one(&mut *c)
    .await?;
    if let (Some(fleet_run_id), Some(task_index)) = (&fleet_run_id, task_index) {
        let task = EndedTask {
            run_id,
            session_id: session_id.as_deref(),
            fleet_run_id,
            task_index: task_index as u32,
            blocked: blocked != 0,
            input: &input,
            status,
            error,
            summary,
        };
        fleet::task_ended(c, p, task).await?;
    }
    let Some(session_id) = session_id else { return Ok(()) };
    sqlx::query("SELECT 1 FROM sessions WHERE id = $1 FOR UPDATE").bind(&session_id).execute(&mut *c).await?;
    append_history(c, &session_id, run_id, &summary.history).await?;
    // A task is the first run of its own session, so it always holds the
    // session's turn: its `blocked` is about its fleet's slots.
    if blocked == 0 || fleet_run_id.is_some() {
        sqlx::query(
            "UPDATE runs SET blocked = 0 WHERE queue_seq =
               (SELECT MIN(queue_seq) FROM runs WHERE session_id = $1 AND status = 'queued' AND blocked = 1)",
        )
        .bind(&session_id)
        .execute(&mut *c)
        .await?;
    }
    Ok(())
}

/// Appends messages to a session's history, numbered after its last one.
async fn append_history(c: &mut PgConnection, session_id: &str, run_id: &str, messages: &[Message]) -> StoreResult<()> {
    if messages.is_empty() {
        return Ok(());
    }
    let texts = messages.iter().map(serde_json::to_string).collect::<Result<Vec<_>, _>>()?;
    sqlx::query(
        "INSERT INTO session_messages (session_id, idx, run_id, message, created_at)
         SELECT $1, (SELECT COALESCE(MAX(idx), 0) FROM session_messages WHERE session_id = $1) + ord, $2, m, wingman_ms()
         FROM UNNEST($3::text[]) WITH ORDINALITY AS u(m, ord)",
    )
    .bind(session_id)
    .bind(run_id)
    .bind(&texts)
    .execute(&mut *c)
    .await?;
    Ok(())
}

/// Cancels a run that has not ended; a finished one is a conflict.
pub async fn cancel(c: &mut PgConnection, p: &mut Pending, id: &str) -> StoreResult<Run> {
    sqlx::query("SELECT 1 FROM runs WHERE id = $1 FOR UPDATE").bind(id).execute(&mut *c).await?;
    let run = get_run(c, id).await?.ok_or(StoreError::NotFound("run"))?;
    if run.status.is_terminal() {
        return Err(StoreError::Conflict(format!("run {id} is already {}", run.status.as_str())));
    }
    finish(c, p, id, RunStatus::Cancelled, Some("cancelled".into())).await?;
    get_run(c, id).await?.ok_or(StoreError::NotFound("run"))
}
