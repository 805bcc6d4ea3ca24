//! The SQLite backend: one file in WAL mode, written by one group-commit
//! writer per process and read through a small pool of read connections,
//! all driven in-thread through SQLite's C API (rusqlite).

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use chrono::{DateTime, Utc};

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
use crate::store::sealed::SealedTable;
use crate::store::{
    AuditFilter, Claim, Commit, Committed, Enqueued, EnqueuedFleetRun, EnqueuedFormationRun, EventCursor,
    FleetRunFilter, FormationRunFilter, HandBack, Heartbeat, IdempotencyKey, InboxItem, Lease, NewFleetRun, NewRun,
    Pruned, QueueStats, RunContext, RunFilter, SessionFilter, Store, StoreOptions, StoreResult, WorkerInfo,
};

mod audit;
mod branches;
mod budgets;
mod children;
mod deliveries;
mod encoded;
mod fair;
mod fleet;
mod formations;
mod keys;
mod listings;
mod load;
mod migrate;
mod open;
mod people;
mod progress;
mod queue;
mod queue_view;
mod quotas;
mod readers;
mod reads;
mod resources;
mod retention;
mod rows;
mod run_rows;
mod schedules;
mod sealed;
mod slots;
mod wal_lock;
mod watch;
mod workers;
mod write_job;
mod writer;

pub use migrate::up_to as migrate_up_to;
use readers::Readers;
use resources::{Body, BodyTable};
use writer::Writer;

/// What SQLite holds in this process's heap now, over every connection of
/// every store: page caches, prepared statements, schemas.
pub fn memory_used() -> u64 {
    // SAFETY: sqlite3_memory_used only reads SQLite's own counter.
    u64::try_from(unsafe { rusqlite::ffi::sqlite3_memory_used() }).unwrap_or(0)
}

/// A Wingman store in one SQLite file.
pub struct SqliteStore {
    /// Read-only connections, each used on a blocking thread.
    readers: Readers,
    writer: Writer,
    changes: Option<tokio::sync::watch::Receiver<u64>>,
}

impl SqliteStore {
    /// Opens (creating and migrating if needed) the database at `url`: a
    /// `sqlite:` URL or a plain file path.
    pub async fn open(url: &str, options: &StoreOptions) -> anyhow::Result<SqliteStore> {
        let path = open::database_path(url)?;
        let synchronous_full = options.synchronous_full;
        let file = path.clone();
        // Migrating may wait for another process's write lock: on a blocking
        // thread, not on one of the runtime's.
        let migrated = tokio::task::spawn_blocking(move || open::create_and_migrate(&file, synchronous_full)).await??;
        let writer = Writer::spawn(&path, synchronous_full)?;
        let mut wal = path.as_os_str().to_owned();
        wal.push("-wal");
        let changes = watch::spawn(&path, Path::new(&wal), writer.own_writes());
        // Held open until here, the migration's connection kept the `-wal`
        // file for the watch even if a connection of another program (which
        // does not keep the WAL files, as ours do) closed meanwhile.
        drop(migrated);
        Ok(SqliteStore { readers: Readers::new(&path), writer, changes })
    }
}

#[async_trait]
impl Store for SqliteStore {
    async fn insert_agent(&self, agent: &Agent) -> StoreResult<()> {
        let body = Body::of(&agent.id, agent, agent.version, agent.created_at, agent.updated_at)?;
        self.writer.write(move |c| resources::insert_body(c, BodyTable::Agents, &body)).await
    }

    async fn get_agent(&self, id: &str) -> StoreResult<Option<Agent>> {
        let id = id.to_string();
        self.readers.read(move |c| reads::agent(c, &id)).await
    }

    async fn list_agents(&self) -> StoreResult<Vec<Agent>> {
        self.readers.read(reads::agents).await
    }

    async fn update_agent(&self, agent: &Agent) -> StoreResult<()> {
        let body = Body::of(&agent.id, agent, agent.version, agent.created_at, agent.updated_at)?;
        self.writer.write(move |c| resources::update_body(c, BodyTable::Agents, &body)).await
    }

    async fn delete_agent(&self, id: &str) -> StoreResult<()> {
        let id = id.to_string();
        self.writer.write(move |c| resources::delete_body(c, BodyTable::Agents, &id)).await
    }

    async fn insert_fleet(&self, fleet: &Fleet) -> StoreResult<()> {
        let body = Body::of(&fleet.id, fleet, fleet.version, fleet.created_at, fleet.updated_at)?;
        self.writer.write(move |c| resources::insert_body(c, BodyTable::Fleets, &body)).await
    }

    async fn get_fleet(&self, id: &str) -> StoreResult<Option<Fleet>> {
        let id = id.to_string();
        self.readers.read(move |c| reads::fleet(c, &id)).await
    }

    async fn list_fleets(&self) -> StoreResult<Vec<Fleet>> {
        self.readers.read(reads::fleets).await
    }

    async fn update_fleet(&self, fleet: &Fleet) -> StoreResult<()> {
        let body = Body::of(&fleet.id, fleet, fleet.version, fleet.created_at, fleet.updated_at)?;
        self.writer.write(move |c| resources::update_body(c, BodyTable::Fleets, &body)).await
    }

    async fn delete_fleet(&self, id: &str) -> StoreResult<()> {
        let id = id.to_string();
        self.writer.write(move |c| resources::delete_body(c, BodyTable::Fleets, &id)).await
    }

    async fn insert_session(&self, session: &Session) -> StoreResult<()> {
        let session = session.clone();
        self.writer.write(move |c| resources::insert_session(c, &session)).await
    }

    async fn get_session(&self, id: &str) -> StoreResult<Option<Session>> {
        let id = id.to_string();
        self.readers.read(move |c| reads::session(c, &id)).await
    }

    async fn session_and_agent(
        &self,
        session_id: &str,
        agent_id: Option<&str>,
    ) -> StoreResult<Option<(Session, Option<Agent>)>> {
        let (session_id, agent_id) = (session_id.to_string(), agent_id.map(str::to_string));
        self.readers.read(move |c| reads::session_and_agent(c, &session_id, agent_id.as_deref())).await
    }

    async fn list_sessions(&self, filter: &SessionFilter) -> StoreResult<Vec<Session>> {
        let filter = filter.clone();
        self.readers.read(move |c| reads::sessions(c, &filter)).await
    }

    async fn update_session(&self, session: &Session) -> StoreResult<()> {
        let session = session.clone();
        self.writer.write(move |c| resources::update_session(c, &session)).await
    }

    async fn delete_session(&self, id: &str) -> StoreResult<()> {
        let id = id.to_string();
        self.writer.write(move |c| resources::delete_session(c, &id)).await
    }

    async fn session_history(&self, id: &str) -> StoreResult<Vec<Message>> {
        let id = id.to_string();
        self.readers.read(move |c| reads::history(c, &id)).await
    }

    async fn session_history_at(&self, id: &str, at: &HistoryAt) -> StoreResult<Vec<Message>> {
        let (id, at) = (id.to_string(), at.clone());
        self.readers.read(move |c| branches::history_at(c, &id, &at)).await
    }

    async fn fork_session(&self, fork: &Session, from: &str, at: Option<&str>) -> StoreResult<Session> {
        let (fork, from, at) = (fork.clone(), from.to_string(), at.map(str::to_string));
        self.writer.write(move |c| branches::fork(c, &fork, &from, at.as_deref())).await
    }

    async fn rewind_session(&self, id: &str, to: &RewindTo) -> StoreResult<Option<Branch>> {
        let (id, to) = (id.to_string(), to.clone());
        self.writer.write(move |c| branches::rewind(c, &id, &to, Utc::now())).await
    }

    async fn session_branches(&self, id: &str) -> StoreResult<Vec<Branch>> {
        let id = id.to_string();
        self.readers.read(move |c| branches::branches(c, &id)).await
    }

    async fn enqueue_run(&self, run: NewRun, key: Option<IdempotencyKey>) -> StoreResult<Enqueued> {
        self.writer.write_repeatable(move |c| queue::enqueue(c, &run, key.as_ref())).await
    }

    async fn get_run(&self, id: &str) -> StoreResult<Option<Run>> {
        let id = id.to_string();
        self.readers.read(move |c| queue::get_run(c, &id)).await
    }

    async fn run_standing(&self, id: &str, after: u64) -> StoreResult<Option<RunStanding>> {
        let id = id.to_string();
        self.readers.read(move |c| reads::run_standing(c, &id, after)).await
    }

    async fn run_checkpoints(&self, id: &str) -> StoreResult<Vec<Checkpoint>> {
        let id = id.to_string();
        self.readers.read(move |c| load::checkpoints(c, &id)).await
    }

    async fn list_runs(&self, filter: &RunFilter) -> StoreResult<Vec<Run>> {
        let filter = filter.clone();
        self.readers.read(move |c| reads::runs(c, &filter)).await
    }

    async fn count_runs(&self, status: RunStatus) -> StoreResult<u64> {
        self.readers.read(move |c| reads::count_runs(c, status)).await
    }

    async fn now(&self) -> StoreResult<DateTime<Utc>> {
        // Every process on the database's machine reads the one clock.
        Ok(Utc::now())
    }

    async fn queue_stats(&self) -> StoreResult<QueueStats> {
        self.readers.read(reads::queue_stats).await
    }

    async fn queue_view(&self, next: u32) -> StoreResult<crate::domain::queue::QueueView> {
        self.readers.read(move |c| queue_view::read(c, next)).await
    }

    async fn cancel_run(&self, id: &str, by: &By) -> StoreResult<Run> {
        let (id, by) = (id.to_string(), by.clone());
        self.writer.write(move |c| progress::cancel(c, &id, &by, Utc::now())).await
    }

    async fn steer_run(&self, id: &str, message: &str, by: &By) -> StoreResult<Run> {
        let (id, message, by) = (id.to_string(), message.to_string(), by.clone());
        self.writer.write(move |c| people::steer(c, &id, &message, &by, Utc::now())).await
    }

    async fn decide(&self, id: &str, step: u32, answers: Vec<Checkpoint>, events: Vec<RunEvent>) -> StoreResult<Run> {
        let id = id.to_string();
        self.writer.write(move |c| people::decide(c, &id, step, &answers, &events, Utc::now())).await
    }

    async fn enqueue_fleet_run(&self, run: NewFleetRun, key: Option<IdempotencyKey>) -> StoreResult<EnqueuedFleetRun> {
        self.writer.write(move |c| fleet::enqueue(c, run, key)).await
    }

    async fn get_fleet_run(&self, id: &str) -> StoreResult<Option<FleetRun>> {
        let id = id.to_string();
        self.readers.read(move |c| fleet::get(c, &id)).await
    }

    async fn list_fleet_runs(&self, filter: &FleetRunFilter) -> StoreResult<Vec<FleetRun>> {
        let filter = filter.clone();
        self.readers.read(move |c| reads::fleet_runs(c, &filter)).await
    }

    async fn fleet_run_tasks(&self, id: &str, after_index: Option<u32>, limit: u32) -> StoreResult<Vec<Run>> {
        let id = id.to_string();
        self.readers.read(move |c| reads::fleet_run_tasks(c, &id, after_index, limit)).await
    }

    async fn cancel_fleet_run(&self, id: &str, by: &By) -> StoreResult<FleetRun> {
        let (id, by) = (id.to_string(), by.clone());
        self.writer.write(move |c| fleet::cancel(c, &id, &by, Utc::now())).await
    }

    async fn insert_formation(&self, formation: &Formation) -> StoreResult<()> {
        let body = Body::of(&formation.id, formation, formation.version, formation.created_at, formation.updated_at)?;
        self.writer.write(move |c| resources::insert_body(c, BodyTable::Formations, &body)).await
    }

    async fn get_formation(&self, id: &str) -> StoreResult<Option<Formation>> {
        let id = id.to_string();
        self.readers.read(move |c| reads::formation(c, &id)).await
    }

    async fn list_formations(&self) -> StoreResult<Vec<Formation>> {
        self.readers.read(reads::formations).await
    }

    async fn delete_formation(&self, id: &str) -> StoreResult<()> {
        let id = id.to_string();
        self.writer.write(move |c| resources::delete_body(c, BodyTable::Formations, &id)).await
    }

    async fn enqueue_formation_run(
        &self,
        run: NewFormationRun,
        key: Option<IdempotencyKey>,
    ) -> StoreResult<EnqueuedFormationRun> {
        self.writer.write(move |c| formations::enqueue(c, run, key, Utc::now())).await
    }

    async fn get_formation_run(&self, id: &str) -> StoreResult<Option<FormationRun>> {
        let id = id.to_string();
        self.readers.read(move |c| formations::get(c, &id)).await
    }

    async fn list_formation_runs(&self, filter: &FormationRunFilter) -> StoreResult<Vec<FormationRun>> {
        let filter = filter.clone();
        self.readers.read(move |c| formations::list(c, &filter)).await
    }

    async fn cancel_formation_run(&self, id: &str) -> StoreResult<FormationRun> {
        let id = id.to_string();
        self.writer.write(move |c| formations::cancel(c, &id, Utc::now())).await
    }

    async fn insert_schedule(&self, schedule: &Schedule) -> StoreResult<()> {
        let schedule = schedule.clone();
        self.writer.write(move |c| schedules::insert(c, &schedule)).await
    }

    async fn get_schedule(&self, id: &str) -> StoreResult<Option<Schedule>> {
        let id = id.to_string();
        self.readers.read(move |c| schedules::get(c, &id)).await
    }

    async fn list_schedules(&self) -> StoreResult<Vec<Schedule>> {
        self.readers.read(schedules::list).await
    }

    async fn update_schedule(&self, schedule: &Schedule) -> StoreResult<()> {
        let schedule = schedule.clone();
        self.writer.write(move |c| schedules::update(c, &schedule)).await
    }

    async fn delete_schedule(&self, id: &str) -> StoreResult<()> {
        let id = id.to_string();
        self.writer.write(move |c| schedules::delete(c, &id)).await
    }

    async fn due_schedules(&self, now: DateTime<Utc>, limit: u32) -> StoreResult<Vec<Schedule>> {
        self.readers.read(move |c| schedules::due(c, now, limit)).await
    }

    async fn next_schedule_due(&self) -> StoreResult<Option<DateTime<Utc>>> {
        self.readers.read(schedules::next_due).await
    }

    async fn record_tick(
        &self,
        id: &str,
        expected: DateTime<Utc>,
        tick: &Tick,
        following: Option<DateTime<Utc>>,
    ) -> StoreResult<bool> {
        let (id, tick) = (id.to_string(), tick.clone());
        self.writer.write(move |c| schedules::record_tick(c, &id, expected, &tick, following)).await
    }

    async fn schedule_ticks(&self, id: &str, limit: u32) -> StoreResult<Vec<Tick>> {
        let id = id.to_string();
        self.readers.read(move |c| schedules::ticks(c, &id, limit)).await
    }

    async fn last_submission(&self, id: &str) -> StoreResult<Option<Tick>> {
        let id = id.to_string();
        self.readers.read(move |c| schedules::last_submission(c, &id)).await
    }

    async fn claim_deliveries(&self, lease: Duration, limit: u32) -> StoreResult<Vec<Delivery>> {
        self.writer.write(move |c| deliveries::claim(c, lease, limit, Utc::now())).await
    }

    async fn record_delivery_attempt(&self, id: &str, attempt: &Attempt, next: &Next) -> StoreResult<bool> {
        let (id, attempt, next) = (id.to_string(), attempt.clone(), next.clone());
        self.writer.write(move |c| deliveries::record(c, &id, &attempt, &next)).await
    }

    async fn next_delivery_due(&self) -> StoreResult<Option<DateTime<Utc>>> {
        self.readers.read(deliveries::next_due).await
    }

    async fn list_deliveries(&self, subject_id: &str) -> StoreResult<Vec<Delivery>> {
        let subject_id = subject_id.to_string();
        self.readers.read(move |c| deliveries::list(c, &subject_id)).await
    }

    async fn read_events(&self, run_id: &str, after: u64, limit: u32) -> StoreResult<Vec<Event>> {
        let run_id = run_id.to_string();
        self.readers.read(move |c| reads::events(c, &run_id, after, limit)).await
    }

    async fn event_cursor(&self) -> StoreResult<EventCursor> {
        self.readers.read(reads::event_cursor).await
    }

    /// SQLite commits one transaction at a time, so event numbers are in
    /// commit order by themselves.
    async fn events_since(&self, cursor: EventCursor, limit: u32) -> StoreResult<Vec<(EventCursor, Event)>> {
        self.readers.read(move |c| reads::events_since(c, cursor, limit)).await
    }

    async fn register_worker(&self, id: &str, name: &str, lease: Duration) -> StoreResult<()> {
        let (id, name) = (id.to_string(), name.to_string());
        self.writer.write_repeatable(move |c| workers::register(c, &id, &name, lease, Utc::now())).await
    }

    async fn heartbeat(&self, id: &str, lease: Duration) -> StoreResult<Heartbeat> {
        let id = id.to_string();
        self.writer.write_repeatable(move |c| workers::heartbeat(c, &id, lease, Utc::now())).await
    }

    async fn deregister_worker(&self, id: &str) -> StoreResult<()> {
        let id = id.to_string();
        self.writer.write_repeatable(move |c| workers::deregister(c, &id)).await
    }

    async fn list_workers(&self) -> StoreResult<Vec<WorkerInfo>> {
        self.readers.read(reads::workers).await
    }

    fn changes(&self) -> Option<tokio::sync::watch::Receiver<u64>> {
        self.changes.clone()
    }

    async fn has_claimable(&self) -> StoreResult<bool> {
        self.readers.read(reads::has_claimable).await
    }

    async fn claim_runs(&self, worker_id: &str, limit: u32) -> StoreResult<Vec<Claim>> {
        let worker_id = worker_id.to_string();
        self.writer.write_repeatable(move |c| queue::claim(c, &worker_id, limit, Utc::now())).await
    }

    async fn load_runs(&self, run_ids: Vec<String>, histories: Arc<HistoryCache>) -> StoreResult<Vec<RunContext>> {
        self.readers.read(move |c| load::run_contexts(c, &run_ids, &histories)).await
    }

    async fn commit(&self, lease: &Lease, commit: Commit) -> StoreResult<Committed> {
        let lease = lease.clone();
        let ahead = encoded::EncodedCommit::ahead(&commit)?;
        self.writer.write_repeatable(move |c| progress::commit(c, &lease, &commit, ahead.as_ref(), Utc::now())).await
    }

    async fn read_inbox(&self, run_id: &str) -> StoreResult<Vec<InboxItem>> {
        let run_id = run_id.to_string();
        self.readers.read(move |c| people::read_inbox(c, &run_id)).await
    }

    async fn release_run(&self, lease: &Lease, how: HandBack) -> StoreResult<()> {
        let lease = lease.clone();
        self.writer.write_repeatable(move |c| queue::release(c, &lease, how, Utc::now())).await
    }

    async fn put_credentials(&self, owner: &str, keys: Vec<(String, ApiKey)>) -> StoreResult<Vec<CredentialInfo>> {
        let owner = owner.to_string();
        self.writer
            .write(move |c| {
                let now = Utc::now();
                keys.iter().map(|(name, key)| sealed::put_credential(c, &owner, name, key, now)).collect()
            })
            .await
    }

    async fn get_credential(&self, owner: &str, name: &str) -> StoreResult<Option<ApiKey>> {
        let (owner, name) = (owner.to_string(), name.to_string());
        self.readers.read(move |c| sealed::get_credential(c, &owner, &name)).await
    }

    async fn list_credentials(&self, owner: &str) -> StoreResult<Vec<CredentialInfo>> {
        let owner = owner.to_string();
        self.readers.read(move |c| sealed::list_credentials(c, &owner)).await
    }

    async fn delete_credential(&self, owner: &str, name: &str) -> StoreResult<()> {
        let (owner, name) = (owner.to_string(), name.to_string());
        self.writer.write(move |c| sealed::delete(c, SealedTable::Credentials, &owner, &name)).await
    }

    async fn put_quota(&self, owner: &str, quota: &Quota) -> StoreResult<()> {
        let (owner, quota) = (owner.to_string(), *quota);
        self.writer.write(move |c| quotas::put(c, &owner, &quota, Utc::now())).await
    }

    async fn list_quotas(&self) -> StoreResult<Vec<(String, Quota)>> {
        self.readers.read(quotas::list).await
    }

    async fn owner_usage(&self, owner: &str, from: &str, to: &str) -> StoreResult<Vec<DayUsage>> {
        let (owner, from, to) = (owner.to_string(), from.to_string(), to.to_string());
        self.readers.read(move |c| quotas::usage(c, &owner, &from, &to)).await
    }

    async fn spent_today(&self, owner: &str) -> StoreResult<f64> {
        let (owner, today) = (owner.to_string(), crate::domain::quota::day_of(Utc::now()));
        let days = self.readers.read(move |c| quotas::usage(c, &owner, &today, &today)).await?;
        Ok(days.first().map_or(0.0, |day| day.cost_usd))
    }

    async fn count_queued(&self, owner: &str) -> StoreResult<u64> {
        let owner = owner.to_string();
        self.readers.read(move |c| quotas::count_queued(c, &owner)).await
    }

    async fn insert_api_key(&self, key: &NewApiKey) -> StoreResult<ApiKeyInfo> {
        let key = key.clone();
        self.writer.write(move |c| keys::insert(c, &key, Utc::now())).await
    }

    async fn find_api_key(&self, digest: [u8; 32]) -> StoreResult<Option<ApiKeyInfo>> {
        self.readers.read(move |c| keys::find(c, &digest)).await
    }

    async fn list_api_keys(&self) -> StoreResult<Vec<ApiKeyInfo>> {
        self.readers.read(keys::list).await
    }

    async fn revoke_api_key(&self, id: &str) -> StoreResult<ApiKeyInfo> {
        let id = id.to_string();
        self.writer.write(move |c| keys::revoke(c, &id, Utc::now())).await
    }

    async fn any_live_api_key(&self) -> StoreResult<bool> {
        self.readers.read(|c| keys::any_live(c, Utc::now())).await
    }

    async fn record_audit(&self, entries: &[AuditEntry]) -> StoreResult<()> {
        let rows = entries.iter().map(audit::Row::of).collect::<StoreResult<Vec<_>>>()?;
        self.writer.write(move |c| audit::record(c, &rows)).await
    }

    async fn list_audit(&self, filter: &AuditFilter) -> StoreResult<Vec<AuditEntry>> {
        let filter = filter.clone();
        self.readers.read(move |c| audit::list(c, &filter)).await
    }

    async fn put_secret(&self, owner: &str, name: &str, value: &Secret) -> StoreResult<SecretInfo> {
        let (owner, name, value) = (owner.to_string(), name.to_string(), value.clone());
        self.writer.write(move |c| sealed::put_secret(c, &owner, &name, &value, Utc::now())).await
    }

    async fn get_secrets(&self, owner: &str, names: &[String]) -> StoreResult<Vec<(String, Secret)>> {
        let (owner, names) = (owner.to_string(), names.to_vec());
        self.readers.read(move |c| sealed::get_secrets(c, &owner, &names)).await
    }

    async fn list_secrets(&self, owner: &str) -> StoreResult<Vec<SecretInfo>> {
        let owner = owner.to_string();
        self.readers.read(move |c| sealed::list_secrets(c, &owner)).await
    }

    async fn record_mcp_listing(&self, listing: &McpListing) -> StoreResult<()> {
        let listing = listing.clone();
        self.writer.write(move |c| listings::record(c, &listing)).await
    }

    async fn mcp_listing(&self, definition: &str) -> StoreResult<Option<McpListing>> {
        let definition = definition.to_string();
        self.readers.read(move |c| listings::get(c, &definition)).await
    }

    async fn take_provider_share(
        &self,
        ask: &crate::domain::share::ShareAsk,
    ) -> StoreResult<crate::domain::share::Share> {
        let ask = ask.clone();
        let read = ask.clone();
        if self.readers.read(move |c| budgets::untouched(c, &read)).await? {
            return Ok(crate::domain::share::Share::Go { now: rows::ms(Utc::now()), tracked: false });
        }
        self.writer.write(move |c| budgets::take(c, &ask, rows::ms(Utc::now()))).await
    }

    async fn settle_provider_call(
        &self,
        run_id: &str,
        names: &[String],
        outcome: crate::domain::budget::Outcome,
        heard: Option<crate::domain::budget::Heard>,
    ) -> StoreResult<()> {
        let (run_id, names) = (run_id.to_string(), names.to_vec());
        self.writer.write(move |c| budgets::settle(c, &run_id, &names, outcome, heard, rows::ms(Utc::now()))).await
    }

    async fn set_provider_limits(
        &self,
        name: &str,
        limits: Option<crate::domain::model::ProviderLimits>,
    ) -> StoreResult<()> {
        let name = name.to_string();
        self.writer.write(move |c| budgets::set_limits(c, &name, limits, rows::ms(Utc::now()))).await
    }

    async fn provider_budgets(&self) -> StoreResult<(i64, Vec<crate::domain::budget::BudgetSeen>)> {
        self.readers
            .read(move |c| {
                let now = rows::ms(Utc::now());
                Ok((now, budgets::list(c, now)?))
            })
            .await
    }

    async fn provider_wait(&self, run_id: &str) -> StoreResult<Option<(String, i64)>> {
        let run_id = run_id.to_string();
        self.readers.read(move |c| budgets::wait_of(c, &run_id, rows::ms(Utc::now()))).await
    }

    async fn delete_secret(&self, owner: &str, name: &str) -> StoreResult<()> {
        let (owner, name) = (owner.to_string(), name.to_string());
        self.writer.write(move |c| sealed::delete(c, SealedTable::Secrets, &owner, &name)).await
    }

    async fn prune_logs(&self, older_than: Duration, limit: u32) -> StoreResult<Pruned> {
        self.writer.write(move |c| retention::prune(c, older_than, limit, Utc::now())).await
    }

    async fn prune_records(&self, older_than: Duration, limit: u32) -> StoreResult<Pruned> {
        self.writer.write(move |c| retention::prune_records(c, older_than, limit, Utc::now())).await
    }

    async fn delete_run(&self, id: &str) -> StoreResult<()> {
        crate::store::retention::delete_in_batches(|| {
            let id = id.to_string();
            self.writer.write(move |c| retention::delete_run(c, &id, crate::store::retention::DELETE_BATCH))
        })
        .await
    }
}
