//! People in the loop on PostgreSQL: what a new message does to its
//! session's unfinished runs, runs that wait for a decision, and the inbox
//! of what people send a run. Runs' rows are locked before their sessions',
//! as everywhere.

use std::collections::HashMap;

use sqlx::PgConnection;

use super::commit::insert_checkpoints;
use super::progress::{finish, finish_with, summary_from_store};
use super::queue::{get_run, get_run_locked};
use super::Pending;
use crate::checkpoint::Checkpoint;
use crate::event::RunEvent;
use crate::model::{MultitaskStrategy, Run, RunStatus};
use crate::store::{check_decisions, InboxItem, InboxKind, StoreError, StoreResult};

/// Applies a new message's strategy to the session's unfinished runs, before
/// the message is written: `reject` refuses if there is one, `interrupt`
/// stops them (a running one at its next step boundary, the others now),
/// `rollback` cancels them now and forgets what they did.
pub async fn make_way(
    c: &mut PgConnection,
    p: &mut Pending,
    session_id: &str,
    strategy: MultitaskStrategy,
) -> StoreResult<()> {
    if strategy == MultitaskStrategy::Enqueue {
        return Ok(());
    }
    let active: Vec<(String, String)> = sqlx::query_as(
        "SELECT id, status FROM runs WHERE session_id = $1 AND status IN ('queued', 'running', 'waiting')
         ORDER BY queue_seq FOR UPDATE",
    )
    .bind(session_id)
    .fetch_all(&mut *c)
    .await?;
    for (run_id, status) in active {
        match strategy {
            MultitaskStrategy::Reject => {
                return Err(StoreError::Busy(format!(
                    "session {session_id} has an unfinished run ({run_id}, {status}); multitask_strategy is reject"
                )))
            }
            MultitaskStrategy::Interrupt if status == "running" => add(c, &run_id, &InboxKind::Interrupt).await?,
            MultitaskStrategy::Interrupt => {
                let error = Some("interrupted by a newer message".to_string());
                finish(c, p, &run_id, RunStatus::Interrupted, error).await?
            }
            MultitaskStrategy::Rollback => {
                let mut summary = summary_from_store(c, &run_id, RunStatus::Cancelled, &[]).await?;
                summary.history.clear();
                let error = Some("rolled back by a newer message".to_string());
                finish_with(c, p, &run_id, RunStatus::Cancelled, error, summary).await?;
            }
            MultitaskStrategy::Enqueue => {}
        }
    }
    Ok(())
}

/// Leaves a message in a run's inbox; a waiting run is queued again to take it.
pub async fn steer(c: &mut PgConnection, p: &mut Pending, run_id: &str, message: &str) -> StoreResult<Run> {
    let run = get_run_locked(c, run_id).await?;
    if run.status.is_terminal() {
        return Err(StoreError::Conflict(format!("run {run_id} is already {}", run.status.as_str())));
    }
    add(c, run_id, &InboxKind::Steer(message.to_string())).await?;
    if run.status == RunStatus::Waiting {
        sqlx::query("UPDATE runs SET status = 'queued', updated_at = wingman_ms() WHERE id = $1")
            .bind(run_id)
            .execute(&mut *c)
            .await?;
        p.hint();
    }
    get_run(c, run_id).await?.ok_or(StoreError::NotFound("run"))
}

/// Records decisions for a waiting run and queues it again.
pub async fn decide(
    c: &mut PgConnection,
    p: &mut Pending,
    run_id: &str,
    step: u32,
    decisions: &[Checkpoint],
    event: RunEvent,
) -> StoreResult<Run> {
    let run = get_run_locked(c, run_id).await?;
    check_decisions(&run, step, decisions)?;
    insert_checkpoints(c, decisions.iter().map(|d| (run_id, d)).collect()).await?;
    let seq: i64 = sqlx::query_scalar(
        "UPDATE runs SET status = 'queued', event_seq = event_seq + 1, updated_at = wingman_ms() WHERE id = $1
         RETURNING event_seq",
    )
    .bind(run_id)
    .fetch_one(&mut *c)
    .await?;
    p.push(run_id, seq as u64, &[event]);
    get_run(c, run_id).await?.ok_or(StoreError::NotFound("run"))
}

/// Parks runs whose workers committed that they wait for a person: no
/// worker holds them, and each resumes at a step boundary, so its next
/// attempt redoes nothing.
pub async fn wait(c: &mut PgConnection, run_ids: &[&str]) -> StoreResult<()> {
    if run_ids.is_empty() {
        return Ok(());
    }
    sqlx::query(
        "UPDATE runs SET status = 'waiting', worker_id = NULL, handed_back = 1, updated_at = wingman_ms()
         WHERE id = ANY($1)",
    )
    .bind(run_ids)
    .execute(&mut *c)
    .await?;
    Ok(())
}

/// Removes the inbox items commits took in.
pub async fn take_delivered<'a>(
    c: &mut PgConnection,
    delivered: impl Iterator<Item = (&'a str, &'a [u64])>,
) -> StoreResult<()> {
    let (mut runs, mut taken) = (Vec::new(), Vec::new());
    for (run_id, seqs) in delivered {
        for seq in seqs {
            runs.push(run_id);
            taken.push(*seq as i64);
        }
    }
    if taken.is_empty() {
        return Ok(());
    }
    sqlx::query("DELETE FROM run_inbox WHERE (run_id, seq) IN (SELECT * FROM UNNEST($1::text[], $2::bigint[]))")
        .bind(&runs)
        .bind(&taken)
        .execute(&mut *c)
        .await?;
    Ok(())
}

/// A run's inbox, oldest first.
pub async fn read_inbox(c: &mut PgConnection, run_id: &str) -> StoreResult<Vec<InboxItem>> {
    let mut inboxes = read_inboxes(c, &[run_id.to_string()]).await?;
    Ok(inboxes.remove(run_id).unwrap_or_default())
}

/// The inboxes of several runs, each oldest first; runs with an empty one
/// are left out.
pub async fn read_inboxes(c: &mut PgConnection, run_ids: &[String]) -> StoreResult<HashMap<String, Vec<InboxItem>>> {
    let rows: Vec<(String, i64, String, Option<String>)> =
        sqlx::query_as("SELECT run_id, seq, kind, message FROM run_inbox WHERE run_id = ANY($1) ORDER BY seq")
            .bind(run_ids)
            .fetch_all(&mut *c)
            .await?;
    let mut inboxes: HashMap<String, Vec<InboxItem>> = HashMap::new();
    for (run_id, seq, kind, message) in rows {
        let item = InboxItem { seq: seq as u64, kind: InboxKind::from_stored(&kind, message)? };
        inboxes.entry(run_id).or_default().push(item);
    }
    Ok(inboxes)
}

async fn add(c: &mut PgConnection, run_id: &str, kind: &InboxKind) -> StoreResult<()> {
    sqlx::query("INSERT INTO run_inbox (run_id, kind, message, created_at) VALUES ($1, $2, $3, wingman_ms())")
        .bind(run_id)
        .bind(kind.as_str())
        .bind(kind.message())
        .execute(&mut *c)
        .await?;
    Ok(())
}
