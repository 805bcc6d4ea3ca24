//! People in the loop on PostgreSQL: what a new message does to its
//! session's unfinished runs, runs that wait for a decision, and the inbox
//! of what people send a run. Runs' rows are locked before their sessions',
//! as everywhere.

use std::collections::HashMap;

use sqlx::PgConnection;

use super::commit::insert_checkpoints;
use super::progress::finish;
use super::queue::{get_run, get_run_locked};
use super::Pending;
use crate::domain::access::By;
use crate::domain::checkpoint::Checkpoint;
use crate::domain::event::RunEvent;
use crate::domain::lifecycle::{self, InboxItem, InboxKind, MakeWay};
use crate::domain::model::{MultitaskStrategy, Run};
use crate::store::rows;
use crate::store::{StoreError, StoreResult};

/// Carries out a new message's strategy for the session's unfinished runs
/// ([`lifecycle::make_way`]), before the message is written.
pub async fn make_way(
    c: &mut PgConnection,
    p: &mut Pending,
    session_id: &str,
    strategy: MultitaskStrategy,
) -> StoreResult<()> {
    if !lifecycle::reads_unfinished(strategy) {
        return Ok(());
    }
    let rows: Vec<(String, String)> = sqlx::query_as(
        "SELECT id, status FROM runs WHERE session_id = $1 AND status IN ('queued', 'running', 'waiting')
         ORDER BY queue_seq FOR UPDATE",
    )
    .bind(session_id)
    .fetch_all(&mut *c)
    .await?;
    let unfinished =
        rows.into_iter().map(|(id, status)| Ok((id, rows::status(&status)?))).collect::<StoreResult<Vec<_>>>()?;
    for step in lifecycle::make_way(strategy, session_id, &unfinished)? {
        match step {
            MakeWay::Interrupt { run_id } => add(c, &run_id, &InboxKind::Interrupt, None).await?,
            MakeWay::End { run_id, reason } => finish(c, p, &run_id, &reason).await?,
        }
    }
    Ok(())
}

/// Leaves a message in a run's inbox; a waiting run is queued again to take it.
pub async fn steer(c: &mut PgConnection, p: &mut Pending, run_id: &str, message: &str, by: &By) -> StoreResult<Run> {
    let run = get_run_locked(c, run_id).await?;
    let steer = lifecycle::steer(&run, message)?;
    add(c, run_id, &steer.item, Some(by)).await?;
    if steer.requeue {
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
    answers: &[Checkpoint],
    events: &[RunEvent],
) -> StoreResult<Run> {
    let run = get_run_locked(c, run_id).await?;
    lifecycle::decide(&run, step, answers)?;
    insert_checkpoints(c, answers.iter().map(|d| (run_id, d)).collect()).await?;
    let last: i64 = sqlx::query_scalar(
        "UPDATE runs SET status = 'queued', event_seq = event_seq + $2, updated_at = wingman_ms() WHERE id = $1
         RETURNING event_seq",
    )
    .bind(run_id)
    .bind(events.len() as i64)
    .fetch_one(&mut *c)
    .await?;
    p.push(run_id, (last as u64 + 1).saturating_sub(events.len() as u64), events);
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

/// An inbox row as read: its run, number, kind, message and sender (JSON).
type InboxRow = (String, i64, String, Option<String>, Option<String>);

/// The inboxes of several runs, each oldest first; runs with an empty one
/// are left out.
pub async fn read_inboxes(c: &mut PgConnection, run_ids: &[String]) -> StoreResult<HashMap<String, Vec<InboxItem>>> {
    let rows: Vec<InboxRow> =
        sqlx::query_as("SELECT run_id, seq, kind, message, by_json FROM run_inbox WHERE run_id = ANY($1) ORDER BY seq")
            .bind(run_ids)
            .fetch_all(&mut *c)
            .await?;
    let mut inboxes: HashMap<String, Vec<InboxItem>> = HashMap::new();
    for (run_id, seq, kind, message, by) in rows {
        let item = InboxItem { seq: seq as u64, kind: rows::inbox_kind(&kind, message)?, by: rows::stored_by(by)? };
        inboxes.entry(run_id).or_default().push(item);
    }
    Ok(inboxes)
}

async fn add(c: &mut PgConnection, run_id: &str, kind: &InboxKind, by: Option<&By>) -> StoreResult<()> {
    sqlx::query(
        "INSERT INTO run_inbox (run_id, kind, message, by_json, created_at) VALUES ($1, $2, $3, $4, wingman_ms())",
    )
    .bind(run_id)
    .bind(kind.as_str())
    .bind(kind.message())
    .bind(rows::by_json(by)?)
    .execute(&mut *c)
    .await?;
    Ok(())
}
