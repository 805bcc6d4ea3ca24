//! Retrying a run from a step: a new run of the same message that starts
//! from copies of the original's checkpoints before that step, so those
//! steps make no provider or tool call, and goes on from there with the
//! agent as it is now.
//!
//! A step can be reused only whole: its inference and every one of its
//! calls answered (run, decided, or ended by its sub-agent), so that the
//! next thing the copies call for is the inference of the step after it.
//! The original's failed step, and anything after it, is done again.

use crate::domain::checkpoint::{next_action, Checkpoint, CheckpointBody, NextAction};
use crate::domain::event::{ReusedCall, RunEvent};
use crate::domain::model::{Agent, Run, RunKind, RunStatus, Usage};

/// Why a run cannot be retried as asked.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RetryRefusal {
    /// Not now, or not this run (a 409).
    #[error("{0}")]
    Conflict(String),
    /// A `from_step` the run's checkpoints cannot start from (a 422).
    #[error("{0}")]
    BadStep(String),
}

/// What a retry starts from: the step it starts at, the checkpoints it
/// copies, and the `step_reused` events its log begins with after
/// `run_queued`.
#[derive(Debug, Clone, PartialEq)]
pub struct Reused {
    pub run_id: String,
    pub from_step: u32,
    pub checkpoints: Vec<Checkpoint>,
    pub events: Vec<RunEvent>,
}

/// The steps of a run that are whole, counted from the first: the greatest
/// `k` whose checkpoints (those of steps up to `k`) call for the inference
/// of step `k + 1` next, under `agent`'s rules.
pub fn whole_steps(checkpoints: &[Checkpoint], agent: &Agent) -> u32 {
    let last = checkpoints.iter().map(|c| c.step).max().unwrap_or(0);
    (1..=last)
        .rev()
        .find(|&k| {
            let before: Vec<Checkpoint> = checkpoints.iter().filter(|c| c.step <= k).cloned().collect();
            next_action(&before, agent) == NextAction::Infer { step: k + 1 }
        })
        .unwrap_or(0)
}

/// Decides a retry of `run`, whose checkpoints are `checkpoints`, with
/// `agent` (as it is now), from `from_step` (by default the first step that
/// is not whole). Only a session's message that ended without succeeding
/// is retried: a fleet's task, a sub-agent's or a formation node's run
/// answers to what made it, which has moved on.
pub fn plan(
    run: &Run,
    checkpoints: &[Checkpoint],
    agent: &Agent,
    from_step: Option<u32>,
) -> Result<Reused, RetryRefusal> {
    if !matches!(run.status, RunStatus::Failed | RunStatus::Cancelled | RunStatus::Interrupted) {
        return Err(RetryRefusal::Conflict(format!(
            "run {} is {}: only a failed, cancelled or interrupted run is retried",
            run.id,
            run.status.as_str()
        )));
    }
    if run.kind != RunKind::Message {
        return Err(RetryRefusal::Conflict(format!(
            "run {} is a {} run: only a session's message is retried (its maker has moved on without it)",
            run.id,
            run.kind.as_str()
        )));
    }
    let whole = whole_steps(checkpoints, agent);
    let from_step = from_step.unwrap_or(whole + 1);
    if from_step == 0 || from_step > whole + 1 {
        return Err(RetryRefusal::BadStep(format!(
            "from_step {from_step} is out of range: run {} has {whole} whole steps, so a retry starts at step 1 to {}",
            run.id,
            whole + 1
        )));
    }
    let copied: Vec<Checkpoint> = checkpoints.iter().filter(|c| c.step < from_step).cloned().collect();
    let events = (1..from_step).map(|step| reused(&run.id, step, &copied)).collect();
    Ok(Reused { run_id: run.id.clone(), from_step, checkpoints: copied, events })
}

/// The `step_reused` event of `step`, from its checkpoints.
fn reused(from_run_id: &str, step: u32, checkpoints: &[Checkpoint]) -> RunEvent {
    let mut usage = Usage::default();
    let mut tool_calls = Vec::new();
    for checkpoint in checkpoints.iter().filter(|c| c.step == step) {
        match &checkpoint.body {
            CheckpointBody::Inference { usage: used, .. } => usage = *used,
            CheckpointBody::ToolResult { call_id, name, is_error, .. } => {
                tool_calls.push(ReusedCall { call_id: call_id.clone(), name: name.clone(), is_error: *is_error })
            }
            _ => {}
        }
    }
    RunEvent::StepReused { step, from_run_id: from_run_id.to_string(), usage, tool_calls }
}

#[cfg(test)]
mod tests;
