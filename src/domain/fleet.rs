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

use serde::Serialize;
use serde_json::{Map, Value};

use crate::domain::event::RunEvent;
use crate::domain::model::{FleetProgress, FleetRunStatus, Run, RunStatus, Usage};
use crate::domain::webhook::{self, NewDelivery};

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
pub fn queued_event(fleet_id: &str, agent_id: &str, tasks: usize, worker_count: u32) -> RunEvent {
    RunEvent::FleetQueued { fleet_id: fleet_id.into(), agent_id: agent_id.into(), tasks, worker_count }
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
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
pub struct TaskResult {
    pub task_index: u32,
    /// `worker-<task_index>`, as the original API named a task's worker.
    pub worker_name: String,
    pub run_id: String,
    #[schema(required = true)]
    pub session_id: Option<String>,
    pub status: RunStatus,
    /// The final answer's text (empty while there is none).
    pub response: String,
    pub steps: u32,
    pub usage: Usage,
    /// The task's `data`, passed through untouched (`null` when it had none).
    #[schema(required = true)]
    pub data: Option<Value>,
    /// Why the task failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// A task's result, as answers show it.
pub fn result(task: &TaskEnd) -> TaskResult {
    TaskResult {
        task_index: task.task_index,
        worker_name: worker_name(task.task_index),
        run_id: task.run_id.to_string(),
        session_id: task.session_id.map(str::to_string),
        status: task.status,
        response: task.response.unwrap_or("").to_string(),
        steps: task.steps,
        usage: task.usage,
        data: task.data.cloned(),
        error: task.error.map(str::to_string),
    }
}

fn result_fields(task: &TaskEnd) -> Map<String, Value> {
    match serde_json::to_value(result(task)) {
        Ok(Value::Object(fields)) => fields,
        _ => Map::new(),
    }
}

/// The `result` event of a task.
pub fn result_event(task: &TaskEnd) -> RunEvent {
    RunEvent::Result(result_fields(task))
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

/// Which count of its fleet run a task's end adds one to.
pub fn add_to(progress: &mut FleetProgress, status: RunStatus) {
    match status {
        RunStatus::Succeeded => progress.succeeded += 1,
        RunStatus::Failed => progress.failed += 1,
        _ => progress.cancelled += 1,
    }
}

/// What the end of a task writes to its fleet run, in the transaction that
/// ends the task, with the fleet run's row read (and locked) in it.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskEnded {
    /// The fleet run's counts after this end.
    pub progress: FleetProgress,
    /// The events to append to the fleet run's log: the task's `result`,
    /// and the fleet run's `done` when this was its last task.
    pub events: Vec<RunEvent>,
    /// The task held a slot, which passes to the next waiting task.
    pub passes_slot: bool,
    /// The fleet run's end, when this was its last task.
    pub ends: Option<FleetRunStatus>,
    /// The announcement of that end, for a fleet run with a webhook.
    pub delivery: Option<NewDelivery>,
}

/// The fleet run a task's end goes to, as the transaction that ends the
/// task reads (and locks) its row.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FleetRunRow {
    pub id: String,
    pub progress: FleetProgress,
    pub cancel_requested: bool,
    pub webhook: Option<String>,
}

/// The end of `task`, which `held_slot` or not, for the fleet run whose row
/// is `fleet_run` (its counts before this end). A task holds a slot from
/// the moment it may be claimed until it ends; the slot passes to the next
/// waiting task in submission order.
pub fn task_ended(task: &TaskEnd, held_slot: bool, fleet_run: &FleetRunRow) -> TaskEnded {
    let mut progress = fleet_run.progress;
    add_to(&mut progress, task.status);
    let mut events = vec![result_event(task)];
    let ends = (progress.finished() >= progress.total).then(|| final_status(&progress, fleet_run.cancel_requested));
    if let Some(status) = ends {
        events.push(RunEvent::fleet_done(status, &progress));
    }
    let delivery = ends
        .zip(fleet_run.webhook.as_deref())
        .map(|(status, url)| webhook::fleet_run_finished(&fleet_run.id, url, status, &progress));
    TaskEnded { progress, events, passes_slot: held_slot, ends, delivery }
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

    #[test]
    fn the_last_task_to_end_ends_its_fleet_run() {
        let failed = TaskEnd {
            run_id: "r",
            session_id: None,
            task_index: 1,
            status: RunStatus::Failed,
            error: Some("e"),
            response: None,
            steps: 0,
            usage: Usage::default(),
            data: None,
        };
        let row = |progress| FleetRunRow { id: "f".into(), progress, ..Default::default() };
        let before = FleetProgress { total: 2, succeeded: 1, ..Default::default() };
        let ended = task_ended(&failed, true, &row(before));
        assert_eq!((ended.progress.failed, ended.ends, ended.passes_slot), (1, Some(FleetRunStatus::Failed), true));
        assert_eq!(ended.events.iter().map(RunEvent::kind).collect::<Vec<_>>(), ["result", "done"]);
        let first = task_ended(&failed, false, &row(FleetProgress { total: 2, ..Default::default() }));
        assert_eq!((first.ends, first.events.len(), first.passes_slot), (None, 1, false));
        assert!(ended.delivery.is_none(), "no webhook, no delivery");
        let announced = FleetRunRow { webhook: Some("https://h/x".into()), ..row(before) };
        let delivery = task_ended(&failed, true, &announced).delivery.expect("its end is announced");
        assert_eq!((delivery.subject_id.as_str(), delivery.url.as_str()), ("f", "https://h/x"));
        assert!(
            task_ended(
                &failed,
                false,
                &FleetRunRow { progress: FleetProgress { total: 2, ..Default::default() }, ..announced }
            )
            .delivery
            .is_none(),
            "only its end is"
        );
    }
}
