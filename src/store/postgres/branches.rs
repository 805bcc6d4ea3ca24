//! Rewind and fork on PostgreSQL ([`crate::domain::branch`]): what a
//! session's history rows say, and the writes that set rows aside or copy
//! them. A write locks the session's row first, as a run's end and an
//! enqueue do, so none of them interleaves with it; each is one transaction.

use sqlx::PgConnection;

use super::{resources, Pending};
use crate::domain::branch::{self, Branch, HistoryAt, Lineage, RewindTo, RunRows, SessionFacts};
use crate::domain::model::{ForkedFrom, Message, Session};
use crate::domain::retry::Reused;
use crate::store::rows::at;
use crate::store::{StoreError, StoreResult};

/// What the rules need of a session; `NotFound` when there is none. With
/// `lock`, the session's row is locked first.
async fn facts(c: &mut PgConnection, session_id: &str, lock: bool) -> StoreResult<SessionFacts> {
    let sql =
        if lock { "SELECT 1 FROM sessions WHERE id = $1 FOR UPDATE" } else { "SELECT 1 FROM sessions WHERE id = $1" };
    let found: Option<i32> = sqlx::query_scalar(sql).bind(session_id).fetch_optional(&mut *c).await?;
    found.ok_or(StoreError::NotFound("session"))?;
    let (top, last_live, active_run): (i64, i64, Option<String>) = sqlx::query_as(
        "SELECT (SELECT COALESCE(MAX(idx), 0) FROM session_messages WHERE session_id = $1),
                (SELECT COALESCE(MAX(idx), 0) FROM session_messages WHERE session_id = $1 AND branch = 0),
                (SELECT id FROM runs WHERE session_id = $1 AND status IN ('queued','running','waiting')
                 ORDER BY queue_seq LIMIT 1)",
    )
    .bind(session_id)
    .fetch_one(&mut *c)
    .await?;
    let tops: Vec<i64> =
        sqlx::query_scalar("SELECT top_idx FROM session_branches WHERE session_id = $1 ORDER BY branch")
            .bind(session_id)
            .fetch_all(&mut *c)
            .await?;
    Ok(SessionFacts { session_id: session_id.to_string(), top, last_live, tops, active_run })
}

/// A run's rows ([`RunRows`]), read with whether the run is the session's.
async fn run_rows(c: &mut PgConnection, session_id: &str, run_id: &str) -> StoreResult<Option<RunRows>> {
    let (first, last, branch, owned): (Option<i64>, Option<i64>, Option<i64>, bool) = sqlx::query_as(
        "SELECT MIN(idx), MAX(idx), MAX(branch),
                EXISTS(SELECT 1 FROM runs WHERE id = $2 AND session_id = $1)
         FROM session_messages WHERE session_id = $1 AND run_id = $2",
    )
    .bind(session_id)
    .bind(run_id)
    .fetch_one(&mut *c)
    .await?;
    match (first, last, branch) {
        (Some(first), Some(last), Some(branch)) => Ok(Some(RunRows { first, last, branch })),
        _ if owned => Ok(None),
        _ => Err(StoreError::NotFound("run")),
    }
}

/// [`branch::lineage`], with the named run's rows read first.
async fn lineage(c: &mut PgConnection, facts: &SessionFacts, at: &HistoryAt) -> StoreResult<Lineage> {
    let rows = match at.run_id() {
        Some(run_id) => run_rows(c, &facts.session_id, run_id).await?,
        None => None,
    };
    branch::lineage(facts, at, rows)?.ok_or(StoreError::NotFound(at.missing()))
}

/// [`crate::store::Store::session_history_at`], from one snapshot. A row
/// holds the messages one run added (migration 9).
pub async fn history_at(c: &mut PgConnection, session_id: &str, at: &HistoryAt) -> StoreResult<Vec<Message>> {
    let facts = facts(c, session_id, false).await?;
    let lineage = lineage(c, &facts, at).await?;
    let rows: Vec<String> = sqlx::query_scalar(
        "SELECT messages FROM session_messages
         WHERE session_id = $1 AND idx <= $2 AND (branch = 0 OR branch > $3) ORDER BY idx",
    )
    .bind(session_id)
    .bind(lineage.through)
    .bind(lineage.set_aside)
    .fetch_all(&mut *c)
    .await?;
    let mut history = Vec::new();
    for row in &rows {
        history.extend(serde_json::from_str::<Vec<Message>>(row)?);
    }
    Ok(history)
}

/// [`crate::store::Store::fork_session`], in the caller's transaction.
pub async fn fork(c: &mut PgConnection, fork: &Session, from: &str, at: Option<&str>) -> StoreResult<Session> {
    let facts = facts(c, from, true).await?;
    let at = at.map_or(HistoryAt::Live, |run_id| HistoryAt::AfterRun(run_id.to_string()));
    let lineage = lineage(c, &facts, &at).await?;
    let run_id = match at {
        HistoryAt::AfterRun(run_id) => Some(run_id),
        _ => last_run(c, from, lineage).await?,
    };
    let mut fork = fork.clone();
    fork.forked_from = Some(ForkedFrom { session_id: from.to_string(), run_id });
    resources::insert_session(c, &fork).await?;
    sqlx::query(
        "INSERT INTO session_messages (session_id, idx, run_id, messages, created_at)
         SELECT $1, ROW_NUMBER() OVER (ORDER BY idx), run_id, messages, created_at FROM session_messages
         WHERE session_id = $2 AND idx <= $3 AND (branch = 0 OR branch > $4)",
    )
    .bind(&fork.id)
    .bind(from)
    .bind(lineage.through)
    .bind(lineage.set_aside)
    .execute(&mut *c)
    .await?;
    Ok(fork)
}

/// The run of the newest row of `lineage`.
async fn last_run(c: &mut PgConnection, session_id: &str, lineage: Lineage) -> StoreResult<Option<String>> {
    let found: Option<Option<String>> = sqlx::query_scalar(
        "SELECT run_id FROM session_messages
         WHERE session_id = $1 AND idx <= $2 AND (branch = 0 OR branch > $3) ORDER BY idx DESC LIMIT 1",
    )
    .bind(session_id)
    .bind(lineage.through)
    .bind(lineage.set_aside)
    .fetch_optional(&mut *c)
    .await?;
    Ok(found.flatten())
}

/// [`crate::store::Store::rewind_session`], in the caller's transaction.
pub async fn rewind(c: &mut PgConnection, session_id: &str, to: &RewindTo) -> StoreResult<Option<Branch>> {
    let facts = facts(c, session_id, true).await?;
    let rows = run_rows(c, session_id, to.run_id()).await?;
    let Some(rewind) = branch::rewind(&facts, to, rows)? else { return Ok(None) };
    let after_run_id = last_run(c, session_id, Lineage::live(rewind.cut, facts.rewinds())).await?;
    sqlx::query("UPDATE session_messages SET branch = $1 WHERE session_id = $2 AND branch = 0 AND idx > $3")
        .bind(rewind.branch)
        .bind(session_id)
        .bind(rewind.cut)
        .execute(&mut *c)
        .await?;
    sqlx::query(
        "INSERT INTO session_branches (session_id, branch, cut_idx, top_idx, after_run_id, created_at)
         VALUES ($1, $2, $3, $4, $5, wingman_ms())",
    )
    .bind(session_id)
    .bind(rewind.branch)
    .bind(rewind.cut)
    .bind(rewind.top)
    .bind(&after_run_id)
    .execute(&mut *c)
    .await?;
    sqlx::query("UPDATE sessions SET rewinds = rewinds + 1, updated_at = wingman_ms() WHERE id = $1")
        .bind(session_id)
        .execute(&mut *c)
        .await?;
    let listed = branches(c, session_id).await?;
    Ok(listed.into_iter().find(|b| b.branch == rewind.branch))
}

/// Writes a retry's checkpoints and its `step_reused` events, queued in
/// `p` to be written with the transaction's other events.
pub async fn reuse(c: &mut PgConnection, p: &mut Pending, run_id: &str, reused: &Reused) -> StoreResult<()> {
    super::commit::insert_checkpoints(c, reused.checkpoints.iter().map(|cp| (run_id, cp)).collect()).await?;
    let last: i64 = sqlx::query_scalar("UPDATE runs SET event_seq = event_seq + $2 WHERE id = $1 RETURNING event_seq")
        .bind(run_id)
        .bind(reused.events.len() as i64)
        .fetch_one(&mut *c)
        .await?;
    p.push(run_id, (last as u64 + 1).saturating_sub(reused.events.len() as u64), &reused.events);
    Ok(())
}

/// [`crate::store::Store::session_branches`], a row holding a run's
/// messages as a JSON array.
pub async fn branches(c: &mut PgConnection, session_id: &str) -> StoreResult<Vec<Branch>> {
    let listed: Vec<(i64, Option<String>, i64)> = sqlx::query_as(
        "SELECT branch, after_run_id, created_at FROM session_branches WHERE session_id = $1 ORDER BY branch",
    )
    .bind(session_id)
    .fetch_all(&mut *c)
    .await?;
    let mut listed: Vec<Branch> = listed
        .into_iter()
        .map(|(branch, after_run_id, created_at)| Branch {
            branch,
            after_run_id,
            runs: Vec::new(),
            messages: 0,
            created_at: at(created_at),
        })
        .collect();
    let found: Vec<(i64, Option<String>, i64)> = sqlx::query_as(
        "SELECT branch, run_id, SUM(json_array_length(messages::json))::bigint FROM session_messages
         WHERE session_id = $1 AND branch > 0 GROUP BY branch, run_id ORDER BY branch, MIN(idx)",
    )
    .bind(session_id)
    .fetch_all(&mut *c)
    .await?;
    branch::tally(&mut listed, found);
    Ok(listed)
}
