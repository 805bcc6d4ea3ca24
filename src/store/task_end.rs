//! The end of a fleet task as both backends see it in the transaction that
//! ends its run: what its `result` event says and which count it adds to.

use serde_json::Value;

use crate::checkpoint::RunSummary;
use crate::event::RunEvent;
use crate::fleet::{self, TaskEnd};
use crate::model::RunStatus;
use crate::store::StoreResult;

/// A task that just ended, as the end of its run knows it.
pub struct EndedTask<'a> {
    pub run_id: &'a str,
    pub session_id: Option<&'a str>,
    pub fleet_run_id: &'a str,
    pub task_index: u32,
    /// False when the task held a slot, which it now passes on.
    pub blocked: bool,
    /// The run's stored input (JSON), whose `data` the result passes on.
    pub input: &'a str,
    pub status: RunStatus,
    pub error: &'a Option<String>,
    pub summary: &'a RunSummary,
}

impl EndedTask<'_> {
    /// The task's `result` event (see [`crate::fleet::result`]).
    pub fn result_event(&self) -> StoreResult<RunEvent> {
        let input: Value = serde_json::from_str(self.input)?;
        Ok(fleet::result_event(&TaskEnd {
            run_id: self.run_id,
            session_id: self.session_id,
            task_index: self.task_index,
            status: self.status,
            error: self.error.as_deref(),
            response: self.summary.response.as_deref(),
            steps: self.summary.steps,
            usage: self.summary.usage,
            data: input.get("data"),
        }))
    }

    /// The fleet run's count column this end adds one to.
    pub fn counter(&self) -> &'static str {
        match self.status {
            RunStatus::Succeeded => "succeeded",
            RunStatus::Failed => "failed",
            _ => "cancelled",
        }
    }
}
