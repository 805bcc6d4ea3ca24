//! The rules of fleet runs, apart from any backend: which tasks start with a
//! slot, what a task's `result` event says, and how a fleet run ends.
//!
//! A fleet run's `worker_count` is a number of slots. A task holds a slot
//! from the moment it may be claimed until it ends; the rest wait, `blocked`
//! in the database, and the transaction that ends a task hands its slot to
//! the next waiting task in submission order. Claims take only tasks that
//! hold a slot, so the cap holds across every worker process and host, and a
//! capped fleet never stands in the way of other runs: its waiting tasks are
//! not claimable, so claims pass over them. The same mechanism gives a
//! session its one-run-at-a-time turn.

use serde_json::{json, Value};

use crate::model::{FleetProgress, FleetRunStatus, NewEvent, Run, RunStatus, Usage};

/// The most tasks one fleet run may have.
pub const MAX_TASKS: usize = 10_000;

/// The name the original API gave the worker of a task.
pub fn worker_name(task_index: u32) -> String {
    format!("worker-{task_index}")
}

/// True when a task starts without a slot: every slot is taken by an earlier task.
pub fn starts_blocked(task_index: u32, worker_count: u32) -> bool {
    worker_count > 0 && task_index >= worker_count
}

/// The first event of a fleet run's log: one summary for all its tasks.
pub fn queued_event(fleet_id: &str, agent_id: &str, tasks: usize, worker_count: u32) -> NewEvent {
    NewEvent::new(
        "fleet_queued",
        json!({"fleet_id": fleet_id, "agent_id": agent_id, "tasks": tasks, "worker_count": worker_count}),
    )
}

/// What a task amounts to when it ends.
#[derive(Debug, Clone)]
pub struct TaskEnd<'a> {
    pub run_id: &'a str,
    pub session_id: Option<&'a str>,
    pub task_index: u32,
    pub status: RunStatus,
    pub error: Option<&'a str>,
    pub response: Option<&'a str>,
    pub steps: u32,
    pub usage: Usage,
    /// The task's `data`, passed through untouched.
    pub data: Option<&'a Value>,
}

impl<'a> TaskEnd<'a> {
    /// A task as its run row shows it (ended or not).
    pub fn of_run(run: &'a Run) -> TaskEnd<'a> {
        TaskEnd {
            run_id: &run.id,
            session_id: run.session_id.as_deref(),
            task_index: run.task_index.unwrap_or(0),
            status: run.status,
            error: run.error.as_deref(),
            response: run.response.as_deref(),
            steps: run.steps,
            usage: run.usage,
            data: run.input.data.as_ref(),
        }
    }
}

/// A task's result: the original API's fields (`task_index`, `worker_name`,
/// `response`, `steps`, `data`, `error`) and Wingman's (`run_id`,
/// `session_id`, `status`, `usage`). Written in the transaction that ends the
/// task, so it exists exactly once.
pub fn result(task: &TaskEnd) -> Value {
    let mut result = json!({
        "task_index": task.task_index,
        "worker_name": worker_name(task.task_index),
        "run_id": task.run_id,
        "session_id": task.session_id,
        "status": task.status.as_str(),
        "response": task.response.unwrap_or(""),
        "steps": task.steps,
        "usage": task.usage,
        "data": task.data,
    });
    if let Some(error) = task.error {
        result["error"] = json!(error);
    }
    result
}

/// The `result` event of a task.
pub fn result_event(task: &TaskEnd) -> NewEvent {
    NewEvent::new("result", result(task))
}

/// How a fleet run whose tasks have all ended ends: `cancelled` when it was
/// cancelled; else `failed` if any task failed; else `cancelled` if any task
/// was cancelled on its own; else `succeeded`.
pub fn final_status(progress: &FleetProgress, cancel_requested: bool) -> FleetRunStatus {
    if cancel_requested {
        FleetRunStatus::Cancelled
    } else if progress.failed > 0 {
        FleetRunStatus::Failed
    } else if progress.cancelled > 0 {
        FleetRunStatus::Cancelled
    } else {
        FleetRunStatus::Succeeded
    }
}

/// The last event of a fleet run's log, with the counts.
pub fn done_event(status: FleetRunStatus, progress: &FleetProgress) -> NewEvent {
    NewEvent::new(
        "done",
        json!({
            "status": status.as_str(), "tasks": progress.total, "succeeded": progress.succeeded,
            "failed": progress.failed, "cancelled": progress.cancelled,
        }),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_are_the_first_tasks_and_zero_means_no_cap() {
        assert!(!starts_blocked(0, 3) && !starts_blocked(2, 3) && starts_blocked(3, 3));
        assert!(!starts_blocked(9_999, 0));
    }

    #[test]
    fn a_failure_fails_the_fleet_run_unless_it_was_cancelled() {
        let p = |succeeded, failed, cancelled| FleetProgress {
            total: succeeded + failed + cancelled,
            succeeded,
            failed,
            cancelled,
            ..Default::default()
        };
        assert_eq!(final_status(&p(3, 0, 0), false), FleetRunStatus::Succeeded);
        assert_eq!(final_status(&p(2, 1, 0), false), FleetRunStatus::Failed);
        assert_eq!(final_status(&p(2, 1, 1), false), FleetRunStatus::Failed);
        assert_eq!(final_status(&p(2, 0, 1), false), FleetRunStatus::Cancelled);
        assert_eq!(final_status(&p(1, 1, 1), true), FleetRunStatus::Cancelled);
    }
}
