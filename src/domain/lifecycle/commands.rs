//! What clients and workers ask of runs: the commands the store carries
//! out, in domain terms. The rules of this module decide what each one
//! writes; a backend only persists it.

use crate::domain::access::By;
use crate::domain::checkpoint::{Checkpoint, RunSummary};
use crate::domain::event::RunEvent;
use crate::domain::model::{Agent, MultitaskStrategy, RunInput, RunKind, RunStatus, Session};
use crate::domain::shell::ShellState;

/// The lease under which a worker executes a run. Every write for the run is
/// conditioned on it: if another worker took the run over, or the worker's
/// own lease lapsed, the write is refused as fenced.
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
    /// What it takes from its session's past, in the transaction that
    /// writes it: a message that replaces a run, a retry.
    pub from_past: Option<FromPast>,
}

/// What a run made from its session's past does in the transaction that
/// writes it: rewinds its session first ([`crate::domain::branch::rewind`]),
/// and starts from copies of another run's checkpoints, its log from their
/// `step_reused` events ([`crate::domain::retry`]).
#[derive(Debug, Clone, Default)]
pub struct FromPast {
    pub rewind: Option<crate::domain::branch::RewindTo>,
    pub reused: Option<crate::domain::retry::Reused>,
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
    /// Whose it is, and its tasks (and their sessions): the submitter's.
    pub owner: String,
    pub fleet_id: String,
    /// The agent every task runs, as it is at submission.
    pub agent: Agent,
    /// Tasks running at once; 0 for no cap.
    pub worker_count: u32,
    pub tasks: Vec<NewTask>,
    pub max_attempts: u32,
    /// Where its end is announced ([`crate::domain::webhook`]).
    pub webhook: Option<String>,
}

/// Something a person sent a run, kept until the run reaches a step
/// boundary and takes it in (in the commit that delivers it).
#[derive(Debug, Clone, PartialEq)]
pub struct InboxItem {
    /// Its number, increasing in the order items arrive.
    pub seq: u64,
    pub kind: InboxKind,
    /// Who sent it (a steer's caller; none for an interrupt, which a newer
    /// message of the session asks for).
    pub by: Option<By>,
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

    /// Reads a stored item; `None` for a kind this version does not know.
    pub fn from_stored(kind: &str, message: Option<String>) -> Option<InboxKind> {
        match (kind, message) {
            ("steer", Some(message)) => Some(InboxKind::Steer(message)),
            ("interrupt", _) => Some(InboxKind::Interrupt),
            _ => None,
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

impl Finish {
    /// The end a worker writes for `reason` (a newer message interrupted
    /// the run, say): the reason's status and error, said by the rules once.
    pub fn because(reason: &super::EndReason) -> Finish {
        Finish { status: reason.status(), error: Some(reason.error()), summary: None }
    }
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
    /// The shell state the run's session keeps from now on, written with
    /// the bash call that left it ([`crate::domain::shell::kept_by_session`] says
    /// which runs set it); `None` leaves the session's as it is.
    pub shell: Option<ShellState>,
    /// Sub-agents' runs this commit starts, each with its session.
    pub children: Vec<super::NewChild>,
    /// The run parks (`wait`) for its sub-agents' runs rather than for a
    /// person: if none is open by then, it is queued again ([`super::parks_as`]).
    pub awaits_children: bool,
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
    /// The run's next inference must wait for its provider budget longer
    /// than is worth holding a worker ([`crate::domain::share::PARK_MS`]):
    /// it goes back to the queue out of claims' reach until `wake_at`
    /// (milliseconds since the epoch, by the store's clock), keeping its
    /// place in its session and its fleet's slot.
    ForBudget { wake_at: i64 },
}
