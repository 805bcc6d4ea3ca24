//! The one trait every backend implements, in domain terms.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use super::{
    AuditFilter, Claim, Committed, Enqueued, EnqueuedFleetRun, EnqueuedFormationRun, EventCursor, FleetRunFilter,
    FormationRunFilter, Heartbeat, Pruned, QueueStats, RunContext, RunFilter, SessionFilter, StoreError, StoreResult,
    WorkerInfo,
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
use crate::domain::lifecycle::{Commit, HandBack, IdempotencyKey, InboxItem, Lease, NewFleetRun, NewRun};
use crate::domain::model::{Agent, Event, Fleet, FleetRun, McpListing, Message, Run, RunStanding, RunStatus, Session};
use crate::domain::quota::{DayUsage, Quota};
use crate::domain::schedule::{Schedule, Tick};
use crate::domain::secret::{Secret, SecretInfo, Secrets};
use crate::domain::toolset::{self, McpServer};
use crate::domain::webhook::{Attempt, Delivery, Next};

/// The storage of everything Wingman knows.
#[async_trait]
pub trait Store: Send + Sync + 'static {
    // Agents.
    async fn insert_agent(&self, agent: &Agent) -> StoreResult<()>;
    async fn get_agent(&self, id: &str) -> StoreResult<Option<Agent>>;
    async fn list_agents(&self) -> StoreResult<Vec<Agent>>;
    /// Replaces an agent if it is still at the version before
    /// `agent.version` (the one it was read at, which the caller moved on
    /// by one): else [`StoreError::Stale`], writing nothing. Fleets and
    /// schedules are updated alike.
    async fn update_agent(&self, agent: &Agent) -> StoreResult<()>;
    async fn delete_agent(&self, id: &str) -> StoreResult<()>;

    // Fleets (definitions; their runs are runs of kind `fleet_task`).
    async fn insert_fleet(&self, fleet: &Fleet) -> StoreResult<()>;
    async fn get_fleet(&self, id: &str) -> StoreResult<Option<Fleet>>;
    async fn list_fleets(&self) -> StoreResult<Vec<Fleet>>;
    async fn update_fleet(&self, fleet: &Fleet) -> StoreResult<()>;
    async fn delete_fleet(&self, id: &str) -> StoreResult<()>;

    // Sessions.
    async fn insert_session(&self, session: &Session) -> StoreResult<()>;
    async fn get_session(&self, id: &str) -> StoreResult<Option<Session>>;
    async fn list_sessions(&self, filter: &SessionFilter) -> StoreResult<Vec<Session>>;
    async fn update_session(&self, session: &Session) -> StoreResult<()>;
    /// Deletes a session and its history; its queued and running runs are cancelled.
    async fn delete_session(&self, id: &str) -> StoreResult<()>;
    /// A session's history as its runs are sent it (no branch set aside).
    async fn session_history(&self, id: &str) -> StoreResult<Vec<Message>>;
    /// A session's history as it was at `at` ([`crate::domain::branch`]):
    /// after one of its runs ended, or a branch as it was set aside.
    async fn session_history_at(&self, id: &str, at: &HistoryAt) -> StoreResult<Vec<Message>>;
    /// Writes `fork`, a new session, with the history of session `from` as
    /// it was after run `at` (its whole history when `None`), in one
    /// transaction; answers the fork as written, with `forked_from`.
    async fn fork_session(&self, fork: &Session, from: &str, at: Option<&str>) -> StoreResult<Session>;
    /// Rewinds a session ([`crate::domain::branch::rewind`]): its history
    /// after the point is set aside as a new branch, in one transaction.
    /// Answers the branch, or `None` when nothing was after the point.
    async fn rewind_session(&self, id: &str, to: &RewindTo) -> StoreResult<Option<Branch>>;
    /// The branches a session's rewinds set aside, oldest first.
    async fn session_branches(&self, id: &str) -> StoreResult<Vec<Branch>>;
    /// A session, and the agent that answers a message to it: `agent_id`
    /// if given, else the session's own (`None` when there is none or it
    /// does not exist). `None` when the session does not exist. Read in one
    /// trip (a join on PostgreSQL, one reader's connection on SQLite): every
    /// message pays for it.
    async fn session_and_agent(
        &self,
        session_id: &str,
        agent_id: Option<&str>,
    ) -> StoreResult<Option<(Session, Option<Agent>)>>;

    // Runs.
    /// Writes a queued run and its `run_queued` event, atomically. The run's
    /// session must exist. With a key, a repeated submission returns the first run.
    async fn enqueue_run(&self, run: NewRun, key: Option<IdempotencyKey>) -> StoreResult<Enqueued>;
    async fn get_run(&self, id: &str) -> StoreResult<Option<Run>>;
    /// A run's owner and status, and whether its log holds an event after
    /// `after`, in one trip and without the rest of its row: what every
    /// reader of its log asks first.
    async fn run_standing(&self, id: &str, after: u64) -> StoreResult<Option<RunStanding>>;
    /// A run's checkpoints, by step and then as they were written.
    async fn run_checkpoints(&self, id: &str) -> StoreResult<Vec<Checkpoint>>;
    async fn list_runs(&self, filter: &RunFilter) -> StoreResult<Vec<Run>>;
    /// How many runs have this status.
    async fn count_runs(&self, status: RunStatus) -> StoreResult<u64>;
    /// The queue at a glance: runs waiting and running, and live workers.
    async fn queue_stats(&self) -> StoreResult<QueueStats>;
    /// The queue in detail (`GET /queue`), with the first `next` ready
    /// runs in the order a claim takes them.
    async fn queue_view(&self, next: u32) -> StoreResult<crate::domain::queue::QueueView>;
    /// The database's clock, which every server and worker shares: what a
    /// time read from a row is compared with (a schedule's next tick).
    async fn now(&self) -> StoreResult<DateTime<Utc>>;
    /// Cancels a queued, waiting or running run: it ends at once with `done`
    /// naming `by`. A terminal run is a [`StoreError::Conflict`].
    async fn cancel_run(&self, id: &str, by: &By) -> StoreResult<Run>;
    /// Leaves a message from `by` for a run, taken in at its next step
    /// boundary (a queued run's first); a waiting run is queued again to take
    /// it. A terminal run is a [`StoreError::Conflict`].
    async fn steer_run(&self, id: &str, message: &str, by: &By) -> StoreResult<Run>;
    /// Records the answers a waiting run waits for (checkpoints of `step`: a
    /// person's decisions, or a client's tool results), writes `events`
    /// (`approval_decided`; or each `tool_result` and `tool_results_received`) and queues the run
    /// again, atomically. A run that is not waiting (a second answer finds
    /// it queued) is a [`StoreError::Conflict`] and nothing is written.
    async fn decide(&self, id: &str, step: u32, answers: Vec<Checkpoint>, events: Vec<RunEvent>) -> StoreResult<Run>;

    // Fleet runs.
    /// Writes a fleet run, its tasks' sessions and runs (the first
    /// `worker_count` holding a slot, see [`crate::domain::fleet`]), each run's
    /// `run_queued` and the fleet run's `fleet_queued`, in one transaction.
    /// The fleet must exist. With a key, a repeated submission returns the first fleet run.
    async fn enqueue_fleet_run(&self, run: NewFleetRun, key: Option<IdempotencyKey>) -> StoreResult<EnqueuedFleetRun>;
    /// A fleet run with its progress.
    async fn get_fleet_run(&self, id: &str) -> StoreResult<Option<FleetRun>>;
    async fn list_fleet_runs(&self, filter: &FleetRunFilter) -> StoreResult<Vec<FleetRun>>;
    /// A page of a fleet run's tasks (runs) in task order, after `after_index`.
    async fn fleet_run_tasks(&self, id: &str, after_index: Option<u32>, limit: u32) -> StoreResult<Vec<Run>>;
    /// Cancels every task of a fleet run that has not ended (each writes its
    /// `result`; the last one the fleet run's `done`), in one transaction.
    /// Each task's `done` names `by`. A finished fleet run is a [`StoreError::Conflict`].
    async fn cancel_fleet_run(&self, id: &str, by: &By) -> StoreResult<FleetRun>;

    // Formations (definitions; their runs are formation runs) and formation runs.
    async fn insert_formation(&self, formation: &Formation) -> StoreResult<()>;
    async fn get_formation(&self, id: &str) -> StoreResult<Option<Formation>>;
    async fn list_formations(&self) -> StoreResult<Vec<Formation>>;
    async fn delete_formation(&self, id: &str) -> StoreResult<()>;
    /// Writes a formation run, `formation_queued`, and what its start
    /// makes ready ([`crate::domain::formation::run::begin`]: entry nodes' runs and
    /// fleet runs, functions computed), in one transaction. With a key, a
    /// repeated submission returns the first formation run.
    async fn enqueue_formation_run(
        &self,
        run: NewFormationRun,
        key: Option<IdempotencyKey>,
    ) -> StoreResult<EnqueuedFormationRun>;
    /// A formation run with every node's state.
    async fn get_formation_run(&self, id: &str) -> StoreResult<Option<FormationRun>>;
    async fn list_formation_runs(&self, filter: &FormationRunFilter) -> StoreResult<Vec<FormationRun>>;
    /// Cancels a formation run that has not ended: its running nodes' work
    /// ends (each node `cancelled`), nothing new starts, and it ends
    /// `cancelled`, in one transaction. An ended one is a [`StoreError::Conflict`].
    async fn cancel_formation_run(&self, id: &str) -> StoreResult<FormationRun>;

    // Schedules ([`crate::domain::schedule`]).
    async fn insert_schedule(&self, schedule: &Schedule) -> StoreResult<()>;
    async fn get_schedule(&self, id: &str) -> StoreResult<Option<Schedule>>;
    async fn list_schedules(&self) -> StoreResult<Vec<Schedule>>;
    /// Replaces a schedule's definition, `paused` and `next_tick_at`, if it
    /// is still at the version before `schedule.version` (the one it was
    /// read at): else [`StoreError::Stale`], writing nothing.
    async fn update_schedule(&self, schedule: &Schedule) -> StoreResult<()>;
    /// Deletes a schedule and its ticks' records; what they submitted stays.
    async fn delete_schedule(&self, id: &str) -> StoreResult<()>;
    /// Schedules not paused whose next tick is at or before `now`, soonest first.
    async fn due_schedules(&self, now: DateTime<Utc>, limit: u32) -> StoreResult<Vec<Schedule>>;
    /// When the soonest tick of a schedule not paused falls.
    async fn next_schedule_due(&self) -> StoreResult<Option<DateTime<Utc>>>;
    /// Records a tick (one that submitted replaces a record of it as
    /// skipped; a submission already recorded at or after `expected`, fired
    /// from the same stored tick at another moment, is not recorded again)
    /// and, in the same transaction, moves the schedule on to `following`
    /// if its next tick is still `expected` and it is not paused; `true`
    /// when this call moved it.
    async fn record_tick(
        &self,
        id: &str,
        expected: DateTime<Utc>,
        tick: &Tick,
        following: Option<DateTime<Utc>>,
    ) -> StoreResult<bool>;
    /// A schedule's newest `limit` ticks, newest first.
    async fn schedule_ticks(&self, id: &str, limit: u32) -> StoreResult<Vec<Tick>>;
    /// A schedule's newest tick that submitted something.
    async fn last_submission(&self, id: &str) -> StoreResult<Option<Tick>>;

    // Webhook deliveries ([`crate::domain::webhook`]), written by the transactions
    // that end their subjects.
    /// Claims up to `limit` pending deliveries that are due, for one attempt
    /// each: the attempt is counted and the next one put off by `lease`, so
    /// that no other server attempts it meanwhile, and another does once
    /// `lease` has passed if this one never says how the attempt ended.
    async fn claim_deliveries(&self, lease: Duration, limit: u32) -> StoreResult<Vec<Delivery>>;
    /// Records how attempt `attempt.attempt` ended and what follows it;
    /// `false`, writing nothing, when a later claim took the delivery over.
    async fn record_delivery_attempt(&self, id: &str, attempt: &Attempt, next: &Next) -> StoreResult<bool>;
    /// When the soonest pending delivery is due (`None`: none is pending).
    async fn next_delivery_due(&self) -> StoreResult<Option<DateTime<Utc>>>;
    /// The deliveries of a run, fleet run or formation run, oldest first,
    /// each with its finished attempts.
    async fn list_deliveries(&self, subject_id: &str) -> StoreResult<Vec<Delivery>>;

    // Events.
    /// The run's events with `seq > after`, in order, at most `limit`. Any
    /// `after` at or beyond the last event (`u64::MAX` included) yields none.
    async fn read_events(&self, run_id: &str, after: u64, limit: u32) -> StoreResult<Vec<Event>>;
    /// The newest position of the global event cursor.
    async fn event_cursor(&self) -> StoreResult<EventCursor>;
    /// Events of all runs committed after `cursor`, with their cursor positions.
    async fn events_since(&self, cursor: EventCursor, limit: u32) -> StoreResult<Vec<(EventCursor, Event)>>;

    // Workers and leases.
    async fn register_worker(&self, id: &str, name: &str, lease: Duration) -> StoreResult<()>;
    /// Renews the worker's lease for `lease` from now, unless it already lapsed.
    async fn heartbeat(&self, id: &str, lease: Duration) -> StoreResult<Heartbeat>;
    async fn deregister_worker(&self, id: &str) -> StoreResult<()>;
    /// Every worker the database remembers (a worker that is gone and holds
    /// nothing is forgotten after an hour), live ones first, then by the
    /// newest lease, with the runs each holds; at most 1000.
    async fn list_workers(&self) -> StoreResult<Vec<WorkerInfo>>;
    /// A receiver whose value changes whenever the database may have changed,
    /// by any process, if the backend can tell; `None` means poll. Workers and
    /// the event hub wait on it beside their poll timers.
    fn changes(&self) -> Option<tokio::sync::watch::Receiver<u64>> {
        None
    }
    /// A cheap read: is there a run a worker could claim now?
    async fn has_claimable(&self) -> StoreResult<bool>;
    /// Whether a worker should ask [`Store::has_claimable`] before each
    /// claim. Where a claim that finds nothing still costs a write (SQLite's
    /// single writer) the look saves it; where such a claim writes nothing
    /// and costs one round trip (PostgreSQL) the look only adds a round trip
    /// on the way to every run.
    fn look_before_claiming(&self) -> bool {
        true
    }
    /// Claims up to `limit` runs: queued ones at the head of their session, and
    /// running ones whose worker's lease expired. A rescued run that used up
    /// its attempts is failed instead of claimed. Each claim writes the run's
    /// `run_started` event in the same transaction. A worker whose own lease
    /// lapsed claims nothing: [`StoreError::Fenced`].
    async fn claim_runs(&self, worker_id: &str, limit: u32) -> StoreResult<Vec<Claim>>;

    // Execution, fenced by the lease.
    /// Loads a run's context, its session's history read whole.
    async fn load_run(&self, run_id: &str) -> StoreResult<RunContext> {
        let mut contexts = self.load_runs(vec![run_id.to_string()], Arc::new(HistoryCache::new(0))).await?;
        contexts.pop().ok_or(StoreError::NotFound("run"))
    }
    /// Loads several runs' contexts, in one round trip where the backend can:
    /// a worker that claimed a batch loads it at once. Of each session's
    /// history only the rows after what `histories` knows are read; the
    /// history as loaded is kept there for the session's next run.
    async fn load_runs(&self, run_ids: Vec<String>, histories: Arc<HistoryCache>) -> StoreResult<Vec<RunContext>>;
    async fn commit(&self, lease: &Lease, commit: Commit) -> StoreResult<Committed>;
    /// The items waiting in a run's inbox, oldest first.
    async fn read_inbox(&self, run_id: &str) -> StoreResult<Vec<InboxItem>>;
    /// Hands a run back to the queue without charging the attempt (a graceful
    /// shutdown, or a claim whose answer was lost). Writes `run_handed_back`
    /// ([`HandBack::event`]) and the `handed_back` fact ([`HandBack::clean_boundary`]).
    async fn release_run(&self, lease: &Lease, how: HandBack) -> StoreResult<()>;

    // API keys.
    /// Stores a new key (its digest, never the key).
    async fn insert_api_key(&self, key: &NewApiKey) -> StoreResult<ApiKeyInfo>;
    /// The key whose digest this is, revoked and expired ones included.
    async fn find_api_key(&self, digest: [u8; 32]) -> StoreResult<Option<ApiKeyInfo>>;
    /// Every key, the newest first.
    async fn list_api_keys(&self) -> StoreResult<Vec<ApiKeyInfo>>;
    /// Revokes a key; one revoked before keeps its first time.
    /// [`StoreError::NotFound`] if no key has that ID.
    async fn revoke_api_key(&self, id: &str) -> StoreResult<ApiKeyInfo>;
    /// Whether any key opens the API now (not revoked, not expired).
    async fn any_live_api_key(&self) -> StoreResult<bool>;

    // The audit log ([`crate::domain::audit`]).
    /// Appends entries, in one transaction; one whose ID is already there
    /// is left as it is.
    async fn record_audit(&self, entries: &[AuditEntry]) -> StoreResult<()>;
    /// A page of entries, the newest first.
    async fn list_audit(&self, filter: &AuditFilter) -> StoreResult<Vec<AuditEntry>>;

    // Owners' quotas and usage ([`crate::domain::quota`]).
    /// Sets `owner`'s quota; an empty one removes it.
    async fn put_quota(&self, owner: &str, quota: &Quota) -> StoreResult<()>;
    /// Every owner that has a quota, with it, by owner.
    async fn list_quotas(&self) -> StoreResult<Vec<(String, Quota)>>;
    /// What `owner`'s runs used each day from `from` to `to` (`YYYY-MM-DD`,
    /// both included), the oldest first; a day without use is left out.
    async fn owner_usage(&self, owner: &str, from: &str, to: &str) -> StoreResult<Vec<DayUsage>>;
    /// What `owner`'s runs have spent today (UTC, by the store's clock), in US dollars.
    async fn spent_today(&self, owner: &str) -> StoreResult<f64>;
    /// How many of `owner`'s runs are queued.
    async fn count_queued(&self, owner: &str) -> StoreResult<u64>;

    // Provider credentials, each an owner's: a run uses its owner's key of
    // a name, else the first admin's, which every owner shares.
    /// Stores (or replaces) `owner`'s keys of several credential names at
    /// once: all of them or, on failure, none.
    async fn put_credentials(&self, owner: &str, keys: Vec<(String, ApiKey)>) -> StoreResult<Vec<CredentialInfo>>;
    /// Stores (or replaces) `owner`'s key of one credential name.
    async fn put_credential(&self, owner: &str, name: &str, key: &ApiKey) -> StoreResult<CredentialInfo> {
        let mut stored = self.put_credentials(owner, vec![(name.to_string(), key.clone())]).await?;
        stored.pop().ok_or_else(|| StoreError::internal("the credential was not stored"))
    }
    /// The key a run of `owner` uses under a credential name, for a worker
    /// building a provider: `owner`'s, else the first admin's.
    async fn get_credential(&self, owner: &str, name: &str) -> StoreResult<Option<ApiKey>>;
    /// The credentials a run of `owner` uses, by name, without the keys.
    async fn list_credentials(&self, owner: &str) -> StoreResult<Vec<CredentialInfo>>;
    /// Forgets `owner`'s credential; [`StoreError::NotFound`] if it had none.
    async fn delete_credential(&self, owner: &str, name: &str) -> StoreResult<()>;

    // Secrets (values MCP servers' `env` and `headers` refer to by name),
    // each an owner's, shared like credentials.
    /// Stores `owner`'s secret under `name`, or replaces its value;
    /// `created_at` stays the first store's.
    async fn put_secret(&self, owner: &str, name: &str, value: &Secret) -> StoreResult<SecretInfo>;
    /// The values a run of `owner` uses of those of `names` that are stored
    /// (`owner`'s, else the first admin's), in one read (a worker resolving
    /// every secret of one server at once), ordered by name. A name that is
    /// not stored is left out: the caller says what is missing.
    async fn get_secrets(&self, owner: &str, names: &[String]) -> StoreResult<Vec<(String, Secret)>>;
    /// The values a run of `owner` uses of the secrets these MCP servers
    /// name; nothing is read when they name none.
    async fn secrets_of(&self, owner: &str, servers: &[McpServer]) -> StoreResult<Secrets> {
        let names = toolset::secret_names(servers);
        if names.is_empty() {
            return Ok(Secrets::default());
        }
        Ok(Secrets::from(self.get_secrets(owner, &names).await?))
    }
    /// The secrets a run of `owner` uses, by name, without the values.
    async fn list_secrets(&self, owner: &str) -> StoreResult<Vec<SecretInfo>>;

    // What workers saw of MCP servers' tools.
    /// Keeps `listing` as its definition's newest, unless a newer one is
    /// stored already.
    async fn record_mcp_listing(&self, listing: &McpListing) -> StoreResult<()>;
    /// The newest listing of the definition with this key, if any worker
    /// has listed it.
    async fn mcp_listing(&self, definition: &str) -> StoreResult<Option<McpListing>>;
    // Provider budgets (see [`crate::domain::share`]).
    /// Takes a provider call's share of its budgets: it may go now, or
    /// must wait until a time (reserved for it when its rate share is
    /// spent), by the store's clock.
    async fn take_provider_share(
        &self,
        ask: &crate::domain::share::ShareAsk,
    ) -> StoreResult<crate::domain::share::Share>;
    /// Ends a run's provider call: its places in every budget are
    /// forgotten, and the `budgets` learn from how it ended and from what
    /// the provider's headers said (a credential nobody limited gets a row
    /// when the provider first pauses or limits it).
    async fn settle_provider_call(
        &self,
        run_id: &str,
        budgets: &[String],
        outcome: crate::domain::budget::Outcome,
        heard: Option<crate::domain::budget::Heard>,
    ) -> StoreResult<()>;
    /// Declares a credential's limits, or (`None`) removes them; what was
    /// learned and a pause stay.
    async fn set_provider_limits(
        &self,
        name: &str,
        limits: Option<crate::domain::model::ProviderLimits>,
    ) -> StoreResult<()>;
    /// Every budget with the calls waiting and in flight now, by name, and
    /// the store's clock.
    async fn provider_budgets(&self) -> StoreResult<(i64, Vec<crate::domain::budget::BudgetSeen>)>;
    /// The budget a run's provider call waits for and until when, if it waits now.
    async fn provider_wait(&self, run_id: &str) -> StoreResult<Option<(String, i64)>>;

    /// Forgets `owner`'s secret; [`StoreError::NotFound`] if it had none.
    async fn delete_secret(&self, owner: &str, name: &str) -> StoreResult<()>;

    // Retention (see [`retention`]).
    /// Removes one small batch of old logs: at most `limit` events and
    /// checkpoints (together) of runs, fleet runs and formation runs that ended more than
    /// `older_than` ago by the store's clock, oldest first, in one short
    /// transaction. The runs, fleet runs and formation runs themselves stay, with their
    /// results, and so do sessions' histories. An empty answer means nothing
    /// that old is left to prune.
    async fn prune_logs(&self, older_than: Duration, limit: u32) -> StoreResult<Pruned>;
    /// Removes, in one short transaction, up to `limit` of the records made
    /// more than `older_than` ago that nothing needs any more: webhook
    /// deliveries that ended (with their attempts), schedule ticks (but each
    /// schedule's newest that submitted something, which says whether its
    /// work is still open), and idempotency keys (but those of runs, fleet
    /// runs and formation runs that have not ended). An empty answer means
    /// nothing that old is left.
    async fn prune_records(&self, older_than: Duration, limit: u32) -> StoreResult<Pruned>;
    /// Deletes a run that has ended, with its log and the idempotency keys
    /// that name it, in transactions of at most [`retention::DELETE_BATCH`]
    /// rows. Its session keeps its history; its fleet run keeps its counts
    /// and its own log. A run that has not ended is a
    /// [`StoreError::Conflict`] and nothing is deleted.
    async fn delete_run(&self, id: &str) -> StoreResult<()>;
}
