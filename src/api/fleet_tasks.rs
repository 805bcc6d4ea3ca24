//! What a fleet run's submission holds (`POST /fleets/{id}/run`): its tasks,
//! as the OpenAPI document describes them; the door checks them
//! ([`crate::submit::FleetRunSubmission`]).

use serde::Deserialize;
use serde_json::Value;
use utoipa::ToSchema;

use super::schemas::{self, AnyJson};
use crate::submit::{FleetRunSubmission, Task};

/// The body of a fleet run: the original API's.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RunBody {
    /// 1 to 10,000 tasks.
    #[schema(min_items = 1, max_items = 10000)]
    pub tasks: Vec<TaskBody>,
    /// Where the fleet run's end is announced.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub webhook: Option<crate::domain::webhook::Webhook>,
    /// Every task's priority.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(schema_with = super::schemas::priority)]
    pub priority: Option<i64>,
    /// At most `limit` runs with this key run at once: the tasks, and every
    /// other run that names it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub concurrency: Option<crate::domain::model::Concurrency>,
}

/// One task: a message for the fleet's agent.
#[derive(Debug, Deserialize, ToSchema)]
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

impl RunBody {
    /// The body as the door takes it, for `fleet_id`.
    pub fn submission(self, fleet_id: &str) -> FleetRunSubmission {
        let tasks = self.tasks.into_iter().map(TaskBody::into_task).collect();
        FleetRunSubmission { fleet_id: fleet_id.to_string(), tasks, webhook: self.webhook }
    }
}

impl TaskBody {
    /// The task as the door takes it.
    pub fn into_task(self) -> Task {
        Task { message: self.message, work_dir: self.work_dir, instructions: self.instructions, data: self.data }
    }
}
