//! Formation runs on SQLite ([`crate::domain::formation::run`]): written with what
//! their start makes ready, a node's end taken in by the transaction that
//! ends its work, cancel, and reads. Each function runs inside the writer's
//! transaction, whose single writer makes a node start once.

use chrono::{DateTime, Utc};
use rusqlite::{params, Connection};

use super::fleet;
use super::progress::{finish, insert_events};
use super::queue::{insert_run, remember_key, remembered};
use super::resources::insert_session;
use super::rows::{self, ms};
use crate::domain::formation::run::{self, Advance, FormationRun, NewFormationRun, NodeRef, NodeRow, Outcome, Work};
use crate::domain::lifecycle::{self, EndReason, IdempotencyKey};
use crate::domain::model::{new_id, FleetProgress, FleetRunStatus};
use crate::store::formation_rows::{self as stored_rows, Stored};
use crate::store::{EnqueuedFormationRun, FormationRunFilter, StoreError, StoreResult};

/// [`crate::store::Store::enqueue_formation_run`], in the writer's transaction.
pub fn enqueue(
    conn: &Connection,
    new: NewFormationRun,
    key: Option<IdempotencyKey>,
    now: DateTime<Utc>,
) -> StoreResult<EnqueuedFormationRun> {
    if let Some(key) = &key {
        if let Some(id) = remembered(conn, key)? {
            let formation_run = get(conn, &id)?.ok_or(StoreError::NotFound("formation run"))?;
            return Ok(EnqueuedFormationRun { formation_run, created: false });
        }
    }
    conn.prepare_cached(
        "INSERT INTO formation_runs (id, formation_id, status, snapshot, input, created_at, updated_at)
         VALUES (?1, ?2, 'running', ?3, ?4, ?5, ?5)",
    )?
    .execute(params![
        new.id,
        new.snapshot.formation.id,
        serde_json::to_string(&new.snapshot)?,
        serde_json::to_string(&new.input)?,
        ms(now)
    ])?;
    let stored = load(conn, &new.id)?;
    let advance = run::begin(&stored.state(Vec::new()), &mut new_id);
    apply(conn, &stored, advance, now)?;
    if let Some(key) = &key {
        remember_key(conn, key, &new.id, now)?;
    }
    let formation_run = get(conn, &new.id)?.ok_or(StoreError::NotFound("formation run"))?;
    Ok(EnqueuedFormationRun { formation_run, created: true })
}

/// Takes the end of a node's work into its formation run.
pub fn node_ended(conn: &Connection, node: &NodeRef, outcome: Outcome, now: DateTime<Utc>) -> StoreResult<()> {
    let stored = load(conn, &node.formation_run_id)?;
    let nodes = node_rows(conn, &stored.id)?;
    let advance = run::node_ended(&stored.state(nodes), &node.node, outcome, &mut new_id);
    apply(conn, &stored, advance, now)
}

/// The end of a fleet run, which is a fleet node's work if the fleet run
/// names a formation run: its node ends with the tasks' responses in order.
pub fn fleet_run_ended(
    conn: &Connection,
    fleet_run_id: &str,
    status: FleetRunStatus,
    progress: &FleetProgress,
    now: DateTime<Utc>,
) -> StoreResult<()> {
    let node = rows::select_first(
        conn,
        "SELECT formation_run_id, formation_node FROM fleet_runs WHERE id = ?1 AND formation_run_id IS NOT NULL",
        [fleet_run_id],
        |r| Ok(NodeRef { formation_run_id: r.get(0)?, node: r.get(1)? }),
    )?;
    let Some(node) = node else { return Ok(()) };
    let responses = rows::select_all(
        conn,
        "SELECT id, session_id, response, tool_calls FROM runs INDEXED BY runs_fleet
         WHERE fleet_run_id = ?1 ORDER BY task_index",
        [fleet_run_id],
        |r| Ok(super::run_rows::response(conn, r)?.unwrap_or_default()),
    )?;
    node_ended(conn, &node, run::fleet_outcome(status, progress, responses), now)
}

/// [`crate::store::Store::cancel_formation_run`].
pub fn cancel(conn: &Connection, id: &str, now: DateTime<Utc>) -> StoreResult<FormationRun> {
    let mut stored = load(conn, id)?;
    let nodes = node_rows(conn, id)?;
    let advance = run::cancel(&stored.state(nodes))?;
    conn.prepare_cached("UPDATE formation_runs SET cancel_requested = 1, updated_at = ?2 WHERE id = ?1")?
        .execute(params![id, ms(now)])?;
    stored.cancel_requested = true;
    apply(conn, &stored, advance, now)?;
    get(conn, id)?.ok_or(StoreError::NotFound("formation run"))
}

/// Writes what a rule decided: node rows, started work, events, the end;
/// then ends the work it stops, whose ends come back through [`node_ended`]
/// and find the run as this left it.
fn apply(conn: &Connection, stored: &Stored, advance: Advance, now: DateTime<Utc>) -> StoreResult<()> {
    for row in &advance.nodes {
        conn.prepare_cached(
            "INSERT INTO formation_nodes (formation_run_id, node, status, body, updated_at) VALUES (?1, ?2, ?3, ?4, ?5)
             ON CONFLICT (formation_run_id, node) DO UPDATE SET status = ?3, body = ?4, updated_at = ?5",
        )?
        .execute(params![stored.id, row.node, row.status.as_str(), serde_json::to_string(row)?, ms(now)])?;
    }
    let first = match advance.runs.first() {
        Some(started) => super::fair::first_start(conn, &started.run, advance.runs.len())?,
        None => 0,
    };
    for (i, started) in advance.runs.iter().enumerate() {
        insert_session(conn, &started.session)?;
        let queued = lifecycle::queued(&started.run, None);
        insert_run(conn, &started.run, false, None, first + i as i64, &queued, now)?;
        conn.prepare_cached("UPDATE runs SET formation_run_id = ?2 WHERE id = ?1")?
            .execute(params![started.run.id, stored.id])?;
    }
    for new in &advance.fleet_runs {
        fleet::insert(conn, new, now)?;
    }
    for (fleet_run_id, node) in advance.fleet_nodes() {
        conn.prepare_cached("UPDATE fleet_runs SET formation_run_id = ?2, formation_node = ?3 WHERE id = ?1")?
            .execute(params![fleet_run_id, stored.id, node])?;
    }
    write_events_and_end(conn, stored, &advance, now)?;
    for work in &advance.cancel {
        match work {
            Work::Run(run_id) => finish(conn, run_id, &EndReason::FormationEnded, now)?,
            Work::FleetRun(fleet_run_id) => fleet::end_tasks(conn, fleet_run_id, &EndReason::FormationEnded, now)?,
        }
    }
    Ok(())
}

fn write_events_and_end(conn: &Connection, stored: &Stored, advance: &Advance, now: DateTime<Utc>) -> StoreResult<()> {
    if advance.events.is_empty() {
        return Ok(());
    }
    let end = advance.end.as_ref();
    let before: i64 = conn
        .prepare_cached(
            "UPDATE formation_runs SET event_seq = event_seq + ?2, status = COALESCE(?3, status),
                    outputs = COALESCE(?4, outputs), error = COALESCE(?5, error),
                    finished_at = CASE WHEN ?3 IS NULL THEN finished_at ELSE ?6 END, updated_at = ?6
             WHERE id = ?1 RETURNING event_seq - ?2",
        )?
        .query_row(
            params![
                stored.id,
                advance.events.len() as i64,
                end.map(|e| e.status.as_str()),
                end.map(|e| e.outputs.to_string()),
                end.and_then(|e| e.error.as_deref()),
                ms(now)
            ],
            |r| r.get(0),
        )?;
    if let Some(delivery) = end.and_then(|e| e.delivery.as_ref()) {
        super::deliveries::insert(conn, delivery, now)?;
    }
    insert_events(conn, &stored.id, before as u64 + 1, &advance.events, now)
}

/// A formation run's row, as its rules read it.
fn load(conn: &Connection, id: &str) -> StoreResult<Stored> {
    let sql = format!("SELECT {} FROM formation_runs WHERE id = ?1", stored_rows::COLUMNS);
    rows::select_first(conn, &sql, [id], |r| stored_rows::stored(r))?.ok_or(StoreError::NotFound("formation run"))
}

fn node_rows(conn: &Connection, id: &str) -> StoreResult<Vec<NodeRow>> {
    rows::select_all(conn, "SELECT body FROM formation_nodes WHERE formation_run_id = ?1", [id], |r| {
        stored_rows::node(r)
    })
}

/// A formation run with its nodes, read on any connection.
pub fn get(conn: &Connection, id: &str) -> StoreResult<Option<FormationRun>> {
    let sql = format!("SELECT {} FROM formation_runs WHERE id = ?1", stored_rows::COLUMNS);
    let Some(stored) = rows::select_first(conn, &sql, [id], |r| stored_rows::stored(r))? else { return Ok(None) };
    let nodes = node_rows(conn, id)?;
    Ok(Some(stored.view(&nodes)))
}

/// Formation runs by ID, filtered and paged as `filter` says.
pub fn list(conn: &Connection, filter: &FormationRunFilter) -> StoreResult<Vec<FormationRun>> {
    let sql = format!(
        "SELECT {} FROM formation_runs WHERE (?1 IS NULL OR formation_id = ?1) AND (?2 IS NULL OR id {} ?2)
           AND {} ORDER BY id {} LIMIT ?3",
        stored_rows::COLUMNS,
        rows::past(filter.order),
        rows::owned_by(&filter.owner, "owner", "?4"),
        rows::order_by(filter.order)
    );
    let params = params![filter.formation_id, filter.after, filter.limit as i64, filter.owner];
    let found = rows::select_all(conn, &sql, params, |r| stored_rows::stored(r))?;
    found
        .into_iter()
        .map(|stored| {
            let nodes = node_rows(conn, &stored.id)?;
            Ok(stored.view(&nodes))
        })
        .collect()
}
