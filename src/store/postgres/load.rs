//! Reading what a worker needs to execute runs, from one snapshot.

use sqlx::postgres::PgPool;
use sqlx::PgConnection;

use crate::checkpoint::Checkpoint;
use crate::model::{Agent, Message};
use crate::store::rows::{self, Columns};
use crate::store::{RunContext, StoreError, StoreResult};

/// Loads the contexts of `run_ids`, in order, in one repeatable-read
/// transaction, so that every part comes from the same snapshot.
pub async fn run_contexts(pool: &PgPool, run_ids: &[String]) -> StoreResult<Vec<RunContext>> {
    let mut tx = super::begin(pool).await?;
    sqlx::query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY").execute(&mut *tx).await?;
    let mut contexts = Vec::with_capacity(run_ids.len());
    for run_id in run_ids {
        contexts.push(run_context(&mut tx, run_id).await?);
    }
    // Inboxes are nearly always empty: one statement for the whole batch.
    let mut inboxes = super::people::read_inboxes(&mut tx, run_ids).await?;
    for context in &mut contexts {
        context.inbox = inboxes.remove(&context.run.id).unwrap_or_default();
    }
    tx.commit().await?;
    Ok(contexts)
}

async fn run_context(c: &mut PgConnection, run_id: &str) -> StoreResult<RunContext> {
    let row = sqlx::query(&format!(
        "SELECT {}, agent, work_dir, open_step, handed_back FROM runs WHERE id = $1",
        rows::RUN_COLUMNS
    ))
    .bind(run_id)
    .fetch_optional(&mut *c)
    .await?
    .ok_or(StoreError::NotFound("run"))?;
    let run = rows::run(&row)?;
    let agent: Agent = serde_json::from_str(&row.text("agent")?)?;
    let work_dir = row.text("work_dir")?;
    let open_step = row.opt_int("open_step")?.map(|s| s as u32);
    let handed_back = row.int("handed_back")? != 0;
    let history = match &run.session_id {
        Some(session_id) => history_before(c, session_id, run_id).await?,
        None => Vec::new(),
    };
    let checkpoints = checkpoints(c, run_id).await?;
    let resumed = run.attempt > 1;
    let inbox = Vec::new();
    Ok(RunContext { run, agent, work_dir, history, checkpoints, open_step, resumed, handed_back, inbox })
}

/// The history before this run: every message written by runs that ended earlier.
async fn history_before(c: &mut PgConnection, session_id: &str, run_id: &str) -> StoreResult<Vec<Message>> {
    let texts: Vec<String> = sqlx::query_scalar(
        "SELECT message FROM session_messages WHERE session_id = $1 AND (run_id IS NULL OR run_id <> $2) ORDER BY idx",
    )
    .bind(session_id)
    .bind(run_id)
    .fetch_all(&mut *c)
    .await?;
    texts.iter().map(|t| Ok(serde_json::from_str(t)?)).collect()
}

/// A run's stored checkpoints, in the order they were made.
pub async fn checkpoints(c: &mut PgConnection, run_id: &str) -> StoreResult<Vec<Checkpoint>> {
    let found = sqlx::query("SELECT step, body FROM checkpoints WHERE run_id = $1 ORDER BY step, created_at, call_id")
        .bind(run_id)
        .fetch_all(&mut *c)
        .await?;
    found.iter().map(rows::checkpoint).collect()
}
