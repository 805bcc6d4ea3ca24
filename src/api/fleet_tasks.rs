//! What a fleet run's submission holds (`POST /fleets/{id}/run`): its tasks,
//! the checks on them, and the session each task runs in.

use chrono::Utc;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use utoipa::ToSchema;

use super::error::{ApiError, ApiResult};
use super::runs::check_message;
use super::schemas::{self, AnyJson};
use super::work_dir;
use super::AppState;
use crate::fleet::MAX_TASKS;
use crate::model::{new_id, Fleet, Session};

/// The body of a fleet run: the original API's.
#[derive(Debug, Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RunBody {
    /// 1 to 10,000 tasks.
    #[schema(min_items = 1, max_items = 10000)]
    pub tasks: Vec<TaskBody>,
    /// Where the fleet run's end is announced.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub webhook: Option<crate::webhook::Webhook>,
}

/// One task: a message for the fleet's agent.
#[derive(Debug, Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct TaskBody {
    /// Not blank; at most 256 KiB.
    #[schema(schema_with = schemas::message)]
    pub message: String,
    /// The task's `work_dir`; the fleet's, else a directory of its own, by default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(schema_with = schemas::work_dir)]
    pub work_dir: Option<String>,
    /// Replaces the agent's instructions for this task only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(schema_with = schemas::plain)]
    pub instructions: Option<String>,
    /// Passed through untouched into the task's result.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<AnyJson>)]
    pub data: Option<Value>,
}

/// Checks a fleet run's tasks: 1 to [`MAX_TASKS`], each message and `work_dir`.
pub fn check_tasks(state: &AppState, tasks: &[TaskBody]) -> ApiResult<()> {
    if tasks.is_empty() {
        return Err(ApiError::BadRequest("tasks must hold at least one task".into()));
    }
    if tasks.len() > MAX_TASKS {
        return Err(ApiError::BadRequest(format!("a fleet run holds at most {MAX_TASKS} tasks")));
    }
    for (i, task) in tasks.iter().enumerate() {
        let bad = |m: &str| ApiError::BadRequest(format!("tasks[{i}]: {m}"));
        check_message(&task.message).map_err(|m| bad(&m))?;
        if let Some(dir) = &task.work_dir {
            work_dir::check(state, dir).map_err(|e| match e {
                ApiError::Unprocessable(m) => ApiError::Unprocessable(format!("tasks[{i}]: {m}")),
                other => bad(&other.to_string()),
            })?;
        }
    }
    Ok(())
}

/// A task's session: its own, in the task's work_dir, else the fleet's, else
/// a directory of its own under the data directory.
pub fn task_session(state: &AppState, fleet: &Fleet, fleet_run_id: &str, index: usize, task: &TaskBody) -> Session {
    let id = new_id();
    let work_dir = task
        .work_dir
        .clone()
        .or_else(|| fleet.work_dir.clone())
        .unwrap_or_else(|| state.config.data_dir.join("sessions").join(&id).to_string_lossy().into_owned());
    let now = Utc::now();
    Session {
        id,
        agent_id: Some(fleet.agent_id.clone()),
        title: Some(format!("{} task {index}", fleet.name)),
        work_dir,
        metadata: json!({"fleet_id": fleet.id, "fleet_run_id": fleet_run_id, "task_index": index}),
        added_tools: Default::default(),
        created_at: now,
        updated_at: now,
    }
}
