//! Compaction as a step of the loop: before an inference whose prompt would
//! not fit the model's window (or after the provider said it did not), and
//! as the whole of a run of kind `compaction`. What to prune and summarize is
//! decided by [`crate::domain::compaction`]; here the summary is asked for and the
//! result checkpointed, so that a compaction done is never done again.

use std::sync::Arc;

use tokio::sync::mpsc;

use super::guards::StepGuard;
use super::{Execution, RunExit};
use crate::domain::checkpoint::{self, Checkpoint, CheckpointBody};
use crate::domain::compaction::{self, Budget, Marker, Plan};
use crate::domain::event::RunEvent;
use crate::domain::history::History;
use crate::domain::model::{Message, Reasoning, RunStatus, ToolSpec, Usage};
use crate::metrics;
use crate::provider::{self, InferenceRequest, InferenceResponse, Provider, ProviderError};
use crate::store::{Commit, StoreError};

/// Why a run compacts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Reason {
    /// The prompt would pass the window less `reserve_tokens`.
    Context,
    /// The provider answered that the prompt is too long.
    Overflow,
    /// `POST /sessions/{id}/compact`.
    Requested,
}

impl Reason {
    fn as_str(self) -> &'static str {
        match self {
            Reason::Context => "context",
            Reason::Overflow => "overflow",
            Reason::Requested => "requested",
        }
    }
}

/// What became of a compaction the loop asked for.
pub(super) enum Compacted {
    /// Nothing to do, or done and checkpointed: the inference goes on.
    Proceed,
    /// The run ended, stopped or must wait: the loop returns this.
    Exit(RunExit),
    /// The summary failed and will be tried again: back to the loop.
    Retry,
}

/// The summary a compaction wrote, with what it cost.
struct Summary {
    text: String,
    usage: Usage,
}

impl Execution {
    /// Compacts before `step`'s inference when its prompt would not fit, or
    /// when the provider said the last one did not.
    pub(super) async fn compact_before(
        &mut self,
        step: u32,
        provider: &Arc<dyn Provider>,
        tools: &[ToolSpec],
    ) -> Result<Compacted, StoreError> {
        let overflow = checkpoint::unanswered_overflow(&self.ctx.checkpoints, step);
        let known = provider::models::context_window(&self.ctx.agent);
        // By itself a run compacts only against a window it knows, and not
        // twice with nothing new between.
        let by_itself = self.ctx.agent.compaction.enabled && !checkpoint::compactions_done(&self.ctx.checkpoints).1;
        let (reason, window) = match (overflow, known) {
            // The provider's own figure is the truth.
            (Some(said), _) => (Reason::Overflow, [said, known].into_iter().flatten().min()),
            (None, Some(window)) if by_itself => (Reason::Context, Some(window)),
            (None, _) => return Ok(Compacted::Proceed),
        };
        let conversation = checkpoint::conversation(&self.ctx.run.input, &self.ctx.checkpoints);
        let overhead = overhead_tokens(self.system().as_deref(), tools);
        let estimate = self.prompt_estimate(&conversation) + overhead;
        // Without a figure, the prompt that was refused is taken as a little too long.
        let window = window.unwrap_or(estimate * 3 / 4);
        let budget = Budget::new(window, &self.ctx.agent.compaction);
        let forced = reason == Reason::Overflow;
        // A prompt that fits is not planned for (`plan` would find nothing to
        // do): the view copies a pointer per message of the session, which at
        // every step of a long session was a tenth of the engine's time.
        if !forced && estimate <= budget.threshold {
            return Ok(Compacted::Proceed);
        }
        let view = self.ctx.history.clone().followed_by(conversation);
        match compaction::plan(view.messages(), view.first(), estimate, &budget, forced) {
            Some(plan) => self.compact(step, provider, view, plan, budget, reason, overhead).await,
            None if forced => {
                let error = "the prompt is too long for the model, and compacting cannot make it shorter".to_string();
                Ok(self.finish(RunStatus::Failed, Some(error)).await?.map_or(Compacted::Retry, Compacted::Exit))
            }
            None => Ok(Compacted::Proceed),
        }
    }

    /// The whole of a run of kind `compaction`: compact the session's
    /// history as it stands, whatever its size, and end.
    pub(super) async fn compaction_run(&mut self, provider: &Arc<dyn Provider>) -> Result<Option<RunExit>, StoreError> {
        if checkpoint::compactions_done(&self.ctx.checkpoints).0 > 0 {
            return self.finish(RunStatus::Succeeded, None).await;
        }
        let view = self.ctx.history.clone();
        let estimate = view.tokens();
        let window = provider::models::context_window(&self.ctx.agent)
            .unwrap_or(estimate + self.ctx.agent.compaction.reserve_tokens);
        // Asked for, a compaction summarizes all but the newest message.
        let budget = Budget { keep_recent: 0, ..Budget::new(window, &self.ctx.agent.compaction) };
        match compaction::plan(view.messages(), view.first(), estimate, &budget, true) {
            Some(plan) => match self.compact(1, provider, view, plan, budget, Reason::Requested, 0).await? {
                Compacted::Exit(exit) => Ok(Some(exit)),
                Compacted::Retry => Ok(None),
                Compacted::Proceed => self.finish(RunStatus::Succeeded, None).await,
            },
            None => {
                self.pending.push(RunEvent::CompactionStarted {
                    step: 1,
                    tokens_before: estimate,
                    reason: Reason::Requested.as_str().into(),
                });
                self.pending.push(completed(1, &nothing_done(estimate)));
                self.finish(RunStatus::Succeeded, None).await
            }
        }
    }

    /// Carries `plan` out: says so at once (a summary takes a while), asks
    /// for the summary when the plan needs one, and checkpoints the marker.
    #[allow(clippy::too_many_arguments)]
    async fn compact(
        &mut self,
        step: u32,
        provider: &Arc<dyn Provider>,
        view: History,
        plan: Plan,
        budget: Budget,
        reason: Reason,
        overhead: u64,
    ) -> Result<Compacted, StoreError> {
        let started =
            RunEvent::CompactionStarted { step, tokens_before: plan.tokens_before, reason: reason.as_str().into() };
        self.write(Commit { events: vec![started], ..Default::default() }).await?;
        let mut summary = None;
        if plan.summarize > 0 {
            // What is summarized is what would be sent: pruned as planned.
            let mut pruned = view.clone();
            pruned.apply(&Marker { first_kept: view.first(), ..plan.marker(None) });
            let messages = pruned.messages()[..plan.summarize].iter().map(|m| m.as_ref());
            let previous = view.summary().map(compaction::summary_of);
            let transcript = compaction::transcript(previous.as_deref(), messages, budget.transcript_tokens());
            match self.summary_in_budget(step, provider, transcript, &budget).await? {
                Ok(written) => summary = Some(written),
                Err(compacted) => return Ok(compacted),
            }
        }
        let usage = summary.as_ref().map(|s| s.usage).unwrap_or_default();
        let mut marker = plan.marker(summary.map(|s| s.text));
        let mut after = view;
        after.apply(&marker);
        marker.tokens_after = after.tokens() + overhead;
        let index = checkpoint::compactions_done(&self.ctx.checkpoints).0 + 1;
        let forced = reason == Reason::Overflow;
        let body = CheckpointBody::Compaction { index, marker: marker.clone(), usage, forced };
        let cp = Checkpoint { step, body };
        let mut after = self.ctx.checkpoints.clone();
        after.push(cp.clone());
        let mut events = vec![completed(step, &marker)];
        let finish = self.budget_end(&after).map(|(exhausted, failed)| {
            events.push(exhausted);
            failed
        });
        let ended = self.write(Commit { checkpoints: vec![cp], events, finish, ..Default::default() }).await?;
        metrics::compacted(reason.as_str());
        tracing::info!(
            step,
            reason = reason.as_str(),
            before = marker.tokens_before,
            after = marker.tokens_after,
            "compacted"
        );
        Ok(if ended { Compacted::Exit(RunExit::Finished) } else { Compacted::Proceed })
    }

    /// The summary of `transcript`, its call drawing from the provider
    /// budgets like any inference (it may wait for its share, and a run
    /// handed back meanwhile compacts when claimed again). `Err` is how the
    /// compaction ends instead: the run left, or the summary failed.
    async fn summary_in_budget(
        &mut self,
        step: u32,
        provider: &Arc<dyn Provider>,
        transcript: String,
        budget: &Budget,
    ) -> Result<Result<Summary, Compacted>, StoreError> {
        let request = self.summary_request(transcript, budget);
        let call = match self.take_share(step, &request).await? {
            Ok(call) => call,
            Err(exit) => return Ok(Err(Compacted::Exit(exit))),
        };
        let Some(mut result) = self.summarize(provider, &request).await else {
            self.settle_share(&call, None).await;
            return Ok(Err(Compacted::Exit(RunExit::Abandoned)));
        };
        self.settle_share(&call, Some(&mut result)).await;
        match result.and_then(|response| self.summary_of(&request.model, response)) {
            Ok(summary) => Ok(Ok(summary)),
            Err(error) => Ok(Err(self.summary_failed(step, error).await?)),
        }
    }

    /// The request for a summary of `transcript`, by the compaction's model.
    fn summary_request(&self, transcript: String, budget: &Budget) -> InferenceRequest {
        let agent = &self.ctx.agent;
        let model = agent.compaction.model.clone().unwrap_or_else(|| agent.model.clone());
        let mut options = agent.options.clone();
        // Capped under the name the agent caps its answers with: reasoning
        // models take `max_completion_tokens` and refuse `max_tokens`.
        let cap = if options.contains_key("max_completion_tokens") { "max_completion_tokens" } else { "max_tokens" };
        options.insert(cap.into(), budget.summary_tokens().into());
        InferenceRequest {
            model,
            options,
            system: Some(compaction::summary_instructions(budget.summary_tokens())),
            history: History::default(),
            messages: vec![Message::user_text(transcript)],
            tools: Vec::new(),
            output_schema: None,
            call_index: checkpoint::inference_calls(&self.ctx.checkpoints),
            reasoning: Reasoning::Off,
        }
    }

    /// Asks for the summary, within the step's time and output guards.
    /// `None`: the run was abandoned.
    async fn summarize(
        &self,
        provider: &Arc<dyn Provider>,
        request: &InferenceRequest,
    ) -> Option<Result<InferenceResponse, ProviderError>> {
        let (tx, mut rx) = mpsc::unbounded_channel();
        let mut guard = StepGuard::new(&self.ctx.agent.guards);
        let call = provider.infer(request, &tx);
        tokio::pin!(call);
        let asked = tokio::time::Instant::now();
        let result = loop {
            tokio::select! {
                result = &mut call => break result,
                Some(delta) = rx.recv() => if !guard.count(&delta) { break Err(guard.cut()) },
                _ = tokio::time::sleep_until(guard.deadline()) => break Err(guard.timed_out()),
                _ = self.signals.abort.cancelled() => return None,
            }
        };
        metrics::provider_answered(&self.ctx.agent.provider, &request.model, result.is_ok(), asked.elapsed());
        Some(result)
    }

    /// The summary an answer holds, with its cost.
    fn summary_of(&self, model: &str, mut response: InferenceResponse) -> Result<Summary, ProviderError> {
        let agent = &self.ctx.agent;
        let text = response.text.trim().to_string();
        if text.is_empty() {
            return Err(ProviderError::transient("the summary came back empty"));
        }
        response.usage.cost_usd = self.config.pricing.cost(&agent.provider, model, &agent.options, &response.usage);
        metrics::usage(&agent.provider, model, &response.usage);
        Ok(Summary { text, usage: response.usage })
    }

    /// A summary that failed: retried like any step's inference (the
    /// failure is checkpointed and counted), and past the retries, or when
    /// no retry can help, the run fails and says why.
    async fn summary_failed(&mut self, step: u32, error: ProviderError) -> Result<Compacted, StoreError> {
        let failures = checkpoint::provider_failures(&self.ctx.checkpoints, step);
        if !error.transient || failures >= self.config.provider_retries {
            let message = format!("compaction failed: the summary's provider error: {}", error.message);
            return Ok(self.finish(RunStatus::Failed, Some(message)).await?.map_or(Compacted::Retry, Compacted::Exit));
        }
        let reason = format!("compaction: {}", error.message);
        Ok(self.retry_later(step, failures, &error, reason).await?.map_or(Compacted::Retry, Compacted::Exit))
    }

    /// The prompt's size: the provider's count for the run's last answer
    /// plus an estimate of what came after it, where the provider reported
    /// one since the last compaction; else an estimate of it all. The larger
    /// of the two, since an estimate from characters may fall short. The
    /// session's history is counted from what it keeps, not copied, unless
    /// the run compacted it (`conversation` holds a marker).
    fn prompt_estimate(&self, conversation: &[Message]) -> u64 {
        let history = &self.ctx.history;
        if conversation.iter().any(|m| compaction::marker_of(m).is_some()) {
            let view = history.clone().followed_by(conversation.iter().cloned());
            return self.estimate_after_answer(view.tokens(), view.messages().iter().map(AsRef::as_ref));
        }
        let chars = history.chars() + conversation.iter().map(compaction::chars_of).sum::<usize>();
        let sent = history.messages().iter().map(AsRef::as_ref).chain(conversation);
        self.estimate_after_answer(compaction::tokens_of(chars), sent)
    }

    /// [`Self::prompt_estimate`] from the estimate of it all and the
    /// messages sent after the summary, oldest first.
    fn estimate_after_answer<'a>(&self, estimated: u64, sent: impl DoubleEndedIterator<Item = &'a Message>) -> u64 {
        let Some((step, message, usage)) = checkpoint::last_answer(&self.ctx.checkpoints) else { return estimated };
        let (_, latest) = checkpoint::compactions_done(&self.ctx.checkpoints);
        if latest || checkpoint::compacted_after(&self.ctx.checkpoints, step) {
            return estimated;
        }
        let reported = usage.input_tokens + usage.cache_read_input_tokens + usage.cache_creation_input_tokens;
        let since: usize = sent.rev().take_while(|m| *m != message).map(compaction::chars_of).sum();
        estimated.max(reported + usage.output_tokens + compaction::tokens_of(since))
    }

    /// The system prompt the next inference sends.
    pub(super) fn system(&self) -> Option<String> {
        self.ctx.run.input.instructions.clone().or_else(|| self.ctx.agent.instructions.clone())
    }
}

/// The tokens the instructions and the tools' descriptions take.
pub(super) fn overhead_tokens(system: Option<&str>, tools: &[ToolSpec]) -> u64 {
    let tools: usize =
        tools.iter().map(|t| t.name.len() + t.description.len() + t.input_schema.to_string().len() + 16).sum();
    compaction::tokens_of(system.map_or(0, str::len) + tools)
}

/// The marker of a compaction that found nothing to do.
fn nothing_done(tokens: u64) -> Marker {
    Marker {
        summary: None,
        first_kept: 0,
        pruned_before: 0,
        tokens_before: tokens,
        tokens_after: tokens,
        pruned_results: 0,
        summarized_messages: 0,
    }
}

/// The `compaction_completed` event of a compaction.
fn completed(step: u32, marker: &Marker) -> RunEvent {
    RunEvent::CompactionCompleted {
        step,
        tokens_before: marker.tokens_before,
        tokens_after: marker.tokens_after,
        pruned_results: marker.pruned_results,
        summarized_messages: marker.summarized_messages,
    }
}
