//! Sub-agents' runs on PostgreSQL ([`crate::domain::lifecycle::child_ended`] and
//! its kin): started by their parent's commit, their ends written into the
//! parent under its row lock, and cancelled with it.
//!
//! A parent is always older than its children (it wrote them), so queue
//! order puts a parent's row before its children's. A cancel locks the
//! parent, then the children it ends; a child's end takes its parent's lock
//! after its own, against that order, so the writes that end children lock
//! the parents first where they can ([`lock_with_parents`]).

use futures_util::future::BoxFuture;
use sqlx::{PgConnection, Row};

use super::commit::insert_checkpoints;
use super::progress::finish;
use super::queue::insert_runs;
use super::resources::insert_session;
use super::Pending;
use crate::domain::lifecycle::{self, ChildEnd, EndReason, NewChild, ParentRow, TaskRun};
use crate::store::{rows, StoreResult};

/// Locks runs' rows and their parents', in queue order (parents first).
pub async fn lock_with_parents(c: &mut PgConnection, ids: &[&str]) -> StoreResult<()> {
    sqlx::query(
        "SELECT 1 FROM runs
         WHERE id = ANY($1::text[] || ARRAY(SELECT parent_run_id FROM runs WHERE id = ANY($1) AND parent_run_id IS NOT NULL))
         ORDER BY queue_seq FOR UPDATE",
    )
    .bind(ids)
    .execute(&mut *c)
    .await?;
    Ok(())
}

/// Inserts the sub-agents' runs of one parent's commit, in a few statements:
/// their sessions, their runs (queued, with the parent's `max_attempts`,
/// naming parent and call), and how many the parent now waits for.
pub async fn start(c: &mut PgConnection, p: &mut Pending, parent_id: &str, children: &[NewChild]) -> StoreResult<()> {
    if children.is_empty() {
        return Ok(());
    }
    let max_attempts: i64 =
        sqlx::query_scalar("SELECT max_attempts FROM runs WHERE id = $1").bind(parent_id).fetch_one(&mut *c).await?;
    let mut runs = Vec::with_capacity(children.len());
    for child in children {
        insert_session(c, &child.session).await?;
        let run = child.run(max_attempts as u32);
        let queued = lifecycle::queued(&run, None);
        runs.push(TaskRun { run, blocked: false, queued });
    }
    insert_runs(c, p, &runs, None).await?;
    let ids: Vec<&str> = children.iter().map(|child| child.run_id.as_str()).collect();
    let calls: Vec<&str> = children.iter().map(NewChild::call_id).collect();
    sqlx::query(
        "UPDATE runs SET parent_run_id = $1, parent_call_id = u.call
         FROM UNNEST($2::text[], $3::text[]) AS u(id, call) WHERE runs.id = u.id",
    )
    .bind(parent_id)
    .bind(&ids)
    .bind(&calls)
    .execute(&mut *c)
    .await?;
    sqlx::query("UPDATE runs SET children_open = children_open + $2 WHERE id = $1")
        .bind(parent_id)
        .bind(children.len() as i64)
        .execute(&mut *c)
        .await?;
    Ok(())
}

/// Parks runs for their sub-agents: each `waiting`, or queued again if its
/// children have all ended ([`lifecycle::parks_as`]).
pub async fn park(c: &mut PgConnection, p: &mut Pending, run_ids: &[&str]) -> StoreResult<()> {
    if run_ids.is_empty() {
        return Ok(());
    }
    let open: Vec<(String, i64)> = sqlx::query_as("SELECT id, children_open FROM runs WHERE id = ANY($1)")
        .bind(run_ids)
        .fetch_all(&mut *c)
        .await?;
    let (ids, parked): (Vec<String>, Vec<_>) =
        open.into_iter().map(|(id, open)| (id, lifecycle::parks_as(true, open as u32))).unzip();
    if parked.iter().any(|p| p.queued_again) {
        p.hint();
    }
    let statuses: Vec<&str> = parked.iter().map(|p| p.status.as_str()).collect();
    sqlx::query(
        "UPDATE runs SET status = u.status, worker_id = NULL, handed_back = 1, updated_at = wingman_ms()
         FROM UNNEST($1::text[], $2::text[]) AS u(id, status) WHERE runs.id = u.id",
    )
    .bind(&ids)
    .bind(&statuses)
    .execute(&mut *c)
    .await?;
    Ok(())
}

/// Takes a child's end into its parent under the parent's row lock: the
/// call's result, the spending, `subagent_finished`, and perhaps the parent
/// queued again ([`lifecycle::child_ended`]).
pub async fn ended(c: &mut PgConnection, p: &mut Pending, end: &ChildEnd<'_>) -> StoreResult<()> {
    let parent_id = end.parent.run_id.as_str();
    let row = sqlx::query("SELECT status, children_open FROM runs WHERE id = $1 FOR UPDATE")
        .bind(parent_id)
        .fetch_one(&mut *c)
        .await?;
    let status: String = row.try_get("status")?;
    let open: i64 = row.try_get("children_open")?;
    let parent = ParentRow { status: rows::status(&status)?, children_open: open as u32 };
    let Some(wake) = lifecycle::child_ended(parent, end) else { return Ok(()) };
    let last: i64 = sqlx::query_scalar(
        "UPDATE runs SET children_open = GREATEST(children_open - 1, 0), status = $2,
                event_seq = event_seq + $3, updated_at = wingman_ms()
         WHERE id = $1 RETURNING event_seq",
    )
    .bind(parent_id)
    .bind(wake.parent.status.as_str())
    .bind(wake.events.len() as i64)
    .fetch_one(&mut *c)
    .await?;
    insert_checkpoints(c, wake.checkpoints.iter().map(|cp| (parent_id, cp)).collect()).await?;
    p.push(parent_id, last as u64 + 1 - wake.events.len() as u64, &wake.events);
    if wake.parent.queued_again {
        p.hint();
    }
    Ok(())
}

/// Cancels what `run_id` left running when it ended: its open children,
/// locked in queue order, and through their ends their own children.
pub fn cancel<'c>(c: &'c mut PgConnection, p: &'c mut Pending, run_id: &'c str) -> BoxFuture<'c, StoreResult<()>> {
    Box::pin(async move {
        let open: Vec<String> = sqlx::query_scalar(
            "SELECT id FROM runs WHERE parent_run_id = $1 AND status IN ('queued', 'running', 'waiting')
             ORDER BY queue_seq FOR UPDATE",
        )
        .bind(run_id)
        .fetch_all(&mut *c)
        .await?;
        for child in &open {
            finish(c, p, child, &EndReason::ParentEnded).await?;
        }
        Ok(())
    })
}
