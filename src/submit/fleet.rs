//! A fleet run: one run per task, each in a session of its own, written in
//! one transaction.

use chrono::Utc;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::domain::fleet::MAX_TASKS;
use crate::domain::model::{new_id, Fleet, RunInput, Session};
use crate::domain::webhook::Webhook;
use crate::store::{EnqueuedFleetRun, NewFleetRun, NewTask};

use super::{checks, Door, Envelope, SubmitConfig, SubmitError, SubmitResult};

/// A fleet run of `tasks` (`POST /fleets/{id}/run`, a schedule's fleet target).
#[derive(Debug, Clone, Default, Serialize)]
pub struct FleetRunSubmission {
    #[serde(skip)]
    pub fleet_id: String,
    /// 1 to [`MAX_TASKS`] tasks.
    pub tasks: Vec<Task>,
    /// Where the fleet run's end is announced.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub webhook: Option<Webhook>,
}

/// One task: a message for the fleet's agent. A schedule stores its tasks
/// in this shape and reads them back with it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Task {
    pub message: String,
    /// The task's `work_dir`; the fleet's, else a directory of its own, by default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub work_dir: Option<String>,
    /// Replaces the agent's instructions for this task only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
    /// Passed through untouched into the task's result.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

/// Checks a fleet run's tasks: 1 to [`MAX_TASKS`], each message and `work_dir`.
pub fn check_tasks(config: &SubmitConfig, tasks: &[Task]) -> SubmitResult<()> {
    if tasks.is_empty() {
        return Err(SubmitError::Invalid("tasks must hold at least one task".into()));
    }
    if tasks.len() > MAX_TASKS {
        return Err(SubmitError::Invalid(format!("a fleet run holds at most {MAX_TASKS} tasks")));
    }
    for (i, task) in tasks.iter().enumerate() {
        checks::message(&task.message).map_err(|m| SubmitError::Invalid(format!("tasks[{i}]: {m}")))?;
        if let Some(dir) = &task.work_dir {
            checks::work_dir(config, dir).map_err(|e| match e {
                SubmitError::Refused(m) => SubmitError::Refused(format!("tasks[{i}]: {m}")),
                other => SubmitError::Invalid(format!("tasks[{i}]: {other}")),
            })?;
        }
    }
    Ok(())
}

impl Door {
    /// Enqueues a fleet run and all its tasks in one transaction.
    pub async fn fleet_run(
        &self,
        envelope: &Envelope,
        submission: FleetRunSubmission,
    ) -> SubmitResult<EnqueuedFleetRun> {
        let fleet_id = submission.fleet_id.clone();
        let not_found = || SubmitError::NotFound(format!("fleet {fleet_id}"));
        let fleet = self.store.get_fleet(&fleet_id).await?.ok_or_else(not_found)?;
        check_tasks(&self.config, &submission.tasks)?;
        let webhook = checks::webhook_url(&self.config.webhooks, submission.webhook.as_ref(), None)?;
        let agent = self.store.get_agent(&fleet.agent_id).await?.ok_or_else(|| {
            SubmitError::Refused(format!(
                "the fleet's agent {} no longer exists: PUT the fleet a new agent_id",
                fleet.agent_id
            ))
        })?;
        // What a key stands for: the body as the API first hashed it.
        let canonical = serde_json::to_string(&submission).map_err(|e| SubmitError::Internal(e.to_string()))?;
        let key = envelope.key(&format!("fleet:{fleet_id}"), &[&canonical]);
        self.check_queue_room(&envelope.carried.owner, submission.tasks.len() as u64).await?;
        let id = new_id();
        let tasks = submission
            .tasks
            .into_iter()
            .enumerate()
            .map(|(index, task)| {
                let mut session = task_session(&self.config, &fleet, &id, index, task.work_dir.as_deref());
                session.owner = envelope.carried.owner.clone();
                let carried = envelope.carried.for_run(&agent, Some(&session.id));
                let mut input = RunInput::new(task.message, carried);
                (input.instructions, input.data) = (task.instructions, task.data);
                NewTask { run_id: new_id(), session, input }
            })
            .collect();
        let new = NewFleetRun {
            id,
            owner: envelope.carried.owner.clone(),
            fleet_id: fleet.id.clone(),
            agent,
            worker_count: fleet.worker_count,
            tasks,
            max_attempts: self.config.max_attempts,
            webhook,
        };
        let enqueued =
            self.store.enqueue_fleet_run(new, key).await.map_err(SubmitError::naming(format!("fleet {fleet_id}")))?;
        self.written();
        Ok(enqueued)
    }
}

/// A task's session: its own, in the task's work_dir, else the fleet's, else
/// a directory of its own under the data directory.
fn task_session(config: &SubmitConfig, fleet: &Fleet, fleet_run_id: &str, index: usize, dir: Option<&str>) -> Session {
    let id = new_id();
    let work_dir = dir
        .map(str::to_string)
        .or_else(|| fleet.work_dir.clone())
        .unwrap_or_else(|| config.data_dir.join("sessions").join(&id).to_string_lossy().into_owned());
    let now = Utc::now();
    Session {
        id,
        owner: crate::domain::model::first_admin(),
        agent_id: Some(fleet.agent_id.clone()),
        title: Some(format!("{} task {index}", fleet.name)),
        work_dir,
        metadata: json!({"fleet_id": fleet.id, "fleet_run_id": fleet_run_id, "task_index": index}),
        added_tools: Default::default(),
        forked_from: None,
        created_at: now,
        updated_at: now,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fleet_run_is_keyed_by_its_body_as_the_api_first_wrote_it() {
        let submission = FleetRunSubmission {
            fleet_id: "F".into(),
            tasks: vec![Task { message: "a".into(), data: Some(json!({"n": 1})), ..Default::default() }],
            webhook: None,
        };
        assert_eq!(serde_json::to_string(&submission).unwrap(), r#"{"tasks":[{"message":"a","data":{"n":1}}]}"#);
    }

    #[test]
    fn tasks_are_counted_and_each_checked() {
        let config = SubmitConfig::default();
        assert!(matches!(check_tasks(&config, &[]), Err(SubmitError::Invalid(_))));
        let blank = Task { message: " ".into(), ..Default::default() };
        let refused = check_tasks(&config, &[Task { message: "a".into(), ..Default::default() }, blank]);
        assert!(refused.unwrap_err().to_string().starts_with("tasks[1]: "));
        let relative = Task { message: "a".into(), work_dir: Some("rel".into()), ..Default::default() };
        assert!(matches!(check_tasks(&config, &[relative]), Err(SubmitError::Invalid(_))));
    }
}
