//! How runs end: the terminal state a backend writes, the `done` event that
//! says so, and where the end goes besides the run's own row (its
//! session's history and turn, its fleet run).

use serde_json::Value;

use crate::domain::access::By;
use crate::domain::checkpoint::{summarize, Checkpoint, RunSummary};
use crate::domain::event::RunEvent;
use crate::domain::fleet::TaskEnd;
use crate::domain::model::{storable_text, Message, RunInput, RunStatus};

use super::{turn, ChildEnd};
use crate::domain::formation::run::{self, NodeRef, Outcome};
use crate::domain::subagent::ParentCall;
use crate::domain::webhook::{self, NewDelivery};

/// The end of a run: what its row records and its `done` event.
#[derive(Debug, Clone, PartialEq)]
pub struct Ending {
    pub status: RunStatus,
    pub error: Option<String>,
    pub summary: RunSummary,
    /// The run's last event.
    pub done: RunEvent,
}

impl Ending {
    /// The end of a run with this status, error and summary.
    pub fn new(status: RunStatus, error: Option<String>, summary: RunSummary) -> Ending {
        let error = error.map(storable_text);
        let done = RunEvent::done(status, error.clone(), &summary);
        Ending { status, error, summary, done }
    }

    /// Whether the run's checkpoints outlive this end. Checkpoints are read
    /// only to resume a run that has not ended and to retry a failed,
    /// cancelled or interrupted one; a run that succeeded is neither, and
    /// its row, its events and the history it left hold everything a client
    /// reads of it. So its end deletes them, and the commit that ends it
    /// writes none: they were most of a finished run's bytes.
    pub fn keeps_checkpoints(&self) -> bool {
        self.status != RunStatus::Succeeded
    }

    /// The end a reason decided outside a worker gives a run whose stored
    /// state is `stored`.
    pub fn of(reason: &EndReason, stored: &Stored) -> Ending {
        let status = reason.status();
        let mut summary = summarize(&stored.input, &stored.checkpoints, status);
        if !reason.keeps_history() {
            summary.history.clear();
        }
        let mut ending = Ending::new(status, Some(reason.error()), summary);
        if let RunEvent::Done { by, .. } = &mut ending.done {
            *by = reason.by().cloned();
        }
        ending
    }
}

/// What the store holds of a run for the rules that summarise it.
#[derive(Debug, Clone)]
pub struct Stored {
    pub input: RunInput,
    pub checkpoints: Vec<Checkpoint>,
}

/// Why a run ends without its worker deciding it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EndReason {
    /// `POST /runs/{id}/cancel`, by this caller.
    Cancelled { by: By },
    /// Its fleet run was cancelled, by this caller.
    FleetRunCancelled { by: By },
    /// Its session was deleted.
    SessionDeleted,
    /// A newer message of its session came with `multitask_strategy: interrupt`
    /// before it ran.
    Interrupted,
    /// A newer message of its session came with `multitask_strategy: rollback`.
    RolledBack,
    /// Its attempts ran out ([`crate::domain::attempt`]).
    GaveUp { charged: u32 },
    /// It is a sub-agent's run, and the run that started it ended first.
    ParentEnded,
    /// It is a node's work, and its formation run ended (a node failed, or
    /// the formation run was cancelled).
    FormationEnded,
}

impl EndReason {
    /// The status the run ends with.
    pub fn status(&self) -> RunStatus {
        match self {
            EndReason::Interrupted => RunStatus::Interrupted,
            EndReason::GaveUp { .. } => RunStatus::Failed,
            _ => RunStatus::Cancelled,
        }
    }

    /// The run's `error`.
    pub fn error(&self) -> String {
        match self {
            EndReason::Cancelled { .. } => "cancelled".into(),
            EndReason::FleetRunCancelled { .. } => "fleet run cancelled".into(),
            EndReason::SessionDeleted => "session deleted".into(),
            EndReason::Interrupted => "interrupted by a newer message".into(),
            EndReason::RolledBack => "rolled back by a newer message".into(),
            EndReason::GaveUp { charged } => crate::domain::attempt::gave_up(*charged),
            EndReason::ParentEnded => "the run that started this sub-agent ended".into(),
            EndReason::FormationEnded => "its formation run ended".into(),
        }
    }

    /// Who ended the run, when a person did.
    pub fn by(&self) -> Option<&By> {
        match self {
            EndReason::Cancelled { by } | EndReason::FleetRunCancelled { by } => Some(by),
            _ => None,
        }
    }

    /// Whether what the run did stays in its session's history: a rollback
    /// forgets it.
    pub fn keeps_history(&self) -> bool {
        *self != EndReason::RolledBack
    }
}

/// What a backend read of a run's row as it ended it.
#[derive(Debug, Clone)]
pub struct EndedRow {
    pub run_id: String,
    pub session_id: Option<String>,
    pub blocked: bool,
    pub fleet_run_id: Option<String>,
    pub task_index: Option<u32>,
    /// A fleet task's `data` (from its input), which its `result` passes
    /// on; a backend reads it for fleet tasks only.
    pub task_data: Option<Value>,
    /// A sub-agent's run: the call it answers (from its input).
    pub parent: Option<ParentCall>,
    /// An agent node's run: its formation run and node (from its input).
    pub node: Option<NodeRef>,
    /// Its own sub-agents' runs that have not ended.
    pub children_open: u32,
    /// Where its end is announced (from its input).
    pub webhook: Option<String>,
}

/// Where a run's end goes besides its own row.
#[derive(Debug)]
pub struct AfterEnd<'a> {
    /// The session and the messages to append to its history (none for a
    /// run without a session, or one that leaves nothing).
    pub history: Option<(&'a str, &'a [Message])>,
    /// The session whose turn passes to its next queued run.
    pub passes_turn: Option<&'a str>,
    /// The fleet task that ended, with its fleet run and whether it held a
    /// slot it now passes on.
    pub task: Option<EndedTask<'a>>,
    /// A sub-agent's run: its end goes to its parent ([`super::child_ended`]).
    pub parent: Option<ChildEnd<'a>>,
    /// The run whose sub-agents' runs, still open, end with it
    /// ([`EndReason::ParentEnded`]).
    pub cancels_children: Option<&'a str>,
    /// An agent node's run: how its node ended ([`crate::domain::formation::run::node_ended`]).
    pub node: Option<(&'a NodeRef, Outcome)>,
    /// The announcement of its end, written with it ([`crate::domain::webhook`]).
    pub delivery: Option<NewDelivery>,
}

/// A fleet task that ended, as its fleet run takes it in ([`crate::domain::fleet::task_ended`]).
#[derive(Debug)]
pub struct EndedTask<'a> {
    pub fleet_run_id: &'a str,
    pub held_slot: bool,
    pub end: TaskEnd<'a>,
}

/// Where the end of the run whose row is `row` goes.
pub fn after_end<'a>(row: &'a EndedRow, ending: &'a Ending) -> AfterEnd<'a> {
    let session = row.session_id.as_deref();
    let history = ending.summary.history.as_slice();
    let task = match (&row.fleet_run_id, row.task_index) {
        (Some(fleet_run_id), Some(task_index)) => Some(EndedTask {
            fleet_run_id,
            held_slot: !row.blocked,
            end: TaskEnd {
                run_id: &row.run_id,
                session_id: session,
                task_index,
                status: ending.status,
                error: ending.error.as_deref(),
                response: ending.summary.response.as_deref(),
                steps: ending.summary.steps,
                usage: ending.summary.usage,
                data: row.task_data.as_ref(),
            },
        }),
        _ => None,
    };
    let parent = row.parent.as_ref().map(|parent| ChildEnd {
        parent,
        run_id: &row.run_id,
        status: ending.status,
        response: ending.summary.response.as_deref(),
        error: ending.error.as_deref(),
        spent: ending.summary.spent,
    });
    AfterEnd {
        history: session.filter(|_| !history.is_empty()).map(|s| (s, history)),
        passes_turn: session.filter(|_| turn::passes_turn(row.blocked, row.fleet_run_id.is_some())),
        task,
        parent,
        cancels_children: (row.children_open > 0).then_some(row.run_id.as_str()),
        node: row.node.as_ref().map(|node| {
            (node, run::run_outcome(ending.status, ending.summary.response.as_deref(), ending.error.as_deref()))
        }),
        delivery: row.webhook.as_deref().map(|url| {
            webhook::run_finished(
                &row.run_id,
                url,
                ending.status,
                ending.summary.response.as_deref(),
                ending.summary.usage,
                ending.error.as_deref(),
            )
        }),
    }
}
