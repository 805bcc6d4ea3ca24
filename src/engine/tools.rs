//! Tool steps: running a step's pending tool calls and checkpointing each result.

use super::{Execution, RunExit};
use crate::checkpoint::{Checkpoint, CheckpointBody};
use crate::event::RunEvent;
use crate::model::ToolCall;
use crate::store::{Commit, StoreError};
use crate::tools::{self, ToolContext};

impl Execution {
    /// Runs the pending tool calls of a step: consecutive read-only calls
    /// together, the others one at a time. Each result is committed on its own.
    pub(super) async fn run_tools(&mut self, step: u32, calls: Vec<ToolCall>) -> Result<Option<RunExit>, StoreError> {
        let work_dir = std::path::PathBuf::from(&self.ctx.work_dir);
        if let Err(e) = tokio::fs::create_dir_all(&work_dir).await {
            tracing::warn!(error = %e, dir = %work_dir.display(), "could not create the work_dir");
        }
        let agent = &self.ctx.agent;
        let ctx = ToolContext {
            work_dir,
            // The run's agent snapshot says what the model may use, whatever it asks for.
            granted: agent.tools.clone(),
            cancel: self.signals.abort.child_token(),
            allow_private_network: self.config.allow_private_network,
            sandbox: self.config.sandbox.clone(),
            // Checked when the agent was saved; an older snapshot that fails the check gets none.
            env: agent.options.get("tool_env").and_then(|v| tools::check_tool_env(v).ok()).unwrap_or_default(),
        };
        for batch in batches(&calls) {
            if self.signals.stop.is_cancelled() || self.signals.abort.is_cancelled() {
                return Ok(None);
            }
            let outputs =
                futures_util::future::join_all(batch.iter().map(|c| tools::run(&c.name, &c.input, &ctx))).await;
            if self.signals.abort.is_cancelled() {
                return Ok(Some(RunExit::Abandoned));
            }
            for (call, output) in batch.iter().zip(outputs) {
                let cp = Checkpoint {
                    step,
                    body: CheckpointBody::ToolResult {
                        call_id: call.id.clone(),
                        name: call.name.clone(),
                        output: output.output.clone(),
                        is_error: output.is_error,
                    },
                };
                let event = RunEvent::ToolResult {
                    step,
                    call_id: call.id.clone(),
                    name: call.name.clone(),
                    output: output.output,
                    is_error: output.is_error,
                };
                self.write(Commit { checkpoints: vec![cp], events: vec![event], ..Default::default() }).await?;
            }
        }
        Ok(None)
    }
}

/// Groups calls so that consecutive read-only ones run together.
pub(super) fn batches(calls: &[ToolCall]) -> Vec<Vec<ToolCall>> {
    let mut out: Vec<Vec<ToolCall>> = Vec::new();
    for call in calls {
        let read_only = tools::is_read_only(&call.name);
        match out.last_mut() {
            Some(last) if read_only && last.iter().all(|c| tools::is_read_only(&c.name)) => last.push(call.clone()),
            _ => out.push(vec![call.clone()]),
        }
    }
    out
}
