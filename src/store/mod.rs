//! Storage: one trait in domain terms, one implementation per backend.
//!
//! Nothing outside `store` knows which database is behind a [`Store`]. A
//! backend only persists: the events it writes are built by the domain
//! ([`crate::event`]), the rules of attempts, fleets and summaries live in
//! [`crate::attempt`], [`crate::fleet`] and [`crate::checkpoint`], and the
//! facts a resumed run needs are recorded as each write says ([`Effect`]).
//!
//! # The concurrency contract every backend keeps
//!
//! - **A run is executed by one worker at a time.** A claim sets the run's
//!   worker and raises its lease epoch; every later write for the run
//!   ([`Store::commit`], [`Store::release_run`]) is refused with
//!   [`StoreError::Fenced`], before it changes anything, unless the run is
//!   still running under that worker and epoch *and* the worker's own lease
//!   is live, judged in the same statement that writes. Two claims of one run
//!   never both succeed.
//! - **One run per session at a time, in submission order.** A run enqueued
//!   behind an unfinished run of its session is blocked; ending the run that
//!   holds the turn unblocks the next in the same transaction.
//! - **A fleet run's cap holds across every worker** (see [`crate::fleet`]).
//! - **Event numbers are dense per run** (1, 2, 3, … with no gap), and
//!   [`Store::events_since`] returns events **in commit order**: once a
//!   cursor position has been returned, no event at or below it commits
//!   later. (A sequence that is assigned before commit does not give this on
//!   a database with concurrent writers; each backend says how it does.)
//! - **Each write is all or nothing**, and a refused or failed one changes
//!   nothing. [`StoreError::is_retryable`] says whether trying again can help.
//! - **The store reads the clock itself**, when a write executes (inside its
//!   transaction), never before: a write that waited for a lock must not
//!   judge a lease by the time it was queued. Leases are judged by one clock
//!   for every worker (the database's, where workers run on many hosts).

use async_trait::async_trait;
use std::time::Duration;

/// A position in the log of every run's events, in commit order. Callers
/// keep the last one they read and pass it back; what it holds is the
/// backend's: SQLite's event number alone, or on PostgreSQL the writing
/// transaction's ID, the number of the row that holds a write's events,
/// and the event's number in its run's log (events are read in transaction
/// order, up to the oldest transaction still open).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct EventCursor {
    /// The transaction that wrote the event (0 where the backend does not need it).
    pub tx: u64,
    /// The event's number in the log of all runs, or of the row that holds it.
    pub gid: u64,
    /// The event's number in its run's log, where a row holds several
    /// events (0 where the backend does not need it).
    pub seq: u64,
}

use crate::checkpoint::{Checkpoint, RunSummary};
use crate::credential::{ApiKey, CredentialInfo};
use crate::event::RunEvent;
use crate::model::{
    Agent, Event, Fleet, FleetRun, Message, MultitaskStrategy, Run, RunInput, RunKind, RunStatus, Session,
};

pub mod body;
pub mod postgres;
pub mod retention;
pub mod rows;
pub mod sqlite;
pub mod task_end;

pub use retention::Pruned;

/// A throw-away PostgreSQL database, for tests and benchmarks.
pub use postgres::scratch::ScratchDatabase;

/// A database error kept as it came, for logs and `source()` chains.
pub type SourceError = Box<dyn std::error::Error + Send + Sync + 'static>;

/// Errors of the storage layer. Each says whether retrying can help
/// ([`StoreError::is_retryable`]): a refusal or a broken row gives the same
/// answer however often it is asked.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The thing named does not exist (or was deleted).
    #[error("{0} not found")]
    NotFound(&'static str),
    /// The request conflicts with the stored state.
    #[error("{0}")]
    Conflict(String),
    /// The writer no longer holds the run's lease: nothing was written.
    /// The session has an unfinished run and the submission asked not to
    /// queue behind it (`multitask_strategy: reject`).
    #[error("{0}")]
    Busy(String),
    #[error("the lease on this run is no longer held")]
    Fenced,
    /// A commit that would end or park a run was refused, changing nothing:
    /// the run's inbox holds something it has not taken in (a message
    /// steered while its last step ran), which must reach it first.
    #[error("the run has messages it has not taken in")]
    InboxWaiting,
    /// The database could not be reached, was busy, or aborted the
    /// transaction (a lost connection, a serialization failure, a restart):
    /// nothing was written, and retrying may help.
    #[error("database unavailable: {0}")]
    Unavailable(#[source] SourceError),
    /// The database answered, but not as this code expects (a row that does
    /// not decode, a failed statement): retrying gives the same answer.
    #[error("storage error: {0}")]
    Internal(#[source] SourceError),
}

impl StoreError {
    /// True when the same call may succeed if made again.
    pub fn is_retryable(&self) -> bool {
        matches!(self, StoreError::Unavailable(_))
    }

    /// An [`StoreError::Internal`] error with a message of its own.
    pub fn internal(message: impl Into<String>) -> StoreError {
        StoreError::Internal(message.into().into())
    }

    /// An [`StoreError::Unavailable`] error with a message of its own.
    pub fn unavailable(message: impl Into<String>) -> StoreError {
        StoreError::Unavailable(message.into().into())
    }
}

impl From<serde_json::Error> for StoreError {
    fn from(e: serde_json::Error) -> Self {
        StoreError::Internal(Box::new(e))
    }
}

/// Shorthand for storage results.
pub type StoreResult<T> = Result<T, StoreError>;

/// The lease under which a worker executes a run. Every write for the run is
/// conditioned on it: if another worker took the run over, or the worker's
/// own lease lapsed, the write is refused with [`StoreError::Fenced`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lease {
    pub run_id: String,
    pub worker_id: String,
    pub epoch: u64,
}

/// A run to enqueue.
#[derive(Debug, Clone)]
pub struct NewRun {
    pub id: String,
    pub kind: RunKind,
    pub session_id: Option<String>,
    pub agent: Agent,
    pub input: RunInput,
    pub work_dir: String,
    pub max_attempts: u32,
    /// What becomes of the session's unfinished runs (a message's only;
    /// fleet tasks are enqueued behind nothing).
    pub strategy: MultitaskStrategy,
}

/// An `Idempotency-Key` attached to a submission.
#[derive(Debug, Clone)]
pub struct IdempotencyKey {
    /// What the key is scoped to, e.g. `message:<session id>`.
    pub scope: String,
    pub key: String,
    /// A hash of the request body: the same key with another body is refused.
    pub request_hash: String,
}

/// The result of an enqueue.
#[derive(Debug, Clone)]
pub struct Enqueued {
    pub run: Run,
    /// False when an idempotency key matched an earlier submission.
    pub created: bool,
}

/// A task of a fleet run to enqueue: its run, in a session of its own.
#[derive(Debug, Clone)]
pub struct NewTask {
    pub run_id: String,
    /// The task's session, written with it.
    pub session: Session,
    pub input: RunInput,
}

/// A fleet run to enqueue, with all its tasks.
#[derive(Debug, Clone)]
pub struct NewFleetRun {
    pub id: String,
    pub fleet_id: String,
    /// The agent every task runs, as it is at submission.
    pub agent: Agent,
    /// Tasks running at once; 0 for no cap.
    pub worker_count: u32,
    pub tasks: Vec<NewTask>,
    pub max_attempts: u32,
}

/// The result of enqueuing a fleet run.
#[derive(Debug, Clone)]
pub struct EnqueuedFleetRun {
    pub fleet_run: FleetRun,
    /// False when an idempotency key matched an earlier submission.
    pub created: bool,
}

/// Which end of a list comes first: lists are in submission (or ID)
/// order, oldest first unless asked for the newest first (`order=desc`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Deserialize, utoipa::ToSchema)]
pub enum Order {
    #[default]
    #[serde(rename = "asc")]
    OldestFirst,
    #[serde(rename = "desc")]
    NewestFirst,
}

impl Order {
    /// The direction of the list's `ORDER BY`.
    pub fn sql(self) -> &'static str {
        match self {
            Order::OldestFirst => "ASC",
            Order::NewestFirst => "DESC",
        }
    }

    /// The comparison that keeps the rows past a cursor: what comes after a
    /// row in this order.
    pub fn past(self) -> &'static str {
        match self {
            Order::OldestFirst => ">",
            Order::NewestFirst => "<",
        }
    }
}

/// A filter for listing fleet runs.
#[derive(Debug, Clone, Default)]
pub struct FleetRunFilter {
    pub fleet_id: Option<String>,
    /// Return fleet runs that come after this one in `order` (keyset pagination).
    pub after: Option<String>,
    pub limit: u32,
    pub order: Order,
}

/// A filter for listing runs.
#[derive(Debug, Clone, Default)]
pub struct RunFilter {
    pub session_id: Option<String>,
    /// Only the tasks of this fleet run.
    pub fleet_run_id: Option<String>,
    pub status: Option<RunStatus>,
    /// Return runs that come after this run ID in `order` (keyset pagination).
    pub after: Option<String>,
    pub limit: u32,
    pub order: Order,
}

/// A page of sessions, by ID.
#[derive(Debug, Clone, Default)]
pub struct SessionFilter {
    /// Return sessions that come after this ID in `order` (keyset pagination).
    pub after: Option<String>,
    /// At most this many; every session when `None`.
    pub limit: Option<u32>,
    pub order: Order,
}

/// A run handed to a worker by a claim.
#[derive(Debug, Clone)]
pub struct Claim {
    pub lease: Lease,
    /// Which claim of the run this is: 1 for the first, one more for each.
    pub attempt: u32,
    /// Earlier attempts charged against `max_attempts` (see [`crate::attempt`]).
    pub charged_attempts: u32,
    /// The run was taken over from a worker whose lease had lapsed.
    pub rescued: bool,
    /// The run's context, when the worker loaded it together with the rest of
    /// its claim ([`Store::load_runs`]); `None` means the execution loads it.
    pub context: Option<Box<RunContext>>,
}

impl Claim {
    /// The `run_started` event a backend writes with the claim.
    pub fn started_event(&self) -> RunEvent {
        RunEvent::RunStarted {
            attempt: self.attempt,
            worker_id: self.lease.worker_id.clone(),
            charged_attempts: self.charged_attempts,
        }
    }
}

impl NewRun {
    /// The `run_queued` event a backend writes with the run; `task` places
    /// it in a fleet run: (fleet run ID, task index).
    pub fn queued_event(&self, task: Option<(&str, u32)>) -> RunEvent {
        RunEvent::RunQueued {
            kind: self.kind,
            session_id: self.session_id.clone(),
            agent_id: self.agent.id.clone(),
            fleet_run_id: task.map(|t| t.0.to_string()),
            task_index: task.map(|t| t.1),
        }
    }
}

/// Everything a worker needs to execute a claimed run.
#[derive(Debug, Clone)]
pub struct RunContext {
    pub run: Run,
    pub agent: Agent,
    pub work_dir: String,
    /// The session's history before this run.
    pub history: Vec<Message>,
    pub checkpoints: Vec<Checkpoint>,
    /// The last step that has a `step_started` event but no `step_completed`.
    pub open_step: Option<u32>,
    /// True when an earlier attempt (crashed or handed back) ran before this one.
    pub resumed: bool,
    /// True when the attempt before this one handed the run back gracefully,
    /// at a step boundary: no tool call of it was in flight.
    pub handed_back: bool,
    /// What people sent the run that it has not taken in yet.
    pub inbox: Vec<InboxItem>,
}

/// Something a person sent a run, kept until the run reaches a step
/// boundary and takes it in (in the commit that delivers it).
#[derive(Debug, Clone, PartialEq)]
pub struct InboxItem {
    /// Its number, increasing in the order items arrive.
    pub seq: u64,
    pub kind: InboxKind,
}

/// What an inbox item asks of the run.
#[derive(Debug, Clone, PartialEq)]
pub enum InboxKind {
    /// A message to deliver at the next step boundary (`POST /runs/{id}/steer`).
    Steer(String),
    /// Stop at the next step boundary as `interrupted` (a newer message of
    /// the session came with `multitask_strategy: interrupt`).
    Interrupt,
}

impl InboxKind {
    /// The kind as stored.
    pub fn as_str(&self) -> &'static str {
        match self {
            InboxKind::Steer(_) => "steer",
            InboxKind::Interrupt => "interrupt",
        }
    }

    /// The message as stored (none for an interrupt).
    pub fn message(&self) -> Option<&str> {
        match self {
            InboxKind::Steer(message) => Some(message),
            InboxKind::Interrupt => None,
        }
    }

    /// Reads a stored item.
    pub fn from_stored(kind: &str, message: Option<String>) -> StoreResult<InboxKind> {
        match (kind, message) {
            ("steer", Some(message)) => Ok(InboxKind::Steer(message)),
            ("interrupt", _) => Ok(InboxKind::Interrupt),
            (other, _) => Err(StoreError::internal(format!("unknown inbox item {other:?}"))),
        }
    }
}

/// How a run ends, as decided by the worker executing it.
#[derive(Debug, Clone, PartialEq)]
pub struct Finish {
    pub status: RunStatus,
    pub error: Option<String>,
    /// The run's summary, when the writer knows it: a worker holding the
    /// lease has every checkpoint of the run in hand. Without it, the store
    /// computes it from the stored checkpoints.
    pub summary: Option<RunSummary>,
}

/// One atomic write of a run's progress: checkpoints, their events and,
/// possibly, the run's end (which appends to the history and writes `done`).
#[derive(Debug, Clone, Default)]
pub struct Commit {
    pub checkpoints: Vec<Checkpoint>,
    pub events: Vec<RunEvent>,
    pub finish: Option<Finish>,
    /// The run waits for a person: it becomes `waiting` and leaves its
    /// worker (no lease holds it) but keeps its session's turn and its fleet
    /// slot. It is queued again when the person answers.
    pub wait: bool,
    /// The inbox items this commit takes in, removed with it.
    pub delivered: Vec<u64>,
}

/// Refuses decisions for a run that does not wait for them (both backends
/// call it under the run's lock, before writing anything).
pub fn check_decisions(run: &Run, step: u32, decisions: &[Checkpoint]) -> StoreResult<()> {
    if run.status != RunStatus::Waiting {
        return Err(StoreError::Conflict(format!(
            "run {} is {}, not waiting for a decision",
            run.id,
            run.status.as_str()
        )));
    }
    if decisions.iter().any(|d| d.step != step) {
        return Err(StoreError::internal("decisions for another step than the one waiting"));
    }
    Ok(())
}

/// What a commit saw of the run it wrote.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Committed {
    /// The number of the newest item in the run's inbox, if there is one:
    /// newer than what the worker took in, it is there to take at the next
    /// step boundary.
    pub inbox_newest: Option<u64>,
}

/// What a fenced write changes besides the rows it adds, for a backend to
/// record with the fence: how many events it numbers, and the resume facts a
/// later attempt reads ([`RunContext::open_step`], and whether this attempt
/// made progress, which decides whether losing it is charged).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Effect {
    pub events: u64,
    /// The write checkpoints something: the attempt made progress.
    pub progressed: bool,
    /// The open step's change, as [`RunEvent::open_step_change`] says.
    pub open_step: Option<Option<u32>>,
}

impl Effect {
    /// The effect of writing `checkpoints` with `events`.
    pub fn of(checkpoints: &[Checkpoint], events: &[RunEvent]) -> Effect {
        Effect {
            events: events.len() as u64,
            progressed: !checkpoints.is_empty(),
            open_step: events.iter().rev().find_map(RunEvent::open_step_change),
        }
    }

    /// A write of `events` events that changes no resume fact.
    pub fn events(events: u64) -> Effect {
        Effect { events, progressed: false, open_step: None }
    }
}

/// Why a worker hands a run back, uncharged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HandBack {
    /// Between steps: nothing was in flight, so the next attempt repeats nothing.
    AtStepBoundary,
    /// The grace period ran out and the step in flight was stopped: the next
    /// attempt redoes it and says so.
    Interrupted,
    /// The database failed mid-run (a lost connection, a restart) and the
    /// worker's retries did not get past it: like [`HandBack::Interrupted`],
    /// the next attempt redoes any step that was in flight.
    DatabaseLost,
    /// The claim committed but its answer never reached the worker (the
    /// connection dropped): this attempt ran nothing, so the next one resumes
    /// from what the claim found, a step left open before it included.
    Unstarted,
}

impl HandBack {
    /// The `run_handed_back` event that says so in the run's log.
    pub fn event(self) -> RunEvent {
        let (interrupted, reason) = match self {
            HandBack::AtStepBoundary => (false, "the worker shut down between steps"),
            HandBack::Interrupted => (true, "the worker shut down and its grace period ran out mid-step"),
            HandBack::DatabaseLost => (true, "the worker lost its database mid-run; any step in flight is redone"),
            HandBack::Unstarted => (false, "the worker never received its claim (the answer was lost); nothing ran"),
        };
        RunEvent::RunHandedBack { interrupted, reason: reason.into() }
    }

    /// The run's `handed_back` resume fact after this hand-back: whether the
    /// next attempt may trust that no step was in flight. `None` keeps the
    /// value the claim found.
    pub fn clean_boundary(self) -> Option<bool> {
        match self {
            HandBack::AtStepBoundary => Some(true),
            HandBack::Interrupted | HandBack::DatabaseLost => Some(false),
            HandBack::Unstarted => None,
        }
    }
}

/// The queue at a glance, as `GET /health` reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, utoipa::ToSchema)]
pub struct QueueStats {
    /// Runs waiting for a worker (including those waiting for their session's turn).
    pub queued: u64,
    /// Runs a worker holds now.
    pub running: u64,
    /// Workers whose lease is live.
    pub workers: u64,
}

/// Where a worker's lease stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum WorkerStatus {
    /// Its lease is live: it heartbeats.
    Live,
    /// Its lease ran out without a goodbye (it crashed, stalled or lost
    /// the database): the runs it held are rescued by other workers.
    Lapsed,
    /// It shut down and gave its lease up.
    Stopped,
}

/// A worker and its lease, as `GET /workers` shows it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, utoipa::ToSchema)]
pub struct WorkerInfo {
    pub id: String,
    pub name: String,
    pub status: WorkerStatus,
    #[serde(with = "crate::model::timestamp")]
    pub started_at: chrono::DateTime<chrono::Utc>,
    /// When its lease runs out unless renewed (each heartbeat pushes it on);
    /// `None` once it stopped.
    #[serde(with = "crate::model::timestamp::option")]
    pub lease_expires_at: Option<chrono::DateTime<chrono::Utc>>,
    /// The runs it holds (status `running` under its lease), oldest first.
    pub runs: Vec<String>,
}

/// What the heartbeat learned.
#[derive(Debug, Clone, PartialEq)]
pub enum Heartbeat {
    /// The lease was renewed; these are the runs the worker still holds,
    /// each with the lease of the claim that took it.
    Renewed { held_runs: Vec<Lease> },
    /// The worker's lease had lapsed: everything it held is void.
    Lost,
}

/// The storage of everything Wingman knows.
#[async_trait]
pub trait Store: Send + Sync + 'static {
    // Agents.
    async fn insert_agent(&self, agent: &Agent) -> StoreResult<()>;
    async fn get_agent(&self, id: &str) -> StoreResult<Option<Agent>>;
    async fn list_agents(&self) -> StoreResult<Vec<Agent>>;
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
    async fn session_history(&self, id: &str) -> StoreResult<Vec<Message>>;
    /// A session, and the agent that answers a message to it: `agent_id`
    /// if given, else the session's own (`None` when there is none or it
    /// does not exist). `None` when the session does not exist. A backend
    /// whose reads are round trips answers in one.
    async fn session_and_agent(
        &self,
        session_id: &str,
        agent_id: Option<&str>,
    ) -> StoreResult<Option<(Session, Option<Agent>)>> {
        let Some(session) = self.get_session(session_id).await? else { return Ok(None) };
        let agent = match agent_id.or(session.agent_id.as_deref()) {
            Some(id) => self.get_agent(id).await?,
            None => None,
        };
        Ok(Some((session, agent)))
    }

    // Runs.
    /// Writes a queued run and its `run_queued` event, atomically. The run's
    /// session must exist. With a key, a repeated submission returns the first run.
    async fn enqueue_run(&self, run: NewRun, key: Option<IdempotencyKey>) -> StoreResult<Enqueued>;
    async fn get_run(&self, id: &str) -> StoreResult<Option<Run>>;
    async fn list_runs(&self, filter: &RunFilter) -> StoreResult<Vec<Run>>;
    /// How many runs have this status.
    async fn count_runs(&self, status: RunStatus) -> StoreResult<u64>;
    /// The queue at a glance: runs waiting and running, and live workers.
    async fn queue_stats(&self) -> StoreResult<QueueStats>;
    /// Cancels a queued, waiting or running run: it ends at once with `done`.
    /// A terminal run is a [`StoreError::Conflict`].
    async fn cancel_run(&self, id: &str) -> StoreResult<Run>;
    /// Leaves a message for a run, taken in at its next step boundary (a
    /// queued run's first); a waiting run is queued again to take it. A
    /// terminal run is a [`StoreError::Conflict`].
    async fn steer_run(&self, id: &str, message: &str) -> StoreResult<Run>;
    /// Records a person's decisions on the calls a waiting run waits for
    /// (checkpoints of `step`), writes `event` (`approval_decided`) and
    /// queues the run again, atomically. A run that is not waiting is a
    /// [`StoreError::Conflict`] and nothing is written.
    async fn decide(&self, id: &str, step: u32, decisions: Vec<Checkpoint>, event: RunEvent) -> StoreResult<Run>;

    // Fleet runs.
    /// Writes a fleet run, its tasks' sessions and runs (the first
    /// `worker_count` holding a slot, see [`crate::fleet`]), each run's
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
    /// A finished fleet run is a [`StoreError::Conflict`].
    async fn cancel_fleet_run(&self, id: &str) -> StoreResult<FleetRun>;

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
    async fn load_run(&self, run_id: &str) -> StoreResult<RunContext>;
    /// Loads several runs' contexts, in one round trip where the backend can:
    /// a worker that claimed a batch loads it at once.
    async fn load_runs(&self, run_ids: Vec<String>) -> StoreResult<Vec<RunContext>> {
        let mut contexts = Vec::with_capacity(run_ids.len());
        for run_id in &run_ids {
            contexts.push(self.load_run(run_id).await?);
        }
        Ok(contexts)
    }
    async fn commit(&self, lease: &Lease, commit: Commit) -> StoreResult<Committed>;
    /// The items waiting in a run's inbox, oldest first.
    async fn read_inbox(&self, run_id: &str) -> StoreResult<Vec<InboxItem>>;
    /// Hands a run back to the queue without charging the attempt (a graceful
    /// shutdown, or a claim whose answer was lost). Writes `run_handed_back`
    /// ([`HandBack::event`]) and the `handed_back` fact ([`HandBack::clean_boundary`]).
    async fn release_run(&self, lease: &Lease, how: HandBack) -> StoreResult<()>;

    // Provider credentials.
    /// Stores (or replaces) the keys of several credential names at once:
    /// all of them or, on failure, none.
    async fn put_credentials(&self, keys: Vec<(String, ApiKey)>) -> StoreResult<Vec<CredentialInfo>>;
    /// Stores (or replaces) the key of one credential name.
    async fn put_credential(&self, name: &str, key: &ApiKey) -> StoreResult<CredentialInfo> {
        let mut stored = self.put_credentials(vec![(name.to_string(), key.clone())]).await?;
        stored.pop().ok_or_else(|| StoreError::internal("the credential was not stored"))
    }
    /// The key of a credential name, for a worker building a provider.
    async fn get_credential(&self, name: &str) -> StoreResult<Option<ApiKey>>;
    /// Every stored credential, without the keys.
    async fn list_credentials(&self) -> StoreResult<Vec<CredentialInfo>>;
    /// Forgets a credential; [`StoreError::NotFound`] if there was none.
    async fn delete_credential(&self, name: &str) -> StoreResult<()>;

    // Retention (see [`retention`]).
    /// Removes one small batch of old logs: at most `limit` events and
    /// checkpoints (together) of runs and fleet runs that ended more than
    /// `older_than` ago by the store's clock, oldest first, in one short
    /// transaction. The runs and fleet runs themselves stay, with their
    /// results, and so do sessions' histories. An empty answer means nothing
    /// that old is left to prune.
    async fn prune_logs(&self, older_than: Duration, limit: u32) -> StoreResult<Pruned>;
    /// Deletes a run that has ended, with its log and the idempotency keys
    /// that name it, in transactions of at most [`retention::DELETE_BATCH`]
    /// rows. Its session keeps its history; its fleet run keeps its counts
    /// and its own log. A run that has not ended is a
    /// [`StoreError::Conflict`] and nothing is deleted.
    async fn delete_run(&self, id: &str) -> StoreResult<()>;
}

/// Opens the store named by a database URL: `postgres://…` (or
/// `postgresql://…`) for PostgreSQL, else a `sqlite:` URL or a file path.
pub async fn open(url: &str, options: &StoreOptions) -> anyhow::Result<std::sync::Arc<dyn Store>> {
    if is_postgres(url) {
        let store = postgres::PgStore::open(url).await?;
        return Ok(std::sync::Arc::new(store));
    }
    let store = sqlite::SqliteStore::open(url, options).await?;
    Ok(std::sync::Arc::new(store))
}

/// True when a database URL names PostgreSQL.
pub fn is_postgres(url: &str) -> bool {
    url.starts_with("postgres:") || url.starts_with("postgresql:")
}

/// Settings of a store.
#[derive(Debug, Clone)]
pub struct StoreOptions {
    /// `FULL` (default) survives power loss; `NORMAL` may lose the last commits on power loss.
    pub synchronous_full: bool,
}

impl Default for StoreOptions {
    fn default() -> Self {
        StoreOptions { synchronous_full: true }
    }
}

/// Waits until `changes` reports a change; forever if there is no receiver
/// (or its sender is gone), so it can sit in a `select!` beside a timer.
///
/// A backend reports a change once the commit behind it is visible.
pub async fn changed(changes: &mut Option<tokio::sync::watch::Receiver<u64>>) {
    match changes {
        Some(rx) => {
            if rx.changed().await.is_err() {
                *changes = None;
                std::future::pending::<()>().await;
            }
        }
        None => std::future::pending::<()>().await,
    }
}
