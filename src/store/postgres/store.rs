//! The [`Store`] trait on PostgreSQL: writes in transactions (see
//! [`PgStore::write`]), reads straight from the pool.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use sqlx::Row;

use super::resources::{self, Body, BodyTable};
use super::{
    audit, branches, budgets, deliveries, events, fleet, formations, keys, listings, load, people, progress, queue,
    quotas, retention, schedules, sealed, workers, PgStore,
};
use crate::domain::access::{ApiKeyInfo, By, NewApiKey};
use crate::domain::audit::AuditEntry;
use crate::domain::branch::{Branch, HistoryAt, RewindTo};
use crate::domain::checkpoint::Checkpoint;
use crate::domain::credential::{ApiKey, CredentialInfo};
use crate::domain::event::RunEvent;
use crate::domain::formation::run::{FormationRun, NewFormationRun};
use crate::domain::formation::Formation;
use crate::domain::history::HistoryCache;
use crate::domain::model::{Agent, Event, Fleet, FleetRun, McpListing, Message, Run, RunStanding, RunStatus, Session};
use crate::domain::quota::{DayUsage, Quota};
use crate::domain::schedule::{Schedule, Tick};
use crate::domain::secret::{Secret, SecretInfo};
use crate::domain::webhook::{Attempt, Delivery, Next};
use crate::store::rows;
use crate::store::sealed::SealedTable;
use crate::store::{
    AuditFilter, Claim, Commit, Committed, Enqueued, EnqueuedFleetRun, EnqueuedFormationRun, EventCursor,
    FleetRunFilter, FormationRunFilter, HandBack, Heartbeat, IdempotencyKey, InboxItem, Lease, NewFleetRun, NewRun,
    Pruned, QueueStats, RunContext, RunFilter, SessionFilter, Store, StoreError, StoreResult, WorkerInfo,
};

/// A fleet's definition and whether one of its fleet runs is unfinished.
const FLEET_SELECT: &str = "SELECT body, EXISTS(SELECT 1 FROM fleet_runs
     WHERE fleet_runs.fleet_id = fleets.id AND fleet_runs.status IN ('queued', 'running')) AS running FROM fleets";

#[async_trait]
impl Store for PgStore {
    async fn insert_agent(&self, agent: &Agent) -> StoreResult<()> {
        let body = Body::of(&agent.id, agent, agent.version, agent.created_at, agent.updated_at)?;
        self.write(move |c, _| Box::pin(async move { resources::insert_body(c, BodyTable::Agents, &body).await })).await
    }

    async fn get_agent(&self, id: &str) -> StoreResult<Option<Agent>> {
        let row = sqlx::query("SELECT body FROM agents WHERE id = $1").bind(id).fetch_optional(&self.pool).await?;
        row.as_ref().map(rows::body).transpose()
    }

    async fn list_agents(&self) -> StoreResult<Vec<Agent>> {
        let found = sqlx::query("SELECT body FROM agents ORDER BY id").fetch_all(&self.pool).await?;
        found.iter().map(rows::body).collect()
    }

    async fn update_agent(&self, agent: &Agent) -> StoreResult<()> {
        let body = Body::of(&agent.id, agent, agent.version, agent.created_at, agent.updated_at)?;
        self.write(move |c, _| Box::pin(async move { resources::update_body(c, BodyTable::Agents, &body).await })).await
    }

    async fn delete_agent(&self, id: &str) -> StoreResult<()> {
        let id = id.to_string();
        self.write(move |c, _| Box::pin(async move { resources::delete_body(c, BodyTable::Agents, &id).await })).await
    }

    async fn insert_fleet(&self, fleet: &Fleet) -> StoreResult<()> {
        let body = Body::of(&fleet.id, fleet, fleet.version, fleet.created_at, fleet.updated_at)?;
        self.write(move |c, _| Box::pin(async move { resources::insert_body(c, BodyTable::Fleets, &body).await })).await
    }

    async fn get_fleet(&self, id: &str) -> StoreResult<Option<Fleet>> {
        let row = sqlx::query(&format!("{FLEET_SELECT} WHERE id = $1")).bind(id).fetch_optional(&self.pool).await?;
        row.as_ref().map(rows::fleet).transpose()
    }

    async fn list_fleets(&self) -> StoreResult<Vec<Fleet>> {
        let found = sqlx::query(&format!("{FLEET_SELECT} ORDER BY id")).fetch_all(&self.pool).await?;
        found.iter().map(rows::fleet).collect()
    }

    async fn update_fleet(&self, fleet: &Fleet) -> StoreResult<()> {
        let body = Body::of(&fleet.id, fleet, fleet.version, fleet.created_at, fleet.updated_at)?;
        self.write(move |c, _| Box::pin(async move { resources::update_body(c, BodyTable::Fleets, &body).await })).await
    }

    async fn delete_fleet(&self, id: &str) -> StoreResult<()> {
        let id = id.to_string();
        self.write(move |c, _| Box::pin(async move { resources::delete_body(c, BodyTable::Fleets, &id).await })).await
    }

    async fn insert_session(&self, session: &Session) -> StoreResult<()> {
        let session = session.clone();
        self.write(move |c, _| Box::pin(async move { resources::insert_session(c, &session).await })).await
    }

    async fn get_session(&self, id: &str) -> StoreResult<Option<Session>> {
        let row = sqlx::query("SELECT * FROM sessions WHERE id = $1").bind(id).fetch_optional(&self.pool).await?;
        row.as_ref().map(rows::session).transpose()
    }

    async fn list_sessions(&self, filter: &SessionFilter) -> StoreResult<Vec<Session>> {
        let (past, order) = (rows::past(filter.order), rows::order_by(filter.order));
        let owned = rows::owned_by(&filter.owner, "owner", "$3::text");
        let sql = format!(
            "SELECT * FROM sessions WHERE ($1::text IS NULL OR id {past} $1) AND {owned} ORDER BY id {order} LIMIT $2"
        );
        // PostgreSQL reads a null limit as none.
        let limit = filter.limit.map(i64::from);
        let found = sqlx::query(&sql).bind(&filter.after).bind(limit).bind(&filter.owner).fetch_all(&self.pool).await?;
        found.iter().map(rows::session).collect()
    }

    async fn update_session(&self, session: &Session) -> StoreResult<()> {
        let session = session.clone();
        self.write(move |c, _| Box::pin(async move { resources::update_session(c, &session).await })).await
    }

    async fn delete_session(&self, id: &str) -> StoreResult<()> {
        let id = id.to_string();
        self.write(move |c, p| Box::pin(async move { resources::delete_session(c, p, &id).await })).await
    }

    async fn session_history(&self, id: &str) -> StoreResult<Vec<Message>> {
        // A row holds the messages one run added (migration 9).
        let rows: Vec<String> = sqlx::query_scalar(
            "SELECT messages FROM session_messages WHERE session_id = $1 AND branch = 0 ORDER BY idx",
        )
        .bind(id)
        .fetch_all(&self.pool)
        .await?;
        let mut history = Vec::new();
        for row in &rows {
            history.extend(serde_json::from_str::<Vec<Message>>(row)?);
        }
        Ok(history)
    }

    async fn session_history_at(&self, id: &str, at: &HistoryAt) -> StoreResult<Vec<Message>> {
        let mut tx = super::begin_snapshot(&self.pool).await?;
        let history = branches::history_at(&mut tx, id, at).await?;
        tx.commit().await?;
        Ok(history)
    }

    async fn fork_session(&self, fork: &Session, from: &str, at: Option<&str>) -> StoreResult<Session> {
        let (fork, from, at) = (fork.clone(), from.to_string(), at.map(str::to_string));
        self.write(move |c, _| Box::pin(async move { branches::fork(c, &fork, &from, at.as_deref()).await })).await
    }

    async fn rewind_session(&self, id: &str, to: &RewindTo) -> StoreResult<Option<Branch>> {
        let (id, to) = (id.to_string(), to.clone());
        self.write(move |c, _| Box::pin(async move { branches::rewind(c, &id, &to).await })).await
    }

    async fn session_branches(&self, id: &str) -> StoreResult<Vec<Branch>> {
        let mut c = self.pool.acquire().await?;
        branches::branches(&mut c, id).await
    }

    async fn session_and_agent(
        &self,
        session_id: &str,
        agent_id: Option<&str>,
    ) -> StoreResult<Option<(Session, Option<Agent>)>> {
        let row = sqlx::query(
            "SELECT s.*, a.body AS agent FROM sessions s LEFT JOIN agents a ON a.id = COALESCE($2, s.agent_id)
             WHERE s.id = $1",
        )
        .bind(session_id)
        .bind(agent_id)
        .fetch_optional(&self.pool)
        .await?;
        let Some(row) = row else { return Ok(None) };
        let agent: Option<String> = row.try_get("agent")?;
        let agent = agent.map(|body| serde_json::from_str(&body)).transpose()?;
        Ok(Some((rows::session(&row)?, agent)))
    }

    async fn enqueue_run(&self, run: NewRun, key: Option<IdempotencyKey>) -> StoreResult<Enqueued> {
        if queue::is_plain(&run, &key) {
            if let Some(enqueued) = self.enqueue_plain(&run).await? {
                return Ok(enqueued);
            }
        }
        self.write(move |c, p| Box::pin(queue::enqueue(c, p, run, key))).await
    }

    async fn get_run(&self, id: &str) -> StoreResult<Option<Run>> {
        let row = sqlx::query(&format!("SELECT {} FROM runs WHERE id = $1", rows::RUN_COLUMNS))
            .bind(id)
            .fetch_optional(&self.pool)
            .await?;
        row.as_ref().map(rows::run).transpose()
    }

    async fn run_standing(&self, id: &str, after: u64) -> StoreResult<Option<RunStanding>> {
        let row =
            sqlx::query(rows::RUN_STANDING).bind(id).bind(rows::stored_place(after)).fetch_optional(&self.pool).await?;
        row.as_ref().map(rows::run_standing).transpose()
    }

    async fn run_checkpoints(&self, id: &str) -> StoreResult<Vec<Checkpoint>> {
        let mut c = self.pool.acquire().await?;
        load::checkpoints(&mut c, id).await
    }

    async fn list_runs(&self, filter: &RunFilter) -> StoreResult<Vec<Run>> {
        let found = sqlx::query(&format!(
            "SELECT {} FROM runs
             WHERE ($1::text IS NULL OR session_id = $1) AND ($2::text IS NULL OR status = $2)
               AND ($5::text IS NULL OR fleet_run_id = $5) AND {} AND {}
               AND ($3::text IS NULL OR queue_seq {} (SELECT queue_seq FROM runs WHERE id = $3))
             ORDER BY queue_seq {} LIMIT $4",
            rows::RUN_COLUMNS,
            rows::lineage(filter, "$6::text", "$7::text"),
            rows::owned_by(&filter.owner, "owner", "$8::text"),
            rows::past(filter.order),
            rows::order_by(filter.order)
        ))
        .bind(&filter.session_id)
        .bind(filter.status.map(|s| s.as_str()))
        .bind(&filter.after)
        .bind(filter.limit as i64)
        .bind(&filter.fleet_run_id)
        .bind(&filter.parent_run_id)
        .bind(&filter.formation_run_id)
        .bind(&filter.owner)
        .fetch_all(&self.pool)
        .await?;
        found.iter().map(rows::run).collect()
    }

    async fn count_runs(&self, status: RunStatus) -> StoreResult<u64> {
        let n: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM runs WHERE status = $1")
            .bind(status.as_str())
            .fetch_one(&self.pool)
            .await?;
        Ok(n as u64)
    }

    async fn now(&self) -> StoreResult<DateTime<Utc>> {
        let now: i64 = sqlx::query_scalar("SELECT wingman_ms()").fetch_one(&self.pool).await?;
        Ok(crate::store::rows::at(now))
    }

    async fn queue_view(&self, next: u32) -> StoreResult<crate::domain::queue::QueueView> {
        super::queue_view::read(&self.pool, next).await
    }

    async fn queue_stats(&self) -> StoreResult<QueueStats> {
        let row = sqlx::query(
            "SELECT (SELECT COUNT(*) FROM runs WHERE status = 'queued') AS queued,
                    (SELECT COUNT(*) FROM runs WHERE status = 'running') AS running,
                    (SELECT COUNT(*) FROM workers WHERE lease_expires_at > wingman_ms()) AS workers",
        )
        .fetch_one(&self.pool)
        .await?;
        Ok(QueueStats {
            queued: row.try_get::<i64, _>("queued")? as u64,
            running: row.try_get::<i64, _>("running")? as u64,
            workers: row.try_get::<i64, _>("workers")? as u64,
        })
    }

    async fn cancel_run(&self, id: &str, by: &By) -> StoreResult<Run> {
        let (id, by) = (id.to_string(), by.clone());
        self.write(move |c, p| Box::pin(async move { progress::cancel(c, p, &id, &by).await })).await
    }

    async fn enqueue_fleet_run(&self, run: NewFleetRun, key: Option<IdempotencyKey>) -> StoreResult<EnqueuedFleetRun> {
        self.write(move |c, p| Box::pin(fleet::enqueue(c, p, run, key))).await
    }

    async fn get_fleet_run(&self, id: &str) -> StoreResult<Option<FleetRun>> {
        let row =
            sqlx::query(&format!("{} WHERE f.id = $1", fleet::SELECT)).bind(id).fetch_optional(&self.pool).await?;
        row.as_ref().map(rows::fleet_run).transpose()
    }

    async fn list_fleet_runs(&self, filter: &FleetRunFilter) -> StoreResult<Vec<FleetRun>> {
        let found = sqlx::query(&format!(
            "{} WHERE ($1::text IS NULL OR f.fleet_id = $1) AND ($2::text IS NULL OR f.id {} $2) AND {}
             ORDER BY f.id {} LIMIT $3",
            fleet::SELECT,
            rows::past(filter.order),
            rows::owned_by(&filter.owner, "f.owner", "$4::text"),
            rows::order_by(filter.order)
        ))
        .bind(&filter.fleet_id)
        .bind(&filter.after)
        .bind(filter.limit as i64)
        .bind(&filter.owner)
        .fetch_all(&self.pool)
        .await?;
        found.iter().map(rows::fleet_run).collect()
    }

    async fn fleet_run_tasks(&self, id: &str, after_index: Option<u32>, limit: u32) -> StoreResult<Vec<Run>> {
        let found = sqlx::query(&format!(
            "SELECT {} FROM runs WHERE fleet_run_id = $1 AND task_index > $2 ORDER BY task_index LIMIT $3",
            rows::RUN_COLUMNS
        ))
        .bind(id)
        .bind(after_index.map(i64::from).unwrap_or(-1))
        .bind(limit as i64)
        .fetch_all(&self.pool)
        .await?;
        found.iter().map(rows::run).collect()
    }

    async fn cancel_fleet_run(&self, id: &str, by: &By) -> StoreResult<FleetRun> {
        let (id, by) = (id.to_string(), by.clone());
        self.write(move |c, p| Box::pin(async move { fleet::cancel(c, p, &id, &by).await })).await
    }

    async fn insert_formation(&self, formation: &Formation) -> StoreResult<()> {
        let body = Body::of(&formation.id, formation, formation.version, formation.created_at, formation.updated_at)?;
        self.write(move |c, _| Box::pin(async move { resources::insert_body(c, BodyTable::Formations, &body).await }))
            .await
    }

    async fn get_formation(&self, id: &str) -> StoreResult<Option<Formation>> {
        let row = sqlx::query("SELECT body FROM formations WHERE id = $1").bind(id).fetch_optional(&self.pool).await?;
        row.as_ref().map(rows::body).transpose()
    }

    async fn list_formations(&self) -> StoreResult<Vec<Formation>> {
        let found = sqlx::query("SELECT body FROM formations ORDER BY id").fetch_all(&self.pool).await?;
        found.iter().map(rows::body).collect()
    }

    async fn delete_formation(&self, id: &str) -> StoreResult<()> {
        let id = id.to_string();
        self.write(move |c, _| Box::pin(async move { resources::delete_body(c, BodyTable::Formations, &id).await }))
            .await
    }

    async fn enqueue_formation_run(
        &self,
        run: NewFormationRun,
        key: Option<IdempotencyKey>,
    ) -> StoreResult<EnqueuedFormationRun> {
        self.write(move |c, p| Box::pin(formations::enqueue(c, p, run, key))).await
    }

    async fn get_formation_run(&self, id: &str) -> StoreResult<Option<FormationRun>> {
        formations::get(&mut *self.pool.acquire().await?, id).await
    }

    async fn list_formation_runs(&self, filter: &FormationRunFilter) -> StoreResult<Vec<FormationRun>> {
        formations::list(&mut *self.pool.acquire().await?, filter).await
    }

    async fn cancel_formation_run(&self, id: &str) -> StoreResult<FormationRun> {
        let id = id.to_string();
        self.write(move |c, p| Box::pin(async move { formations::cancel(c, p, &id).await })).await
    }

    async fn insert_schedule(&self, schedule: &Schedule) -> StoreResult<()> {
        schedules::insert(&self.pool, schedule).await
    }

    async fn get_schedule(&self, id: &str) -> StoreResult<Option<Schedule>> {
        schedules::get(&self.pool, id).await
    }

    async fn list_schedules(&self) -> StoreResult<Vec<Schedule>> {
        schedules::list(&self.pool).await
    }

    async fn update_schedule(&self, schedule: &Schedule) -> StoreResult<()> {
        schedules::update(&self.pool, schedule).await
    }

    async fn delete_schedule(&self, id: &str) -> StoreResult<()> {
        schedules::delete(&self.pool, id).await
    }

    async fn due_schedules(&self, now: DateTime<Utc>, limit: u32) -> StoreResult<Vec<Schedule>> {
        schedules::due(&self.pool, now, limit).await
    }

    async fn next_schedule_due(&self) -> StoreResult<Option<DateTime<Utc>>> {
        schedules::next_due(&self.pool).await
    }

    async fn record_tick(
        &self,
        id: &str,
        expected: DateTime<Utc>,
        tick: &Tick,
        following: Option<DateTime<Utc>>,
    ) -> StoreResult<bool> {
        schedules::record_tick(&self.pool, id, expected, tick, following).await
    }

    async fn schedule_ticks(&self, id: &str, limit: u32) -> StoreResult<Vec<Tick>> {
        schedules::ticks(&self.pool, id, limit).await
    }

    async fn last_submission(&self, id: &str) -> StoreResult<Option<Tick>> {
        schedules::last_submission(&self.pool, id).await
    }

    async fn claim_deliveries(&self, lease: Duration, limit: u32) -> StoreResult<Vec<Delivery>> {
        deliveries::claim(&self.pool, lease, limit).await
    }

    async fn record_delivery_attempt(&self, id: &str, attempt: &Attempt, next: &Next) -> StoreResult<bool> {
        deliveries::record(&self.pool, id, attempt, next).await
    }

    async fn next_delivery_due(&self) -> StoreResult<Option<DateTime<Utc>>> {
        deliveries::next_due(&self.pool).await
    }

    async fn list_deliveries(&self, subject_id: &str) -> StoreResult<Vec<Delivery>> {
        deliveries::list(&self.pool, subject_id).await
    }

    async fn read_events(&self, run_id: &str, after: u64, limit: u32) -> StoreResult<Vec<Event>> {
        events::read(&self.pool, run_id, after, limit).await
    }

    async fn event_cursor(&self) -> StoreResult<EventCursor> {
        events::cursor(&self.pool).await
    }

    async fn events_since(&self, cursor: EventCursor, limit: u32) -> StoreResult<Vec<(EventCursor, Event)>> {
        events::since(&self.pool, cursor, limit).await
    }

    async fn register_worker(&self, id: &str, name: &str, lease: Duration) -> StoreResult<()> {
        let (id, name) = (id.to_string(), name.to_string());
        self.control(move |c| Box::pin(async move { workers::register(c, &id, &name, lease).await })).await
    }

    async fn heartbeat(&self, id: &str, lease: Duration) -> StoreResult<Heartbeat> {
        let id = id.to_string();
        let beat = self.control(move |c| Box::pin(async move { workers::heartbeat(c, &id, lease).await })).await;
        // A heartbeat is a write every worker makes every second or so.
        if beat.is_ok() {
            crate::store::disk::noticed(true);
        }
        beat
    }

    async fn deregister_worker(&self, id: &str) -> StoreResult<()> {
        let id = id.to_string();
        self.control(move |c| Box::pin(async move { workers::deregister(c, &id).await })).await
    }

    async fn list_workers(&self) -> StoreResult<Vec<WorkerInfo>> {
        // Leases are judged by the database's clock, as every worker's are.
        let sql = rows::WORKERS_SELECT.replace("NOW_MS", "wingman_ms()");
        let found = sqlx::query(&sql).fetch_all(&self.pool).await?;
        let mut workers = Vec::new();
        for row in &found {
            rows::push_worker(&mut workers, row)?;
        }
        Ok(workers)
    }

    fn changes(&self) -> Option<tokio::sync::watch::Receiver<u64>> {
        self.changes.clone()
    }

    async fn has_claimable(&self) -> StoreResult<bool> {
        let yes: bool = sqlx::query_scalar(&format!(
            "SELECT EXISTS(SELECT 1 FROM runs WHERE status = 'queued' AND blocked = 0 AND held = 0) OR {} OR {}
                 OR EXISTS({})",
            queue::ORPHANS_EXIST,
            super::slots::HELD_WITH_FREE_SLOT,
            queue::PARKED_DUE
        ))
        .fetch_one(&self.pool)
        .await?;
        Ok(yes)
    }

    fn look_before_claiming(&self) -> bool {
        false
    }

    async fn claim_runs(&self, worker_id: &str, limit: u32) -> StoreResult<Vec<Claim>> {
        let writing = self.hints.writing();
        match queue::claim_queued(&self.pool, worker_id, limit, writing.alone).await? {
            queue::QuickClaim::Claimed(claims) => {
                if !claims.is_empty() && !writing.alone {
                    self.hints.hint();
                }
                Ok(claims)
            }
            queue::QuickClaim::Fenced => Err(StoreError::Fenced),
            queue::QuickClaim::Orphans | queue::QuickClaim::Keyed => {
                let worker_id = worker_id.to_string();
                self.write(move |c, p| Box::pin(async move { queue::claim(c, p, &worker_id, limit).await })).await
            }
        }
    }

    async fn load_runs(&self, run_ids: Vec<String>, histories: Arc<HistoryCache>) -> StoreResult<Vec<RunContext>> {
        load::run_contexts(&self.pool, &run_ids, &histories).await
    }

    async fn commit(&self, lease: &Lease, commit: Commit) -> StoreResult<Committed> {
        self.commits.commit(lease, commit).await
    }

    async fn read_inbox(&self, run_id: &str) -> StoreResult<Vec<InboxItem>> {
        people::read_inbox(&mut *self.pool.acquire().await?, run_id).await
    }

    async fn steer_run(&self, id: &str, message: &str, by: &By) -> StoreResult<Run> {
        let (id, message, by) = (id.to_string(), message.to_string(), by.clone());
        self.write(move |c, p| Box::pin(async move { people::steer(c, p, &id, &message, &by).await })).await
    }

    async fn decide(&self, id: &str, step: u32, answers: Vec<Checkpoint>, events: Vec<RunEvent>) -> StoreResult<Run> {
        let id = id.to_string();
        self.write(move |c, p| Box::pin(async move { people::decide(c, p, &id, step, &answers, &events).await })).await
    }

    async fn release_run(&self, lease: &Lease, how: HandBack) -> StoreResult<()> {
        let lease = lease.clone();
        self.write(move |c, p| Box::pin(async move { queue::release(c, p, &lease, how).await })).await
    }

    async fn put_credentials(&self, owner: &str, keys: Vec<(String, ApiKey)>) -> StoreResult<Vec<CredentialInfo>> {
        let owner = owner.to_string();
        self.write(move |c, _| {
            Box::pin(async move {
                let mut stored = Vec::with_capacity(keys.len());
                for (name, key) in &keys {
                    stored.push(sealed::put_credential(c, &owner, name, key).await?);
                }
                Ok(stored)
            })
        })
        .await
    }

    async fn get_credential(&self, owner: &str, name: &str) -> StoreResult<Option<ApiKey>> {
        sealed::get_credential(&self.pool, owner, name).await
    }

    async fn list_credentials(&self, owner: &str) -> StoreResult<Vec<CredentialInfo>> {
        sealed::list_credentials(&self.pool, owner).await
    }

    async fn delete_credential(&self, owner: &str, name: &str) -> StoreResult<()> {
        let (owner, name) = (owner.to_string(), name.to_string());
        let table = SealedTable::Credentials;
        self.write(move |c, _| Box::pin(async move { sealed::delete(c, table, &owner, &name).await })).await
    }

    async fn put_quota(&self, owner: &str, quota: &Quota) -> StoreResult<()> {
        let (owner, quota) = (owner.to_string(), *quota);
        self.write(move |c, _| Box::pin(async move { quotas::put(c, &owner, &quota).await })).await
    }

    async fn list_quotas(&self) -> StoreResult<Vec<(String, Quota)>> {
        quotas::list(&self.pool).await
    }

    async fn owner_usage(&self, owner: &str, from: &str, to: &str) -> StoreResult<Vec<DayUsage>> {
        quotas::usage(&self.pool, owner, from, to).await
    }

    async fn spent_today(&self, owner: &str) -> StoreResult<f64> {
        quotas::spent_today(&self.pool, owner).await
    }

    async fn count_queued(&self, owner: &str) -> StoreResult<u64> {
        quotas::count_queued(&self.pool, owner).await
    }

    async fn insert_api_key(&self, key: &NewApiKey) -> StoreResult<ApiKeyInfo> {
        let key = key.clone();
        self.write(move |c, _| Box::pin(async move { keys::insert(c, &key).await })).await
    }

    async fn find_api_key(&self, digest: [u8; 32]) -> StoreResult<Option<ApiKeyInfo>> {
        keys::find(&self.pool, &digest).await
    }

    async fn list_api_keys(&self) -> StoreResult<Vec<ApiKeyInfo>> {
        keys::list(&self.pool).await
    }

    async fn revoke_api_key(&self, id: &str) -> StoreResult<ApiKeyInfo> {
        let id = id.to_string();
        self.write(move |c, _| Box::pin(async move { keys::revoke(c, &id).await })).await
    }

    async fn any_live_api_key(&self) -> StoreResult<bool> {
        keys::any_live(&self.pool).await
    }

    async fn record_audit(&self, entries: &[AuditEntry]) -> StoreResult<()> {
        let entries = entries.to_vec();
        self.write(move |c, _| Box::pin(async move { audit::record(c, &entries).await })).await
    }

    async fn list_audit(&self, filter: &AuditFilter) -> StoreResult<Vec<AuditEntry>> {
        audit::list(&self.pool, filter).await
    }

    async fn put_secret(&self, owner: &str, name: &str, value: &Secret) -> StoreResult<SecretInfo> {
        let (owner, name, value) = (owner.to_string(), name.to_string(), value.clone());
        self.write(move |c, _| Box::pin(async move { sealed::put_secret(c, &owner, &name, &value).await })).await
    }

    async fn get_secrets(&self, owner: &str, names: &[String]) -> StoreResult<Vec<(String, Secret)>> {
        sealed::get_secrets(&self.pool, owner, names).await
    }

    async fn list_secrets(&self, owner: &str) -> StoreResult<Vec<SecretInfo>> {
        sealed::list_secrets(&self.pool, owner).await
    }

    async fn record_mcp_listing(&self, listing: &McpListing) -> StoreResult<()> {
        listings::record(&self.pool, listing).await
    }

    async fn mcp_listing(&self, definition: &str) -> StoreResult<Option<McpListing>> {
        listings::get(&self.pool, definition).await
    }

    async fn take_provider_share(
        &self,
        ask: &crate::domain::share::ShareAsk,
    ) -> StoreResult<crate::domain::share::Share> {
        if let Some(now) = budgets::untouched(&self.pool, ask).await? {
            return Ok(crate::domain::share::Share::Go { now, tracked: false });
        }
        let ask = ask.clone();
        self.write(move |c, _| Box::pin(async move { budgets::take(c, &ask).await })).await
    }

    async fn settle_provider_call(
        &self,
        run_id: &str,
        names: &[String],
        outcome: crate::domain::budget::Outcome,
        heard: Option<crate::domain::budget::Heard>,
    ) -> StoreResult<()> {
        let (run_id, names) = (run_id.to_string(), names.to_vec());
        self.write(move |c, _| Box::pin(async move { budgets::settle(c, &run_id, &names, outcome, heard).await })).await
    }

    async fn set_provider_limits(
        &self,
        name: &str,
        limits: Option<crate::domain::model::ProviderLimits>,
    ) -> StoreResult<()> {
        let name = name.to_string();
        self.write(move |c, _| Box::pin(async move { budgets::set_limits(c, &name, limits).await })).await
    }

    async fn provider_budgets(&self) -> StoreResult<(i64, Vec<crate::domain::budget::BudgetSeen>)> {
        let mut c = self.pool.acquire().await?;
        let now: i64 = sqlx::query_scalar("SELECT wingman_ms()").fetch_one(&mut *c).await?;
        Ok((now, budgets::list(&mut c).await?))
    }

    async fn provider_wait(&self, run_id: &str) -> StoreResult<Option<(String, i64)>> {
        let mut c = self.pool.acquire().await?;
        budgets::wait_of(&mut c, run_id).await
    }

    async fn delete_secret(&self, owner: &str, name: &str) -> StoreResult<()> {
        let (owner, name) = (owner.to_string(), name.to_string());
        let table = SealedTable::Secrets;
        self.write(move |c, _| Box::pin(async move { sealed::delete(c, table, &owner, &name).await })).await
    }

    async fn prune_logs(&self, older_than: Duration, limit: u32) -> StoreResult<Pruned> {
        self.write(move |c, _| Box::pin(retention::prune(c, older_than, limit))).await
    }

    async fn prune_records(&self, older_than: Duration, limit: u32) -> StoreResult<Pruned> {
        self.write(move |c, _| Box::pin(retention::prune_records(c, older_than, limit))).await
    }

    async fn delete_run(&self, id: &str) -> StoreResult<()> {
        crate::store::retention::delete_in_batches(|| {
            let id = id.to_string();
            self.write(move |c, _| {
                Box::pin(async move { retention::delete_run(c, &id, crate::store::retention::DELETE_BATCH).await })
            })
        })
        .await
    }
}
