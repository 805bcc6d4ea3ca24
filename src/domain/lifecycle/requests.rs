//! What people ask of runs that already exist: cancel, steer, decide.

use crate::domain::access::By;
use crate::domain::checkpoint::Checkpoint;
use crate::domain::model::{FleetRun, Run, RunStatus};

use super::{EndReason, InboxKind, Refusal};

/// Cancels a run that has not ended, for `by`; an ended one is a conflict.
pub fn cancel(run: &Run, by: &By) -> Result<EndReason, Refusal> {
    if run.status.is_terminal() {
        return Err(Refusal::run_ended(&run.id, run.status));
    }
    Ok(EndReason::Cancelled { by: by.clone() })
}

/// Cancels a fleet run that has not ended: each of its unfinished tasks
/// ends for the reason answered, which names `by`.
pub fn cancel_fleet_run(fleet_run: &FleetRun, by: &By) -> Result<EndReason, Refusal> {
    if fleet_run.status.is_terminal() {
        return Err(Refusal::ended(&format!("fleet run {}", fleet_run.id), fleet_run.status.as_str()));
    }
    Ok(EndReason::FleetRunCancelled { by: by.clone() })
}

/// What a steer writes.
#[derive(Debug, Clone, PartialEq)]
pub struct Steer {
    /// The inbox item the run takes in at its next step boundary.
    pub item: InboxKind,
    /// The run waits for a person: it is queued again to take the message.
    pub requeue: bool,
}

/// Steers a run that has not ended.
pub fn steer(run: &Run, message: &str) -> Result<Steer, Refusal> {
    if run.status.is_terminal() {
        return Err(Refusal::run_ended(&run.id, run.status));
    }
    // A run waiting for its sub-agents takes the message in when they have
    // ended: queued now, it would find their calls still unanswered.
    let requeue = run.status == RunStatus::Waiting && run.children_open == 0;
    Ok(Steer { item: InboxKind::Steer(message.to_string()), requeue })
}

/// Accepts answers (checkpoints of `step`: a person's decisions, or a
/// client's tool results) for a run, which must be waiting for them; it is
/// then queued again. A second answer finds the run queued: a conflict.
pub fn decide(run: &Run, step: u32, answers: &[Checkpoint]) -> Result<(), Refusal> {
    if run.status != RunStatus::Waiting {
        return Err(Refusal::Conflict(format!(
            "run {} is {}: it no longer waits for this answer",
            run.id,
            run.status.as_str()
        )));
    }
    if run.children_open > 0 {
        return Err(Refusal::Conflict(format!("run {} waits for its sub-agents' runs, not for this answer", run.id)));
    }
    if answers.iter().any(|d| d.step != step) {
        return Err(Refusal::Conflict(format!("answers for another step than the one waiting ({step})")));
    }
    Ok(())
}
