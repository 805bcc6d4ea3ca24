//! Formation runs on PostgreSQL ([`crate::domain::formation::run`]): written with
//! what their start makes ready, a node's end taken in under the formation
//! run's row lock by the transaction that ends its work, cancel, and reads.
//!
//! The formation run's row comes after its nodes' work in the lock order:
//! a run's row, then its fleet run's, then the formation run's. A cancel
//! locks the work first to keep it; a node whose failure stops the others
//! locks them after the formation run's row, against it, and a deadlock
//! there is retried like any transient failure.

use std::collections::HashMap;

use futures_util::future::BoxFuture;
use sqlx::{PgConnection, Row};

use super::fleet;
use super::progress::finish;
use super::queue::{insert_runs, remember_key, remembered};
use super::resources::insert_session;
use super::Pending;
use crate::domain::formation::run::{self, Advance, FormationRun, NewFormationRun, NodeRef, NodeRow, Outcome, Work};
use crate::domain::lifecycle::{self, EndReason, IdempotencyKey, TaskRun};
use crate::domain::model::{new_id, FleetProgress, FleetRunStatus};
use crate::store::formation_rows::{self as stored_rows, Stored};
use crate::store::rows;
use crate::store::{EnqueuedFormationRun, FormationRunFilter, StoreError, StoreResult};

/// [`crate::store::Store::enqueue_formation_run`], in one transaction.
pub async fn enqueue(
    c: &mut PgConnection,
    p: &mut Pending,
    new: NewFormationRun,
    key: Option<IdempotencyKey>,
) -> StoreResult<EnqueuedFormationRun> {
    if let Some(key) = &key {
        if let Some(id) = remembered(c, key).await? {
            let formation_run = get(c, &id).await?.ok_or(StoreError::NotFound("formation run"))?;
            return Ok(EnqueuedFormationRun { formation_run, created: false });
        }
    }
    sqlx::query(
        "INSERT INTO formation_runs (id, formation_id, status, snapshot, input, created_at, updated_at)
         VALUES ($1, $2, 'running', $3, $4, wingman_ms(), wingman_ms())",
    )
    .bind(&new.id)
    .bind(&new.snapshot.formation.id)
    .bind(serde_json::to_string(&new.snapshot)?)
    .bind(serde_json::to_string(&new.input)?)
    .execute(&mut *c)
    .await?;
    let stored = load(c, &new.id).await?;
    let advance = run::begin(&stored.state(Vec::new()), &mut new_id);
    apply(c, p, &stored, advance).await?;
    if let Some(key) = &key {
        remember_key(c, key, &new.id).await?;
    }
    let formation_run = get(c, &new.id).await?.ok_or(StoreError::NotFound("formation run"))?;
    Ok(EnqueuedFormationRun { formation_run, created: true })
}

/// Takes a node's end into its formation run, under the run's row lock.
/// Boxed: stopping the other nodes' work ends it, which comes back here.
pub fn node_ended<'c>(
    c: &'c mut PgConnection,
    p: &'c mut Pending,
    node: &'c NodeRef,
    outcome: Outcome,
) -> BoxFuture<'c, StoreResult<()>> {
    Box::pin(async move {
        let stored = load(c, &node.formation_run_id).await?;
        let nodes = node_rows(&mut *c, &stored.id).await?;
        let advance = run::node_ended(&stored.state(nodes), &node.node, outcome, &mut new_id);
        apply(c, p, &stored, advance).await
    })
}

/// Takes in a fleet node's end when the fleet run that just ended belongs
/// to a formation run: the node's output is its tasks' responses, in task order.
pub async fn fleet_run_ended(
    c: &mut PgConnection,
    p: &mut Pending,
    fleet_run_id: &str,
    status: FleetRunStatus,
    progress: &FleetProgress,
) -> StoreResult<()> {
    let node: Option<(String, String)> = sqlx::query_as(
        "SELECT formation_run_id, formation_node FROM fleet_runs WHERE id = $1 AND formation_run_id IS NOT NULL",
    )
    .bind(fleet_run_id)
    .fetch_optional(&mut *c)
    .await?;
    let Some((formation_run_id, node)) = node else { return Ok(()) };
    let responses: Vec<String> =
        sqlx::query_scalar("SELECT COALESCE(response, '') FROM runs WHERE fleet_run_id = $1 ORDER BY task_index")
            .bind(fleet_run_id)
            .fetch_all(&mut *c)
            .await?;
    let node = NodeRef { formation_run_id, node };
    node_ended(c, p, &node, run::fleet_outcome(status, progress, responses)).await
}

/// [`crate::store::Store::cancel_formation_run`]: the running work's rows
/// are locked first (runs in queue order, then fleet runs), then the
/// formation run's.
pub async fn cancel(c: &mut PgConnection, p: &mut Pending, id: &str) -> StoreResult<FormationRun> {
    sqlx::query(
        "SELECT 1 FROM runs WHERE status IN ('queued', 'running', 'waiting')
           AND (formation_run_id = $1 OR fleet_run_id IN (SELECT id FROM fleet_runs WHERE formation_run_id = $1))
         ORDER BY queue_seq FOR UPDATE",
    )
    .bind(id)
    .execute(&mut *c)
    .await?;
    sqlx::query("SELECT 1 FROM fleet_runs WHERE formation_run_id = $1 ORDER BY id FOR UPDATE")
        .bind(id)
        .execute(&mut *c)
        .await?;
    let mut stored = load(c, id).await?;
    let nodes = node_rows(&mut *c, id).await?;
    let advance = run::cancel(&stored.state(nodes))?;
    sqlx::query("UPDATE formation_runs SET cancel_requested = 1, updated_at = wingman_ms() WHERE id = $1")
        .bind(id)
        .execute(&mut *c)
        .await?;
    stored.cancel_requested = true;
    apply(c, p, &stored, advance).await?;
    get(c, id).await?.ok_or(StoreError::NotFound("formation run"))
}

/// Writes what a rule decided (node rows, started work, events, the end),
/// then ends the work it stops.
async fn apply(c: &mut PgConnection, p: &mut Pending, stored: &Stored, advance: Advance) -> StoreResult<()> {
    write_nodes(c, &stored.id, &advance.nodes).await?;
    let mut runs = Vec::with_capacity(advance.runs.len());
    for started in &advance.runs {
        insert_session(c, &started.session).await?;
        let queued = lifecycle::queued(&started.run, None);
        runs.push(TaskRun { run: started.run.clone(), blocked: false, queued });
    }
    if !runs.is_empty() {
        insert_runs(c, p, &runs, None).await?;
        let ids: Vec<&str> = runs.iter().map(|r| r.run.id.as_str()).collect();
        sqlx::query("UPDATE runs SET formation_run_id = $1 WHERE id = ANY($2)")
            .bind(&stored.id)
            .bind(&ids)
            .execute(&mut *c)
            .await?;
    }
    for new in &advance.fleet_runs {
        fleet::insert(c, p, new).await?;
    }
    for (fleet_run_id, node) in advance.fleet_nodes() {
        sqlx::query("UPDATE fleet_runs SET formation_run_id = $2, formation_node = $3 WHERE id = $1")
            .bind(fleet_run_id)
            .bind(&stored.id)
            .bind(node)
            .execute(&mut *c)
            .await?;
    }
    write_events_and_end(c, p, stored, &advance).await?;
    stop(c, p, &advance.cancel).await
}

async fn write_nodes(c: &mut PgConnection, id: &str, nodes: &[NodeRow]) -> StoreResult<()> {
    if nodes.is_empty() {
        return Ok(());
    }
    let names: Vec<&str> = nodes.iter().map(|n| n.node.as_str()).collect();
    let statuses: Vec<&str> = nodes.iter().map(|n| n.status.as_str()).collect();
    let bodies = nodes.iter().map(serde_json::to_string).collect::<Result<Vec<_>, _>>()?;
    sqlx::query(
        "INSERT INTO formation_nodes (formation_run_id, node, status, body, updated_at)
         SELECT $1, n, s, b, wingman_ms() FROM UNNEST($2::text[], $3::text[], $4::text[]) AS u(n, s, b)
         ON CONFLICT (formation_run_id, node) DO UPDATE
           SET status = EXCLUDED.status, body = EXCLUDED.body, updated_at = EXCLUDED.updated_at",
    )
    .bind(id)
    .bind(&names)
    .bind(&statuses)
    .bind(&bodies)
    .execute(&mut *c)
    .await?;
    Ok(())
}

async fn write_events_and_end(
    c: &mut PgConnection,
    p: &mut Pending,
    stored: &Stored,
    advance: &Advance,
) -> StoreResult<()> {
    if advance.events.is_empty() {
        return Ok(());
    }
    let end = advance.end.as_ref();
    let last: i64 = sqlx::query_scalar(
        "UPDATE formation_runs SET event_seq = event_seq + $2, status = COALESCE($3, status),
                outputs = COALESCE($4, outputs), error = COALESCE($5, error),
                finished_at = CASE WHEN $3::text IS NULL THEN finished_at ELSE wingman_ms() END,
                updated_at = wingman_ms()
         WHERE id = $1 RETURNING event_seq",
    )
    .bind(&stored.id)
    .bind(advance.events.len() as i64)
    .bind(end.map(|e| e.status.as_str()))
    .bind(end.map(|e| e.outputs.to_string()))
    .bind(end.and_then(|e| e.error.as_deref()))
    .fetch_one(&mut *c)
    .await?;
    if let Some(delivery) = end.and_then(|e| e.delivery.as_ref()) {
        super::deliveries::insert(c, delivery).await?;
    }
    p.push(&stored.id, last as u64 + 1 - advance.events.len() as u64, &advance.events);
    Ok(())
}

/// Ends the work a rule stops: runs, and fleet runs' open tasks.
async fn stop(c: &mut PgConnection, p: &mut Pending, work: &[Work]) -> StoreResult<()> {
    for work in work {
        match work {
            Work::Run(run_id) => finish(c, p, run_id, &EndReason::FormationEnded).await?,
            Work::FleetRun(fleet_run_id) => {
                let open = fleet::lock_open_tasks(c, fleet_run_id).await?;
                fleet::end_tasks(c, p, fleet_run_id, open, &EndReason::FormationEnded).await?
            }
        }
    }
    Ok(())
}

/// A formation run's row, locked, as its rules read it.
async fn load(c: &mut PgConnection, id: &str) -> StoreResult<Stored> {
    let sql = format!("SELECT {} FROM formation_runs WHERE id = $1 FOR UPDATE", stored_rows::COLUMNS);
    let row = sqlx::query(&sql).bind(id).fetch_optional(&mut *c).await?;
    row.as_ref().map(stored_rows::stored).transpose()?.ok_or(StoreError::NotFound("formation run"))
}

async fn node_rows<'e>(c: impl sqlx::PgExecutor<'e>, id: &str) -> StoreResult<Vec<NodeRow>> {
    let found =
        sqlx::query("SELECT body FROM formation_nodes WHERE formation_run_id = $1").bind(id).fetch_all(c).await?;
    found.iter().map(stored_rows::node).collect()
}

/// A formation run with its nodes.
pub async fn get(c: &mut PgConnection, id: &str) -> StoreResult<Option<FormationRun>> {
    let sql = format!("SELECT {} FROM formation_runs WHERE id = $1", stored_rows::COLUMNS);
    let row = sqlx::query(&sql).bind(id).fetch_optional(&mut *c).await?;
    let Some(stored) = row.as_ref().map(stored_rows::stored).transpose()? else { return Ok(None) };
    let nodes = node_rows(&mut *c, id).await?;
    Ok(Some(stored.view(&nodes)))
}

/// A page of formation runs by ID, as `filter` asks, each with its nodes.
pub async fn list(c: &mut PgConnection, filter: &FormationRunFilter) -> StoreResult<Vec<FormationRun>> {
    let sql = format!(
        "SELECT {} FROM formation_runs WHERE ($1::text IS NULL OR formation_id = $1) AND ($2::text IS NULL OR id {} $2)
           AND {} ORDER BY id {} LIMIT $3",
        stored_rows::COLUMNS,
        rows::past(filter.order),
        rows::owned_by(&filter.owner, "owner", "$4::text"),
        rows::order_by(filter.order)
    );
    let found = sqlx::query(&sql)
        .bind(&filter.formation_id)
        .bind(&filter.after)
        .bind(filter.limit as i64)
        .bind(&filter.owner)
        .fetch_all(&mut *c)
        .await?;
    let stored = found.iter().map(stored_rows::stored).collect::<StoreResult<Vec<_>>>()?;
    // Every node of the page in one round trip, not one per run.
    let ids: Vec<&str> = stored.iter().map(|s| s.id.as_str()).collect();
    let rows = sqlx::query("SELECT formation_run_id, body FROM formation_nodes WHERE formation_run_id = ANY($1)")
        .bind(&ids)
        .fetch_all(&mut *c)
        .await?;
    let mut nodes: HashMap<String, Vec<NodeRow>> = HashMap::new();
    for row in &rows {
        nodes.entry(row.try_get("formation_run_id")?).or_default().push(stored_rows::node(row)?);
    }
    Ok(stored
        .into_iter()
        .map(|s| {
            let mine = nodes.remove(&s.id).unwrap_or_default();
            s.view(&mine)
        })
        .collect())
}
