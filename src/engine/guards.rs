//! The guards as the loop applies them: the cap on a step's output and its
//! deadline while the answer streams ([`StepGuard`]), and the ends of a run
//! whose budget is spent or whose model repeats itself (decided from its
//! checkpoints by [`crate::domain::guard`]).

use std::time::Duration;

use tokio::time::Instant;

use super::{Execution, RunExit};
use crate::domain::checkpoint::{Checkpoint, CheckpointBody};
use crate::domain::event::RunEvent;
use crate::domain::guard::{self, Guards};
use crate::domain::model::RunStatus;
use crate::domain::quota;
use crate::provider::{Delta, ProviderError};
use crate::store::{Finish, StoreError};

/// What one inference step may stream, and until when.
#[derive(Debug)]
pub(super) struct StepGuard {
    limit: u64,
    bytes: u64,
    timeout: Duration,
    deadline: Instant,
}

impl StepGuard {
    /// Starts counting a step that starts now.
    pub(super) fn new(guards: &Guards) -> StepGuard {
        let timeout = Duration::from_secs(guards.step_timeout_secs);
        StepGuard { limit: guards.max_step_output_bytes, bytes: 0, timeout, deadline: Instant::now() + timeout }
    }

    /// Counts a piece of the answer; false once the answer has streamed
    /// more than its cap, when the loop must stop reading.
    pub(super) fn count(&mut self, delta: &Delta) -> bool {
        self.bytes += delta.len() as u64;
        self.bytes <= self.limit
    }

    /// How many bytes the answer streamed, and its cap, once it streamed
    /// more than that.
    pub(super) fn exceeded(&self) -> Option<(u64, u64)> {
        (self.bytes > self.limit).then_some((self.bytes, self.limit))
    }

    /// The failure of a step cut at its cap: not retried, because the same
    /// model asked the same question streams the same way; the run fails
    /// (see [`Execution::cut_output`]).
    pub(super) fn cut(&self) -> ProviderError {
        ProviderError::fatal(output_exceeded(self.limit))
    }

    /// When the step must have ended.
    pub(super) fn deadline(&self) -> Instant {
        self.deadline
    }

    /// The failure of a step that did not end by its deadline: transient,
    /// so the usual retries apply, and named after the guard.
    pub(super) fn timed_out(&self) -> ProviderError {
        let secs = self.timeout.as_secs();
        ProviderError::transient(format!("step timed out: no complete answer after {secs} s (step_timeout_secs)"))
    }
}

/// The error of a run whose answer streamed past `limit` bytes.
fn output_exceeded(limit: u64) -> String {
    format!("step output exceeded: {limit} bytes (max_step_output_bytes)")
}

impl Execution {
    /// Fails a run whose answer at `step` streamed `bytes`, past its cap
    /// `limit`. What was written as deltas so far stays in the log (with
    /// what was not flushed yet); nothing of the step is checkpointed.
    pub(super) async fn cut_output(
        &mut self,
        step: u32,
        unflushed: Vec<RunEvent>,
        bytes: u64,
        limit: u64,
    ) -> Result<Option<RunExit>, StoreError> {
        self.pending.extend(unflushed);
        tracing::warn!(step, bytes, limit, "a step's output exceeded max_step_output_bytes; failing the run");
        self.pending.push(RunEvent::StepOutputExceeded { step, bytes, limit });
        self.finish(RunStatus::Failed, Some(output_exceeded(limit))).await
    }

    /// How the run ends if its checkpoints `after` spent its budget: the
    /// event that says so, for the step that reached it, and the failure.
    pub(super) fn budget_end(&self, after: &[Checkpoint]) -> Option<(RunEvent, Finish)> {
        let exhausted = guard::over_budget(after, &self.ctx.agent, &self.ctx.run.input)?;
        let step = after
            .iter()
            .filter(|c| matches!(c.body, CheckpointBody::Inference { .. }))
            .map(|c| c.step)
            .max()
            .unwrap_or(0);
        let finish = Finish { status: RunStatus::Failed, error: Some(exhausted.error()), summary: None };
        Some((RunEvent::budget_exhausted(step, &exhausted), finish))
    }

    /// Ends the run if its budget is spent: the step that spent it ends the
    /// run in its own write, and this catches a run that went on all the
    /// same (its end was refused while its inbox held news).
    pub(super) async fn end_if_over_budget(&mut self) -> Result<Option<RunExit>, StoreError> {
        let Some((event, finish)) = self.budget_end(&self.ctx.checkpoints) else { return Ok(None) };
        self.pending.push(event);
        self.finish(finish.status, finish.error).await
    }

    /// Fails the run before the inference of `step` if its owner's runs
    /// spent the owner's `max_cost_usd_per_day` today. The quota is read
    /// at most once a second, today's spending (every run of the owner's,
    /// those in flight included) only for an owner that has one.
    pub(super) async fn end_if_day_spent(&mut self, step: u32) -> Result<Option<RunExit>, StoreError> {
        let owner = self.ctx.run.owner.clone();
        let quota = self.config.quotas.of(&*self.store, &owner).await?;
        let Some(limit_usd) = quota.max_cost_usd_per_day else { return Ok(None) };
        let spent_usd = self.store.spent_today(&owner).await?;
        if spent_usd < limit_usd {
            return Ok(None);
        }
        tracing::info!(owner = %owner, spent_usd, limit_usd, "an owner's daily budget is spent; failing the run");
        let error = quota::day_budget_error(&owner, spent_usd, limit_usd);
        let (spent_usd, limit_usd) = (Some(spent_usd), Some(limit_usd));
        let (spent_tokens, limit_tokens) = (None, None);
        let owner = Some(owner);
        self.pending.push(RunEvent::BudgetExhausted { step, owner, spent_usd, limit_usd, spent_tokens, limit_tokens });
        self.finish(RunStatus::Failed, Some(error)).await
    }

    /// Fails a run whose model asked for a refused call once more.
    pub(super) async fn loop_detected(
        &mut self,
        step: u32,
        name: String,
        repeats: u32,
    ) -> Result<Option<RunExit>, StoreError> {
        let error = guard::loop_error(&name, repeats, self.ctx.agent.guards.loop_guard);
        self.pending.push(RunEvent::LoopDetected { step, name, repeats });
        self.finish(RunStatus::Failed, Some(error)).await
    }
}
