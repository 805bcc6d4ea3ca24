//! Reading what a worker needs to execute runs, from one snapshot.

use std::collections::HashMap;

use sqlx::postgres::PgPool;
use sqlx::PgConnection;

use crate::checkpoint::Checkpoint;
use crate::model::{Agent, Message};
use crate::store::rows::{self, Columns};
use crate::store::{RunContext, StoreError, StoreResult};

/// Loads the contexts of `run_ids`, in order, in one repeatable-read
/// transaction, so that every part comes from the same snapshot. A statement
/// per kind of row for the whole batch (the runs, their sessions'
/// histories, their checkpoints, their inboxes), not per run: a worker
/// loads a claimed batch of up to its free slots at once.
pub async fn run_contexts(pool: &PgPool, run_ids: &[String]) -> StoreResult<Vec<RunContext>> {
    let mut tx = super::begin(pool).await?;
    sqlx::query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY").execute(&mut *tx).await?;
    let mut contexts = Vec::with_capacity(run_ids.len());
    let mut rows = runs(&mut tx, run_ids).await?;
    for run_id in run_ids {
        contexts.push(rows.remove(run_id).ok_or(StoreError::NotFound("run"))?);
    }
    let mut sessions: Vec<String> = contexts.iter().filter_map(|c| c.run.session_id.clone()).collect();
    sessions.sort_unstable();
    sessions.dedup();
    let mut histories = histories(&mut tx, &sessions).await?;
    let checkpoints = all_checkpoints(&mut tx, run_ids).await?;
    // Inboxes are nearly always empty: one statement for the whole batch.
    let inboxes = super::people::read_inboxes(&mut tx, run_ids).await?;
    tx.commit().await?;
    for context in &mut contexts {
        let id = context.run.id.clone();
        if let Some(history) = context.run.session_id.as_ref().and_then(|s| histories.get_mut(s)) {
            // Every message written by runs that ended earlier: not this run's own.
            context.history = history
                .iter()
                .filter(|(by, _)| by.as_deref() != Some(&id))
                .flat_map(|(_, messages)| messages.iter().cloned())
                .collect();
        }
        context.checkpoints = checkpoints.get(&id).cloned().unwrap_or_default();
        context.inbox = inboxes.get(&id).cloned().unwrap_or_default();
    }
    Ok(contexts)
}

/// The runs' rows, each as a context still without its history,
/// checkpoints and inbox, but with the shell state its session keeps (a
/// column of one row, found by its key).
async fn runs(c: &mut PgConnection, run_ids: &[String]) -> StoreResult<HashMap<String, RunContext>> {
    let found = sqlx::query(&format!(
        "SELECT {}, agent, work_dir, open_step, handed_back,
                (SELECT s.shell FROM sessions s WHERE s.id = runs.session_id) AS shell
         FROM runs WHERE id = ANY($1)",
        rows::RUN_COLUMNS
    ))
    .bind(run_ids)
    .fetch_all(&mut *c)
    .await?;
    let mut contexts = HashMap::with_capacity(found.len());
    for row in &found {
        let run = rows::run(row)?;
        let agent: Agent = serde_json::from_str(&row.text("agent")?)?;
        let context = RunContext {
            agent,
            work_dir: row.text("work_dir")?,
            open_step: row.opt_int("open_step")?.map(|s| s as u32),
            handed_back: row.int("handed_back")? != 0,
            resumed: run.attempt > 1,
            history: Vec::new(),
            checkpoints: Vec::new(),
            inbox: Vec::new(),
            shell: rows::shell(row.opt_text("shell")?.as_deref()),
            run,
        };
        contexts.insert(context.run.id.clone(), context);
    }
    Ok(contexts)
}

/// Each session's history in order, as the messages each run wrote.
type Histories = HashMap<String, Vec<(Option<String>, Vec<Message>)>>;

/// The lookups by a batch of keys probe the index once per key: a lateral
/// subquery per key, kept from being flattened into a join by `OFFSET 0`.
/// `key = ANY($1)`, or a plain join with the keys, lets the planner scan the
/// whole table instead, which it costs as cheap while the table's statistics
/// lag behind its growth (a young database); then every load read every
/// row, and these loads were the costliest statements of a burn-down.
/// A row holds the messages one run added (migration 9).
async fn histories(c: &mut PgConnection, sessions: &[String]) -> StoreResult<Histories> {
    let found: Vec<(String, Option<String>, String)> = sqlx::query_as(
        "SELECT u.id, m.run_id, m.messages FROM UNNEST($1::text[]) AS u(id)
         CROSS JOIN LATERAL (SELECT run_id, messages, idx FROM session_messages WHERE session_id = u.id OFFSET 0) m
         ORDER BY u.id, m.idx",
    )
    .bind(sessions)
    .fetch_all(&mut *c)
    .await?;
    let mut histories: Histories = HashMap::new();
    for (session_id, run_id, messages) in found {
        histories.entry(session_id).or_default().push((run_id, serde_json::from_str(&messages)?));
    }
    Ok(histories)
}

/// The runs' stored checkpoints, each run's in the order they were made.
async fn all_checkpoints(c: &mut PgConnection, run_ids: &[String]) -> StoreResult<HashMap<String, Vec<Checkpoint>>> {
    // A lateral join for the reason given at `histories`.
    let found = sqlx::query(
        "SELECT c.run_id, c.step, c.body FROM UNNEST($1::text[]) AS u(id)
         CROSS JOIN LATERAL (SELECT run_id, step, body, created_at, call_id FROM checkpoints WHERE run_id = u.id OFFSET 0) c
         ORDER BY c.run_id, c.step, c.created_at, c.call_id",
    )
    .bind(run_ids)
    .fetch_all(&mut *c)
    .await?;
    let mut all: HashMap<String, Vec<Checkpoint>> = HashMap::new();
    for row in &found {
        all.entry(row.text("run_id")?).or_default().push(rows::checkpoint(row)?);
    }
    Ok(all)
}

/// A run's stored checkpoints, in the order they were made.
pub async fn checkpoints(c: &mut PgConnection, run_id: &str) -> StoreResult<Vec<Checkpoint>> {
    let mut all = all_checkpoints(c, &[run_id.to_string()]).await?;
    Ok(all.remove(run_id).unwrap_or_default())
}
