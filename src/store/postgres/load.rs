//! Reading what a worker needs to execute runs, from one snapshot.

use std::collections::HashMap;

use sqlx::postgres::PgPool;
use sqlx::PgConnection;

use crate::domain::checkpoint::Checkpoint;
use crate::domain::history::{History, HistoryCache, HistoryRow};
use crate::store::rows::{self, Columns};
use crate::store::{agent_snapshots, RunContext, StoreError, StoreResult};

/// Loads the contexts of `run_ids`, in order, in one repeatable-read
/// transaction, so that every part comes from the same snapshot. A statement
/// per kind of row for the whole batch (the runs, their sessions'
/// histories, their checkpoints, their inboxes), not per run: a worker
/// loads a claimed batch of up to its free slots at once.
pub async fn run_contexts(pool: &PgPool, run_ids: &[String], histories: &HistoryCache) -> StoreResult<Vec<RunContext>> {
    let mut tx = super::begin_snapshot(pool).await?;
    let mut contexts = Vec::with_capacity(run_ids.len());
    let (mut rows, rewinds) = runs(&mut tx, run_ids).await?;
    for run_id in run_ids {
        contexts.push(rows.remove(run_id).ok_or(StoreError::NotFound("run"))?);
    }
    let mut sessions: Vec<String> = contexts.iter().filter_map(|c| c.run.session_id.clone()).collect();
    sessions.sort_unstable();
    sessions.dedup();
    let rewinds_of = |s: &String| rewinds.get(s).copied().unwrap_or(0);
    let known: Vec<History> = sessions.iter().map(|s| histories.known(s, rewinds_of(s))).collect();
    let mut rows = rows_after(&mut tx, &sessions, &known).await?;
    let checkpoints = all_checkpoints(&mut tx, run_ids).await?;
    // Inboxes are nearly always empty: one statement for the whole batch.
    let inboxes = super::people::read_inboxes(&mut tx, run_ids).await?;
    tx.commit().await?;
    // Every message written by runs that ended earlier (a run writes its
    // own when it ends, after which it is never executed again).
    let mut loaded = HashMap::with_capacity(sessions.len());
    for (session, known) in sessions.into_iter().zip(known) {
        let history = known.extended(rows.remove(&session).unwrap_or_default());
        histories.keep(&session, rewinds_of(&session), &history);
        loaded.insert(session, history);
    }
    for context in &mut contexts {
        let id = context.run.id.clone();
        if let Some(history) = context.run.session_id.as_ref().and_then(|s| loaded.get(s)) {
            context.history = history.clone();
        }
        context.checkpoints = checkpoints.get(&id).cloned().unwrap_or_default();
        context.inbox = inboxes.get(&id).cloned().unwrap_or_default();
    }
    Ok(contexts)
}

/// The runs' rows, each as a context still without its history,
/// checkpoints and inbox, but with the shell state its session keeps (a
/// column of one row, found by its key); and how many times each session
/// was rewound.
async fn runs(
    c: &mut PgConnection,
    run_ids: &[String],
) -> StoreResult<(HashMap<String, RunContext>, HashMap<String, i64>)> {
    let found = sqlx::query(&format!(
        "SELECT {}, {}, work_dir, open_step, handed_back,
                (SELECT s.shell FROM sessions s WHERE s.id = runs.session_id) AS shell,
                (SELECT s.rewinds FROM sessions s WHERE s.id = runs.session_id) AS rewinds
         FROM runs WHERE id = ANY($1)",
        rows::RUN_COLUMNS,
        agent_snapshots::AGENT_COLUMN
    ))
    .bind(run_ids)
    .fetch_all(&mut *c)
    .await?;
    let mut contexts = HashMap::with_capacity(found.len());
    let mut rewinds = HashMap::new();
    for row in &found {
        let run = rows::run(row)?;
        if let (Some(session_id), Some(count)) = (&run.session_id, row.opt_int("rewinds")?) {
            rewinds.insert(session_id.clone(), count);
        }
        let agent = agent_snapshots::parse(&row.text("agent")?)?;
        let context = RunContext {
            agent,
            work_dir: row.text("work_dir")?,
            open_step: row.opt_int("open_step")?.map(|s| s as u32),
            handed_back: row.int("handed_back")? != 0,
            resumed: run.attempt > 1,
            history: History::default(),
            checkpoints: Vec::new(),
            inbox: Vec::new(),
            shell: rows::shell(row.opt_text("shell")?.as_deref()),
            run,
        };
        contexts.insert(context.run.id.clone(), context);
    }
    Ok((contexts, rewinds))
}

/// The lookups by a batch of keys probe the index once per key: a lateral
/// subquery per key, kept from being flattened into a join by `OFFSET 0`.
/// `key = ANY($1)`, or a plain join with the keys, lets the planner scan the
/// whole table instead, which it costs as cheap while the table's statistics
/// lag behind its growth (a young database); then every load read every
/// row, and these loads were the costliest statements of a burn-down.
/// A row holds the messages one run added (migration 9). Each session's
/// rows are read after the last one its known history holds.
async fn rows_after(
    c: &mut PgConnection,
    sessions: &[String],
    known: &[History],
) -> StoreResult<HashMap<String, Vec<HistoryRow>>> {
    let after: Vec<i64> = known.iter().map(History::last_row).collect();
    let found: Vec<(String, i64, String)> = sqlx::query_as(
        "SELECT u.id, m.idx, m.messages FROM UNNEST($1::text[], $2::bigint[]) AS u(id, after)
         CROSS JOIN LATERAL (SELECT messages, idx FROM session_messages
                             WHERE session_id = u.id AND idx > u.after AND branch = 0 OFFSET 0) m
         ORDER BY u.id, m.idx",
    )
    .bind(sessions)
    .bind(&after)
    .fetch_all(&mut *c)
    .await?;
    let mut rows: HashMap<String, Vec<HistoryRow>> = HashMap::new();
    for (session_id, idx, messages) in found {
        rows.entry(session_id).or_default().push(HistoryRow { idx, messages: serde_json::from_str(&messages)? });
    }
    Ok(rows)
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
