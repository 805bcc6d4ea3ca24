//! Fleet runs on PostgreSQL: enqueue (every task in a few statements), the
//! end of a task under its fleet run's row lock, cancel, and reads.

use sqlx::PgConnection;

use super::queue::{insert_runs, remember_key, remembered};
use super::{progress, Pending};
use crate::domain::access::By;
use crate::domain::fleet;
use crate::domain::lifecycle::{self, EndReason, EndedTask, IdempotencyKey, NewFleetRun};
use crate::domain::model::FleetRun;
use crate::store::rows::{self, ms};
use crate::store::{EnqueuedFleetRun, StoreError, StoreResult};

/// A fleet run with its running tasks counted.
pub const SELECT: &str = "SELECT f.*, (SELECT COUNT(*) FROM runs
     WHERE runs.status = 'running' AND runs.fleet_run_id = f.id) AS running FROM fleet_runs f";

/// Writes a fleet run and all its tasks; see [`crate::store::Store::enqueue_fleet_run`].
pub async fn enqueue(
    c: &mut PgConnection,
    p: &mut Pending,
    new: NewFleetRun,
    key: Option<IdempotencyKey>,
) -> StoreResult<EnqueuedFleetRun> {
    if let Some(key) = &key {
        if let Some(id) = remembered(c, key).await? {
            let fleet_run = get(c, &id).await?.ok_or(StoreError::NotFound("fleet run"))?;
            return Ok(EnqueuedFleetRun { fleet_run, created: false });
        }
    }
    let present: bool = sqlx::query_scalar("SELECT EXISTS(SELECT 1 FROM fleets WHERE id = $1)")
        .bind(&new.fleet_id)
        .fetch_one(&mut *c)
        .await?;
    if !present {
        return Err(StoreError::NotFound("fleet"));
    }
    insert(c, p, &new).await?;
    if let Some(key) = &key {
        remember_key(c, key, &new.id).await?;
    }
    let fleet_run = get(c, &new.id).await?.ok_or(StoreError::NotFound("fleet run"))?;
    Ok(EnqueuedFleetRun { fleet_run, created: true })
}

/// Inserts a fleet run with its `fleet_queued`, then its tasks' sessions
/// and runs a statement each for all of them ([`lifecycle::fleet_run`]).
pub async fn insert(c: &mut PgConnection, p: &mut Pending, new: &NewFleetRun) -> StoreResult<()> {
    sqlx::query(
        "INSERT INTO fleet_runs (id, fleet_id, agent_id, status, worker_count, tasks, webhook_url, event_seq,
                                 created_at, updated_at, owner)
         VALUES ($1, $2, $3, 'queued', $4, $5, $6, 1, wingman_ms(), wingman_ms(), $7)",
    )
    .bind(&new.id)
    .bind(&new.fleet_id)
    .bind(&new.agent.id)
    .bind(new.worker_count as i64)
    .bind(new.tasks.len() as i64)
    .bind(&new.webhook)
    .bind(&new.owner)
    .execute(&mut *c)
    .await?;
    let plan = lifecycle::fleet_run(new);
    p.push(&new.id, 1, std::slice::from_ref(&plan.queued));
    insert_sessions(c, new).await?;
    insert_runs(c, p, &plan.tasks, Some(&new.id)).await
}

/// The tasks' sessions, in one statement.
async fn insert_sessions(c: &mut PgConnection, new: &NewFleetRun) -> StoreResult<()> {
    let sessions: Vec<_> = new.tasks.iter().map(|t| &t.session).collect();
    let ids: Vec<&str> = sessions.iter().map(|s| s.id.as_str()).collect();
    let agent_ids: Vec<Option<&str>> = sessions.iter().map(|s| s.agent_id.as_deref()).collect();
    let titles: Vec<Option<&str>> = sessions.iter().map(|s| s.title.as_deref()).collect();
    let work_dirs: Vec<&str> = sessions.iter().map(|s| s.work_dir.as_str()).collect();
    let metadata = sessions.iter().map(|s| serde_json::to_string(&s.metadata)).collect::<Result<Vec<_>, _>>()?;
    let created: Vec<i64> = sessions.iter().map(|s| ms(s.created_at)).collect();
    sqlx::query(
        "INSERT INTO sessions (id, agent_id, title, work_dir, metadata, created_at, updated_at, owner)
         SELECT i, a, t, w, m, c, c, $7 FROM UNNEST($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::bigint[])
              AS u(i, a, t, w, m, c)",
    )
    .bind(&ids)
    .bind(&agent_ids)
    .bind(&titles)
    .bind(&work_dirs)
    .bind(&metadata)
    .bind(&created)
    .bind(&new.owner)
    .execute(&mut *c)
    .await?;
    Ok(())
}

/// Reads a fleet run inside a transaction.
pub async fn get(c: &mut PgConnection, id: &str) -> StoreResult<Option<FleetRun>> {
    let row = sqlx::query(&format!("{SELECT} WHERE f.id = $1")).bind(id).fetch_optional(&mut *c).await?;
    row.as_ref().map(rows::fleet_run).transpose()
}

/// Marks fleet runs started when a first task of theirs is claimed.
pub async fn tasks_started(c: &mut PgConnection, fleet_run_ids: &[String]) -> StoreResult<()> {
    sqlx::query(
        "UPDATE fleet_runs SET status = 'running', started_at = wingman_ms(), updated_at = wingman_ms()
         WHERE status = 'queued' AND id = ANY($1)",
    )
    .bind(fleet_run_ids)
    .execute(&mut *c)
    .await?;
    Ok(())
}

/// The end of a task, in the transaction that ends its run: what
/// [`fleet::task_ended`] decides from the fleet run's counts, read under its
/// row lock (so task ends of one fleet run take turns), written: the counts,
/// the `result` and perhaps `done`, the slot handed on.
pub async fn task_ended(c: &mut PgConnection, p: &mut Pending, task: EndedTask<'_>) -> StoreResult<()> {
    let row = sqlx::query(&format!("SELECT {} FROM fleet_runs WHERE id = $1 FOR UPDATE", rows::FLEET_RUN_ROW))
        .bind(task.fleet_run_id)
        .fetch_one(&mut *c)
        .await?;
    let (fleet_run, seq) = rows::fleet_run_row(&row)?;
    let ended = fleet::task_ended(&task.end, task.held_slot, &fleet_run);
    sqlx::query(
        "UPDATE fleet_runs SET succeeded = $2, failed = $3, cancelled = $4, event_seq = event_seq + $5,
                status = COALESCE($6, status),
                finished_at = CASE WHEN $6::text IS NULL THEN finished_at ELSE wingman_ms() END,
                updated_at = wingman_ms()
         WHERE id = $1",
    )
    .bind(task.fleet_run_id)
    .bind(ended.progress.succeeded as i64)
    .bind(ended.progress.failed as i64)
    .bind(ended.progress.cancelled as i64)
    .bind(ended.events.len() as i64)
    .bind(ended.ends.map(|status| status.as_str()))
    .execute(&mut *c)
    .await?;
    p.push(task.fleet_run_id, seq + 1, &ended.events);
    if let Some(delivery) = &ended.delivery {
        super::deliveries::insert(c, delivery).await?;
    }
    if let Some(status) = ended.ends {
        super::formations::fleet_run_ended(c, p, task.fleet_run_id, status, &ended.progress).await?;
    }
    if ended.passes_slot {
        sqlx::query(
            "UPDATE runs SET blocked = 0 WHERE queue_seq =
               (SELECT MIN(queue_seq) FROM runs WHERE fleet_run_id = $1 AND status = 'queued' AND blocked = 1)",
        )
        .bind(task.fleet_run_id)
        .execute(&mut *c)
        .await?;
    }
    Ok(())
}

/// Cancels every task that has not ended, waiting ones first so that no
/// slot passes to a task about to be cancelled anyway. The tasks' rows are
/// locked before the fleet run's, the order every write keeps.
pub async fn cancel(c: &mut PgConnection, p: &mut Pending, id: &str, by: &By) -> StoreResult<FleetRun> {
    let open = lock_open_tasks(c, id).await?;
    let run = get(c, id).await?.ok_or(StoreError::NotFound("fleet run"))?;
    let reason = lifecycle::cancel_fleet_run(&run, by)?;
    end_tasks(c, p, id, open, &reason).await?;
    get(c, id).await?.ok_or(StoreError::NotFound("fleet run"))
}

/// Locks a fleet run's tasks that have not ended, waiting ones first, and
/// answers them in that order.
pub async fn lock_open_tasks(c: &mut PgConnection, id: &str) -> StoreResult<Vec<String>> {
    Ok(sqlx::query_scalar(
        "SELECT id FROM runs WHERE fleet_run_id = $1 AND status IN ('queued','running','waiting')
         ORDER BY blocked DESC, task_index FOR UPDATE",
    )
    .bind(id)
    .fetch_all(&mut *c)
    .await?)
}

/// Ends the tasks `open` (locked) of a fleet run for `reason`, with its
/// cancel requested: the last task's end ends it.
pub async fn end_tasks(
    c: &mut PgConnection,
    p: &mut Pending,
    id: &str,
    open: Vec<String>,
    reason: &EndReason,
) -> StoreResult<()> {
    sqlx::query("UPDATE fleet_runs SET cancel_requested = 1, updated_at = wingman_ms() WHERE id = $1")
        .bind(id)
        .execute(&mut *c)
        .await?;
    for run_id in open {
        progress::finish(c, p, &run_id, reason).await?;
    }
    Ok(())
}
