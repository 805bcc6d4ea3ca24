//! Submissions: a run's first event, a fleet run's tasks, and what an
//! `Idempotency-Key` used before answers.

use crate::domain::event::RunEvent;
use crate::domain::fleet;
use crate::domain::model::RunKind;

use super::{IdempotencyKey, NewFleetRun, NewRun, Refusal};

/// The `run_queued` event of a new run; `task` places it in a fleet run:
/// (fleet run ID, task index).
pub fn queued(new: &NewRun, task: Option<(&str, u32)>) -> RunEvent {
    RunEvent::RunQueued {
        kind: new.kind,
        session_id: new.session_id.clone(),
        agent_id: new.agent.id.clone(),
        fleet_run_id: task.map(|t| t.0.to_string()),
        task_index: task.map(|t| t.1),
    }
}

/// A key used before, with the hash of the request it came with then: the
/// same request replays the first answer; another is refused.
pub fn replay(key: &IdempotencyKey, first_request_hash: &str) -> Result<(), Refusal> {
    if key.request_hash == first_request_hash {
        Ok(())
    } else {
        Err(Refusal::Conflict("this Idempotency-Key was already used with a different request".into()))
    }
}

/// A fleet task's run as it is written.
#[derive(Debug, Clone)]
pub struct TaskRun {
    pub run: NewRun,
    /// It waits for a slot ([`fleet::starts_blocked`]).
    pub blocked: bool,
    pub queued: RunEvent,
}

/// What enqueuing a fleet run writes besides its tasks' sessions: its
/// `fleet_queued`, and each task's run, in task order.
#[derive(Debug, Clone)]
pub struct FleetRunEnqueue {
    pub queued: RunEvent,
    pub tasks: Vec<TaskRun>,
}

/// The runs and events of a new fleet run.
pub fn fleet_run(new: &NewFleetRun) -> FleetRunEnqueue {
    let fleet_queued = fleet::queued_event(&new.fleet_id, &new.agent.id, new.tasks.len(), new.worker_count);
    let tasks = new
        .tasks
        .iter()
        .enumerate()
        .map(|(index, task)| {
            let index = index as u32;
            let run = NewRun {
                id: task.run_id.clone(),
                kind: RunKind::FleetTask,
                session_id: Some(task.session.id.clone()),
                agent: new.agent.clone(),
                input: task.input.clone(),
                work_dir: task.session.work_dir.clone(),
                max_attempts: new.max_attempts,
                strategy: Default::default(),
                from_past: None,
            };
            let event = queued(&run, Some((&new.id, index)));
            TaskRun { run, blocked: fleet::starts_blocked(index, new.worker_count), queued: event }
        })
        .collect();
    FleetRunEnqueue { queued: fleet_queued, tasks }
}
