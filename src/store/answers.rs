//! What the store answers: claims, run contexts, the results of writes,
//! and the state of the queue and its workers.

use crate::domain::checkpoint::Checkpoint;
use crate::domain::history::History;
use crate::domain::lifecycle::{InboxItem, Lease};
use crate::domain::model::{Agent, FleetRun, Run};
use crate::domain::shell::ShellState;

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

/// The result of an enqueue.
#[derive(Debug, Clone)]
pub struct Enqueued {
    pub run: Run,
    /// False when an idempotency key matched an earlier submission.
    pub created: bool,
}

/// The result of enqueuing a fleet run.
#[derive(Debug, Clone)]
pub struct EnqueuedFleetRun {
    pub fleet_run: FleetRun,
    /// False when an idempotency key matched an earlier submission.
    pub created: bool,
}

/// The result of enqueuing a formation run.
#[derive(Debug, Clone)]
pub struct EnqueuedFormationRun {
    pub formation_run: crate::domain::formation::run::FormationRun,
    /// False when an idempotency key matched an earlier submission.
    pub created: bool,
}

/// A run handed to a worker by a claim.
#[derive(Debug, Clone)]
pub struct Claim {
    pub lease: Lease,
    /// Which claim of the run this is: 1 for the first, one more for each.
    pub attempt: u32,
    /// Earlier attempts charged against `max_attempts` (see [`crate::domain::attempt`]).
    pub charged_attempts: u32,
    /// The run was taken over from a worker whose lease had lapsed.
    pub rescued: bool,
    /// The run's context, when the worker loaded it together with the rest of
    /// its claim ([`Store::load_runs`]); `None` means the execution loads it.
    pub context: Option<Box<RunContext>>,
}

/// Everything a worker needs to execute a claimed run.
#[derive(Debug, Clone)]
pub struct RunContext {
    pub run: Run,
    pub agent: Agent,
    pub work_dir: String,
    /// The session's history before this run.
    pub history: History,
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
    /// The shell state the run's session kept after its last bash call;
    /// `None` before its first, and for a run without a session.
    pub shell: Option<ShellState>,
}

/// What a commit saw of the run it wrote.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Committed {
    /// The number of the newest item in the run's inbox, if there is one:
    /// newer than what the worker took in, it is there to take at the next
    /// step boundary.
    pub inbox_newest: Option<u64>,
}

/// The queue at a glance, as `GET /health` reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QueueStats {
    /// Runs waiting for a worker (including those waiting for their session's turn).
    pub queued: u64,
    /// Runs a worker holds now.
    pub running: u64,
    /// Workers whose lease is live.
    pub workers: u64,
}

/// Where a worker's lease stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkerInfo {
    pub id: String,
    pub name: String,
    pub status: WorkerStatus,
    pub started_at: chrono::DateTime<chrono::Utc>,
    /// When its lease runs out unless renewed (each heartbeat pushes it on);
    /// `None` once it stopped.
    pub lease_expires_at: Option<chrono::DateTime<chrono::Utc>>,
    /// The runs it holds (status `running` under its lease), oldest first.
    pub runs: Vec<String>,
}

impl WorkerInfo {
    /// How long a worker that is gone and holds nothing stays listed: each
    /// registration forgets those gone longer.
    pub const FORGOTTEN_AFTER: std::time::Duration = std::time::Duration::from_secs(3600);
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
