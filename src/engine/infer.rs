//! Inference steps: building the request, streaming the answer into
//! coalesced delta events ([`super::stream`]), checkpointing it, and provider failures.

use tokio::sync::mpsc;
use tokio::time::Instant;

use super::compact::Compacted;
use super::stream::Streamed;
use super::{retry_delay, Execution, RunExit};
use crate::domain::checkpoint::{self, next_action, Checkpoint, CheckpointBody, NextAction};
use crate::domain::compaction;
use crate::domain::credential::ApiKey;
use crate::domain::event::RunEvent;
use crate::domain::model::{Content, Message, Role, RunKind, RunStatus, ToolSpec};
use crate::metrics::{self, StepKind};
use crate::provider::{self, InferenceRequest, InferenceResponse, ProviderError};
use crate::store::{Commit, Finish, StoreError};
use crate::tools;

impl Execution {
    /// The tools this step offers: the agent's declared ones, and every
    /// tool its MCP servers list now. A server that cannot be reached is
    /// left out of this step, with a `tool_source_unavailable` event.
    async fn offered_tools(&mut self, step: u32) -> Result<Vec<ToolSpec>, StoreError> {
        let mut specs: Vec<ToolSpec> = tools::offered(&self.ctx.agent).into_iter().map(|o| o.spec).collect();
        if self.ctx.agent.mcp_servers.is_empty() {
            return Ok(specs);
        }
        // Read afresh each step: a secret changed meanwhile applies from here.
        self.secrets = None;
        let secrets = self.step_secrets().await?;
        let listed = self.config.mcp.list(&self.ctx.agent.mcp_servers, &secrets).await;
        // What the servers said is kept for every API server to show; a
        // failure to keep it costs the run nothing.
        for listing in &listed.fresh {
            if let Err(e) = self.store.record_mcp_listing(listing).await {
                tracing::debug!(server = %listing.server, error = %e, "could not store an MCP listing");
            }
        }
        specs.extend(listed.tools);
        for (server, error) in listed.unavailable {
            tracing::warn!(server = %server, error = %error, "an MCP server is unavailable");
            self.pending.push(RunEvent::ToolSourceUnavailable { step, server, error });
        }
        Ok(specs)
    }

    fn request(&self, tools: Vec<ToolSpec>) -> InferenceRequest {
        let agent = &self.ctx.agent;
        let mut messages = checkpoint::conversation(&self.ctx.run.input, &self.ctx.checkpoints);
        // The session's history is shared as it is, unless the run compacted
        // since it began: then what it sends starts at its newest marker.
        let history = match messages.iter().rposition(|m| compaction::marker_of(m).is_some()) {
            None => self.ctx.history.clone(),
            Some(marker) => {
                let rest = messages.split_off(marker + 1);
                let upto = std::mem::replace(&mut messages, rest);
                self.ctx.history.clone().followed_by(upto)
            }
        };
        InferenceRequest {
            model: agent.model.clone(),
            options: agent.options.clone(),
            // A fleet task's own instructions replace the agent's, for that task only.
            system: self.system(),
            history,
            messages,
            tools,
            output_schema: agent.output_schema.clone(),
            call_index: checkpoint::inference_calls(&self.ctx.checkpoints),
            reasoning: self.ctx.run.input.reasoning.unwrap_or(agent.reasoning),
        }
    }

    /// One inference step. Returns an exit if the run ends or stops here.
    pub(super) async fn infer(&mut self, step: u32) -> Result<Option<RunExit>, StoreError> {
        let started = Instant::now();
        if let Some(exit) = self.end_if_day_spent(step).await? {
            return Ok(Some(exit));
        }
        let compaction_run = self.ctx.run.kind == RunKind::Compaction;
        if !compaction_run {
            self.pending.push(RunEvent::StepStarted { step });
        }
        // Built per step, so a key stored or removed meanwhile applies now.
        let provider = match self.stored_key().await.and_then(|key| provider::for_agent(&self.ctx.agent, key)) {
            Ok(p) => p,
            Err(e) => return self.provider_failed(step, e).await,
        };
        if compaction_run {
            return self.compaction_run(&provider).await;
        }
        let offered = self.offered_tools(step).await?;
        match self.compact_before(step, &provider, &offered).await? {
            Compacted::Proceed => {}
            Compacted::Exit(exit) => return Ok(Some(exit)),
            Compacted::Retry => return Ok(None),
        }
        let request = self.request(offered);
        let call = match self.take_share(step, &request).await? {
            Ok(call) => call,
            Err(exit) => return Ok(Some(exit)),
        };
        let asked = Instant::now();
        let (tx, rx) = mpsc::unbounded_channel();
        let chat = crate::otel::chat(&self.trace, &self.ctx.agent, step);
        let Some(mut streamed) = self.stream_answer(step, provider.infer(&request, &tx), rx).await? else {
            self.settle_share(&call, None).await;
            crate::otel::chat_ended(&chat, Err("stopped"));
            return Ok(Some(RunExit::Abandoned));
        };
        self.settle_share(&call, Some(&mut streamed.result)).await;
        match &streamed.result {
            Ok(response) => crate::otel::chat_ended(&chat, Ok((&response.usage, &response.stop_reason))),
            Err(error) => crate::otel::chat_ended(&chat, Err(&error.to_string())),
        }
        let Streamed { result, unflushed, exceeded } = streamed;
        if let Some((bytes, limit)) = exceeded {
            return self.cut_output(step, unflushed, bytes, limit).await;
        }
        let agent = &self.ctx.agent;
        metrics::provider_answered(&agent.provider, &agent.model, result.is_ok(), asked.elapsed());
        tracing::debug!(step, provider = %agent.provider, model = %agent.model, ok = result.is_ok(), "inference returned");
        match result {
            Ok(response) => {
                let exit = self.record_inference(step, unflushed, response).await?;
                metrics::step_finished(StepKind::Inference, started.elapsed());
                Ok(exit)
            }
            Err(error) => {
                // What streamed before the failure stays in the log, before
                // the `step_restarted` that voids it.
                if !unflushed.is_empty() {
                    self.write(Commit { events: unflushed, ..Default::default() }).await?;
                }
                self.provider_failed(step, error).await
            }
        }
    }

    /// The key stored under the agent's credential name, read per step so a
    /// key put or deleted through the API applies from the next step on.
    async fn stored_key(&self) -> Result<Option<ApiKey>, ProviderError> {
        let agent = &self.ctx.agent;
        if agent.provider == "scripted" {
            return Ok(None);
        }
        let name = provider::auth::credential_name(&agent.provider, &agent.options);
        // A database hiccup is worth a retry, like a provider's own 5xx.
        self.store
            .get_credential(&self.ctx.run.owner, &name)
            .await
            .map_err(|e| ProviderError::transient(format!("could not read the credential {name:?}: {e}")))
    }

    async fn record_inference(
        &mut self,
        step: u32,
        mut events: Vec<RunEvent>,
        mut response: InferenceResponse,
    ) -> Result<Option<RunExit>, StoreError> {
        let agent = &self.ctx.agent;
        response.usage.cost_usd =
            self.config.pricing.cost(&agent.provider, &agent.model, &agent.options, &response.usage);
        metrics::usage(&agent.provider, &agent.model, &response.usage);
        // Thinking comes first, in the model's order, as providers want it back.
        let mut content = std::mem::take(&mut response.thinking);
        if !response.text.is_empty() {
            content.push(Content::Text { text: response.text.clone() });
        }
        for call in &response.tool_calls {
            events.push(RunEvent::ToolCall {
                step,
                call_id: call.id.clone(),
                name: call.name.clone(),
                input: call.input.clone(),
            });
            content.push(Content::ToolUse { id: call.id.clone(), name: call.name.clone(), input: call.input.clone() });
        }
        events.push(RunEvent::StepCompleted { step, usage: response.usage, stop_reason: response.stop_reason.clone() });
        let cp = Checkpoint {
            step,
            body: CheckpointBody::Inference {
                message: Message { role: Role::Assistant, content },
                usage: response.usage,
                stop_reason: response.stop_reason,
            },
        };
        // When this answer ends the run, end it in the same write.
        let mut after = self.ctx.checkpoints.clone();
        after.push(cp.clone());
        let finish = match (self.budget_end(&after), next_action(&after, &self.ctx.agent)) {
            (Some((exhausted, failed)), _) => {
                events.push(exhausted);
                Some(failed)
            }
            (None, NextAction::Succeed) => Some(self.final_answer(&response.text)),
            _ => None,
        };
        let ended = self.write(Commit { checkpoints: vec![cp], events, finish, ..Default::default() }).await?;
        Ok(ended.then_some(RunExit::Finished))
    }

    /// How a run whose last answer ends it finishes: it succeeds, unless the
    /// agent asked for structured output and the answer does not fit.
    fn final_answer(&self, answer: &str) -> Finish {
        let Some(schema) = &self.ctx.agent.output_schema else {
            return Finish { status: RunStatus::Succeeded, error: None, summary: None };
        };
        match provider::schema::validate_answer(schema, answer) {
            Ok(_) => Finish { status: RunStatus::Succeeded, error: None, summary: None },
            Err(e) => {
                Finish { status: RunStatus::Failed, error: Some(format!("structured output: {e}")), summary: None }
            }
        }
    }

    async fn provider_failed(&mut self, step: u32, error: ProviderError) -> Result<Option<RunExit>, StoreError> {
        let failures = checkpoint::provider_failures(&self.ctx.checkpoints, step);
        let status = error.status.map(|s| format!(" ({s})")).unwrap_or_default();
        if let Some(overflow) = error.overflow {
            // A step's first overflow is answered by compacting; one after
            // that fails the run below, in the provider's words.
            if self.ctx.agent.compaction.enabled && checkpoint::forced_compactions(&self.ctx.checkpoints, step) == 0 {
                return self.compact_after_overflow(step, failures, &error, overflow.window).await;
            }
        }
        if !error.transient || failures >= self.config.provider_retries {
            let why = if error.transient { format!(" after {} retries", failures) } else { String::new() };
            let message = format!("provider error{status}{why}: {}", error.message);
            return self.finish(RunStatus::Failed, Some(message)).await;
        }
        self.retry_later(step, failures, &error, format!("provider error{status}: {}", error.message)).await
    }

    /// Records a failed provider call of `step` (its `failures`th) and
    /// waits out the backoff before the loop tries again: the failure is a
    /// checkpoint, so retries are counted across crashes, and its
    /// `step_restarted` says why (`reason`) and after what delay.
    pub(super) async fn retry_later(
        &mut self,
        step: u32,
        failures: u32,
        error: &ProviderError,
        reason: String,
    ) -> Result<Option<RunExit>, StoreError> {
        let delay = retry_delay(&self.config, failures, error.retry_after);
        let message = error.message.clone();
        let body = CheckpointBody::ProviderError { attempt: failures + 1, message, overflow: false, window: None };
        let event = RunEvent::StepRestarted {
            step,
            attempt: self.attempt,
            call_id: None,
            retry: Some(failures + 1),
            delay_ms: Some(delay.as_millis() as u64),
            status: error.status,
            reason,
        };
        let cp = Checkpoint { step, body };
        self.write(Commit { checkpoints: vec![cp], events: vec![event], ..Default::default() }).await?;
        tokio::select! {
            _ = tokio::time::sleep(delay) => Ok(None),
            _ = self.signals.stop.cancelled() => Ok(None),
            _ = self.signals.abort.cancelled() => Ok(Some(RunExit::Abandoned)),
        }
    }

    /// The provider said the prompt is too long: the failure is recorded
    /// as such, and the step goes again at once, compacting first.
    async fn compact_after_overflow(
        &mut self,
        step: u32,
        failures: u32,
        error: &ProviderError,
        window: Option<u64>,
    ) -> Result<Option<RunExit>, StoreError> {
        let body = CheckpointBody::ProviderError {
            attempt: failures + 1,
            message: error.message.clone(),
            overflow: true,
            window,
        };
        let event = RunEvent::StepRestarted {
            step,
            attempt: self.attempt,
            call_id: None,
            retry: Some(failures + 1),
            delay_ms: Some(0),
            status: error.status,
            reason: format!("the prompt is too long; compacting: {}", error.message),
        };
        let cp = Checkpoint { step, body };
        self.write(Commit { checkpoints: vec![cp], events: vec![event], ..Default::default() }).await?;
        Ok(None)
    }
}
