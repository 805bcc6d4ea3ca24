//! Retention on PostgreSQL: pruning the logs of runs, fleet runs and
//! formation runs that ended long ago, and deleting a run that has ended.
//!
//! Each call is one short transaction that deletes a bounded number of rows
//! by their physical address (`ctid = ANY(ARRAY(SELECT ctid … LIMIT n))`:
//! the array is built once, so the planner cannot drop the limit as it may
//! for an `IN (SELECT … LIMIT n)`). Short matters beyond the rows it locks:
//! live tails read only events of transactions older than the oldest one
//! still open (`events_since`), so a long transaction would hold them back.
//! The logs' owners are locked first (`FOR UPDATE`, skipping those another
//! pruner holds), in the order every other transaction takes a run's row.

use std::time::Duration;

use sqlx::PgConnection;

use crate::store::retention::{check_ended, RemovedLog};
use crate::store::{Pruned, StoreError, StoreResult};

/// Removes up to `limit` rows of the logs of runs, then fleet runs and formation runs, that
/// ended more than `older_than` ago, oldest first. A log whose last rows are
/// gone is marked pruned, with its inbox removed.
pub async fn prune(c: &mut PgConnection, older_than: Duration, limit: u32) -> StoreResult<Pruned> {
    let older_than = i64::try_from(older_than.as_millis()).unwrap_or(i64::MAX);
    let limit = u64::from(limit.max(1));
    let mut pruned = Pruned::default();
    for owner in ["runs", "fleet_runs", "formation_runs"] {
        let budget = limit - pruned.rows;
        if budget == 0 {
            break;
        }
        let ids: Vec<String> = sqlx::query_scalar(&format!(
            "SELECT id FROM {owner}
             WHERE finished_at IS NOT NULL AND pruned_at IS NULL AND finished_at < wingman_ms() - $1
             ORDER BY finished_at LIMIT $2 FOR UPDATE SKIP LOCKED"
        ))
        .bind(older_than)
        .bind(budget as i64)
        .fetch_all(&mut *c)
        .await?;
        if ids.is_empty() {
            continue;
        }
        let removed = delete_logs(c, &ids, budget).await?;
        removed.add_to(&mut pruned);
        let emptied: Vec<String> = sqlx::query_scalar(&format!(
            "UPDATE {owner} o SET pruned_at = wingman_ms() WHERE id = ANY($1)
               AND NOT EXISTS (SELECT 1 FROM run_events e WHERE e.run_id = o.id)
               AND NOT EXISTS (SELECT 1 FROM checkpoints k WHERE k.run_id = o.id)
             RETURNING id"
        ))
        .bind(&ids)
        .fetch_all(&mut *c)
        .await?;
        sqlx::query("DELETE FROM run_inbox WHERE run_id = ANY($1)").bind(&emptied).execute(&mut *c).await?;
        pruned.logs += emptied.len() as u64;
    }
    Ok(pruned)
}

/// Removes up to `budget` rows of these logs: events first, then
/// checkpoints.
async fn delete_logs(c: &mut PgConnection, ids: &[String], budget: u64) -> StoreResult<RemovedLog> {
    let (event_rows, events): (i64, i64) = sqlx::query_as(
        "WITH deleted AS (
             DELETE FROM run_events WHERE ctid = ANY(ARRAY(
                 SELECT ctid FROM run_events WHERE run_id = ANY($1) LIMIT $2))
             RETURNING last_seq - first_seq + 1 AS n)
         SELECT COUNT(*), COALESCE(SUM(n), 0)::bigint FROM deleted",
    )
    .bind(ids)
    .bind(budget as i64)
    .fetch_one(&mut *c)
    .await?;
    let mut removed = RemovedLog { event_rows: event_rows as u64, events: events as u64, checkpoints: 0 };
    if removed.event_rows == budget {
        return Ok(removed);
    }
    removed.checkpoints = sqlx::query(
        "DELETE FROM checkpoints WHERE ctid = ANY(ARRAY(
             SELECT ctid FROM checkpoints WHERE run_id = ANY($1) LIMIT $2))",
    )
    .bind(ids)
    .bind((budget - removed.event_rows) as i64)
    .execute(&mut *c)
    .await?
    .rows_affected();
    Ok(removed)
}

/// One transaction of a run's deletion: refuses an unknown run or one that
/// has not ended (read under the run's lock), removes up to `limit` rows of
/// its log and, once the log is empty, the run itself with its inbox and the
/// idempotency keys that name it, and its agent's snapshot if no other run
/// names it. True when the run is gone.
pub async fn delete_run(c: &mut PgConnection, id: &str, limit: u32) -> StoreResult<bool> {
    let found: Option<(String, Option<String>)> =
        sqlx::query_as("SELECT status, agent_digest FROM runs WHERE id = $1 FOR UPDATE")
            .bind(id)
            .fetch_optional(&mut *c)
            .await?;
    let (status, digest) = found.ok_or(StoreError::NotFound("run"))?;
    check_ended(id, &status)?;
    let limit = u64::from(limit.max(1));
    if delete_logs(c, &[id.to_string()], limit).await?.rows() == limit {
        return Ok(false);
    }
    let last_of_its_agent = match &digest {
        Some(digest) => lock_last_snapshot(c, id, digest).await?,
        None => false,
    };
    sqlx::query("DELETE FROM run_inbox WHERE run_id = $1").bind(id).execute(&mut *c).await?;
    sqlx::query("DELETE FROM idempotency_keys WHERE run_id = $1").bind(id).execute(&mut *c).await?;
    sqlx::query("DELETE FROM runs WHERE id = $1").bind(id).execute(&mut *c).await?;
    if let (true, Some(digest)) = (last_of_its_agent, digest) {
        sqlx::query(
            "DELETE FROM agent_snapshots WHERE digest = $1 AND NOT EXISTS (SELECT 1 FROM runs WHERE agent_digest = $1)",
        )
        .bind(digest)
        .execute(&mut *c)
        .await?;
    }
    Ok(true)
}

/// Whether the run `id` is the last committed one to name the snapshot
/// `digest`, and if so, the table's lock taken for its removal. An enqueue
/// that found the snapshot already there wrote nothing to it, so its run,
/// not yet committed, is invisible here: the lock waits for every
/// transaction that inserted into the table (each enqueue does, conflicting
/// or not) to end and keeps new ones out until this one commits. It is
/// taken before anything another transaction could wait for (the keys) is
/// deleted, so no enqueue holds the table while it waits for this one. A
/// deletion of one of many runs of an agent does not take it.
async fn lock_last_snapshot(c: &mut PgConnection, id: &str, digest: &str) -> StoreResult<bool> {
    let others = "SELECT EXISTS(SELECT 1 FROM runs WHERE agent_digest = $1 AND id <> $2)";
    if sqlx::query_scalar::<_, bool>(others).bind(digest).bind(id).fetch_one(&mut *c).await? {
        return Ok(false);
    }
    sqlx::query("LOCK TABLE agent_snapshots IN SHARE MODE").execute(&mut *c).await?;
    Ok(true)
}

/// [`crate::store::Store::prune_records`]: ended deliveries with their
/// attempts, then ticks, then keys, `limit` of them at most, each found
/// through its index by age.
pub async fn prune_records(c: &mut PgConnection, older_than: Duration, limit: u32) -> StoreResult<Pruned> {
    let older_than = i64::try_from(older_than.as_millis()).unwrap_or(i64::MAX);
    let limit = i64::from(limit.max(1));
    let (deliveries, attempts): (i64, i64) = sqlx::query_as(
        "WITH gone AS (
             DELETE FROM deliveries WHERE ctid = ANY(ARRAY(
                 SELECT ctid FROM deliveries WHERE status <> 'pending' AND created_at < wingman_ms() - $1
                 ORDER BY created_at LIMIT $2))
             RETURNING id),
         attempts AS (DELETE FROM delivery_attempts WHERE delivery_id IN (SELECT id FROM gone) RETURNING 1)
         SELECT (SELECT COUNT(*) FROM gone), (SELECT COUNT(*) FROM attempts)",
    )
    .bind(older_than)
    .bind(limit)
    .fetch_one(&mut *c)
    .await?;
    let mut pruned = Pruned { deliveries: deliveries as u64, attempts: attempts as u64, ..Pruned::default() };
    pruned.rows = pruned.deliveries;
    pruned.ticks = sqlx::query(
        "DELETE FROM schedule_ticks WHERE ctid = ANY(ARRAY(
             SELECT t.ctid FROM schedule_ticks t
             WHERE t.tick_at < wingman_ms() - $1 AND NOT (t.kind IS NOT NULL AND t.tick_at =
                 (SELECT MAX(n.tick_at) FROM schedule_ticks n WHERE n.schedule_id = t.schedule_id AND n.kind IS NOT NULL))
             LIMIT $2))",
    )
    .bind(older_than)
    .bind(limit - pruned.rows as i64)
    .execute(&mut *c)
    .await?
    .rows_affected();
    pruned.rows += pruned.ticks;
    pruned.keys = sqlx::query(
        "DELETE FROM idempotency_keys WHERE ctid = ANY(ARRAY(
             SELECT k.ctid FROM idempotency_keys k
             WHERE k.created_at < wingman_ms() - $1
               AND NOT EXISTS (SELECT 1 FROM runs r WHERE r.id = k.run_id AND r.finished_at IS NULL)
               AND NOT EXISTS (SELECT 1 FROM fleet_runs f WHERE f.id = k.run_id AND f.finished_at IS NULL)
               AND NOT EXISTS (SELECT 1 FROM formation_runs m WHERE m.id = k.run_id AND m.finished_at IS NULL)
             LIMIT $2))",
    )
    .bind(older_than)
    .bind(limit - pruned.rows as i64)
    .execute(&mut *c)
    .await?
    .rows_affected();
    pruned.rows += pruned.keys;
    Ok(pruned)
}
