//! Tool steps: running a step's pending tool calls and checkpointing each result.

use super::{Execution, RunExit};
use crate::domain::approval::Outcome;
use crate::domain::checkpoint::{Checkpoint, CheckpointBody};
use crate::domain::event::RunEvent;
use crate::domain::model::{Agent, ToolCall};
use crate::domain::shell::{self, ShellState};
use crate::domain::toolset;
use crate::metrics::{self, StepKind};
use crate::store::{Commit, StoreError};
use crate::tools::{self, ToolContext, ToolOutput};

impl Execution {
    /// Carries out the pending tool calls of a step: consecutive read-only
    /// calls together, the others one at a time, and calls a person answered
    /// without running. Each result is committed on its own; when a commit
    /// sees that people sent the run something, the calls not yet started
    /// are left to the loop, which takes it in first.
    pub(super) async fn run_tools(&mut self, step: u32, calls: Vec<Outcome>) -> Result<Option<RunExit>, StoreError> {
        let work_dir = std::path::PathBuf::from(&self.ctx.work_dir);
        // Looked at on this thread: the directory nearly always exists, and a
        // hop to a blocking thread to learn so was a tenth of a durable step
        // (docs/benchmarks.md, item 25).
        if !work_dir.is_dir() {
            if let Err(e) = tokio::fs::create_dir_all(&work_dir).await {
                tracing::warn!(error = %e, dir = %work_dir.display(), "could not create the work_dir");
            }
        }
        // A copy: results are written between batches, which borrows the execution.
        let agent = self.ctx.agent.clone();
        let mut ctx = ToolContext {
            work_dir,
            // The run's agent snapshot says what the model may use, whatever it asks for.
            granted: toolset::declared_names(&agent),
            cancel: self.signals.abort.child_token(),
            allow_private_network: self.config.allow_private_network,
            sandbox: self.config.sandbox.clone(),
            outside: self.config.outside.clone(),
            // Checked when the agent was saved; an older snapshot that fails the check gets none.
            env: agent.options.get("tool_env").and_then(|v| tools::check_tool_env(v).ok()).unwrap_or_default(),
            run_id: self.lease.run_id.clone(),
            mcp: self.config.mcp.clone(),
            secrets: self.step_secrets().await?,
            shell: None,
        };
        for batch in batches(&calls) {
            if self.signals.stop.is_cancelled() || self.signals.abort.is_cancelled() || self.inbox_has_news() {
                return Ok(None);
            }
            let started = tokio::time::Instant::now();
            // Calls that change the shell run alone, so each starts from the last one's state.
            ctx.shell = Some(self.shell_state());
            let traced = batch.iter().map(|c| async {
                let span = crate::otel::execute_tool(&self.trace, c.call());
                let output = carry_out(c, &agent, &ctx).await;
                crate::otel::tool_ended(&span, output.is_error);
                output
            });
            let outputs = futures_util::future::join_all(traced).await;
            if self.signals.abort.is_cancelled() {
                return Ok(Some(RunExit::Abandoned));
            }
            for (call, output) in batch.iter().map(Outcome::call).zip(outputs) {
                tracing::debug!(step, tool = %call.name, call_id = %call.id, is_error = output.is_error, "tool call done");
                let commit = self.result_commit(step, call, output, ctx.shell.as_ref());
                self.write(commit).await?;
                metrics::step_finished(StepKind::Tool, started.elapsed());
            }
        }
        Ok(None)
    }

    /// The shell state the run's next bash call starts from: what its newest
    /// committed call left, else what its session kept, else a fresh shell.
    fn shell_state(&self) -> ShellState {
        shell::newest(&self.ctx.checkpoints).or(self.ctx.shell.as_ref()).cloned().unwrap_or_default()
    }

    /// The commit of a call's result: its checkpoint and `tool_result`,
    /// and the shell state it left if that differs from the one it started
    /// from (`before`), for the run and, where it keeps it, its session.
    fn result_commit(&self, step: u32, call: &ToolCall, output: ToolOutput, before: Option<&ShellState>) -> Commit {
        let cp = Checkpoint {
            step,
            body: CheckpointBody::ToolResult {
                call_id: call.id.clone(),
                name: call.name.clone(),
                output: output.output,
                is_error: output.is_error,
            },
        };
        let events = RunEvent::tool_result(&cp).into_iter().collect();
        let mut commit = Commit { checkpoints: vec![cp], events, ..Default::default() };
        if let Some(state) = output.shell.filter(|state| Some(state) != before) {
            let kept = shell::kept_by_session(&self.ctx.run).then(|| state.clone());
            commit
                .checkpoints
                .push(Checkpoint { step, body: CheckpointBody::Shell { call_id: call.id.clone(), state } });
            commit.shell = kept;
        }
        commit
    }
}

/// Runs a call, or gives the answer a person decided on instead.
async fn carry_out(outcome: &Outcome, agent: &Agent, ctx: &ToolContext) -> ToolOutput {
    match outcome {
        Outcome::Run(call) => tools::call(call, agent, ctx).await,
        Outcome::Answer { output, is_error, .. } => {
            ToolOutput { output: output.clone(), is_error: *is_error, shell: None }
        }
    }
}

/// Groups calls so that consecutive read-only ones run together (a call
/// answered without running counts as read-only: it touches nothing).
pub(super) fn batches(calls: &[Outcome]) -> Vec<Vec<Outcome>> {
    let read_only = |c: &Outcome| matches!(c, Outcome::Answer { .. }) || tools::is_read_only(&c.call().name);
    let mut out: Vec<Vec<Outcome>> = Vec::new();
    for call in calls {
        match out.last_mut() {
            Some(last) if read_only(call) && last.iter().all(read_only) => last.push(call.clone()),
            _ => out.push(vec![call.clone()]),
        }
    }
    out
}
