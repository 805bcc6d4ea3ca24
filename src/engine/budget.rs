//! Provider budgets in the loop: before an inference is sent, its share
//! of the budgets it draws from (the agent's own, when it declares limits,
//! and its credential's) is taken, waiting for it when it is spent or the
//! credential is paused; after, the budgets learn from how the call ended
//! (a 429 or 529 pauses the credential for every worker). The wait is not
//! an attempt: nothing was sent, nothing is retried, and the run says why
//! with a `rate_limited` event.

use std::time::Duration;

use chrono::{TimeZone, Utc};

use super::{Execution, RunExit};
use crate::domain::budget::{Heard, Outcome};
use crate::domain::compaction;
use crate::domain::event::RunEvent;
use crate::domain::share::{BudgetRef, Share, ShareAsk};
use crate::provider::{self, InferenceRequest, InferenceResponse, ProviderError};
use crate::store::{Commit, StoreError};

/// A provider call's place in its budgets, from its share to its end.
pub(super) struct Call {
    budgets: Vec<String>,
    tokens: u64,
    /// When it was sent, by the store's clock; `None` when no budget applies.
    sent_at: Option<i64>,
    tracked: bool,
}

/// The retry delay assumed when a 429 or 529 names none.
const DEFAULT_PAUSE_MS: u64 = 1000;

impl Execution {
    /// The budgets a call of this run draws from.
    fn budgets(&self) -> Vec<BudgetRef> {
        let agent = &self.ctx.agent;
        let mut budgets = Vec::new();
        if let Some(limits) = agent.limits {
            budgets.push(BudgetRef { name: format!("agent:{}", agent.id), declared: Some(limits) });
        }
        if agent.provider != "scripted" {
            let name = provider::auth::credential_name(&agent.provider, &agent.options);
            budgets.push(BudgetRef { name, declared: None });
        }
        budgets
    }

    /// Waits for the share of `request`'s call. `Err` is how the run left
    /// meanwhile (stopped or cancelled).
    pub(super) async fn take_share(
        &mut self,
        step: u32,
        request: &InferenceRequest,
    ) -> Result<Result<Call, RunExit>, StoreError> {
        let budgets = self.budgets();
        let mut call = Call {
            budgets: budgets.iter().map(|b| b.name.clone()).collect(),
            tokens: 0,
            sent_at: None,
            tracked: false,
        };
        if budgets.is_empty() {
            return Ok(Ok(call));
        }
        call.tokens = estimate(request);
        let ask = ShareAsk {
            run_id: self.lease.run_id.clone(),
            epoch: self.lease.epoch as i64,
            budgets,
            tokens: call.tokens,
        };
        let mut announced: Option<(String, String)> = None;
        loop {
            match self.store.take_provider_share(&ask).await? {
                Share::Go { now, tracked } => {
                    (call.sent_at, call.tracked) = (Some(now), tracked);
                    return Ok(Ok(call));
                }
                Share::Wait { until, wait_ms, budget, reason } => {
                    // Said once for each budget and reason, not at every poll.
                    let said = (budget.clone(), reason.as_str().to_string());
                    if announced.as_ref() != Some(&said) {
                        let until_text = Utc.timestamp_millis_opt(until).single().unwrap_or_else(Utc::now).to_rfc3339();
                        let event =
                            RunEvent::RateLimited { step, budget, reason: said.1.clone(), until: until_text, wait_ms };
                        self.write(Commit { events: vec![event], ..Default::default() }).await?;
                        crate::metrics::rate_limited(&said.0, &said.1);
                        announced = Some(said);
                    }
                    let left = tokio::select! {
                        _ = tokio::time::sleep(Duration::from_millis(wait_ms)) => false,
                        _ = self.signals.stop.cancelled() => true,
                        _ = self.signals.abort.cancelled() => true,
                    };
                    if left {
                        // Its place goes with it; a reservation is simply not used.
                        call.tracked = true;
                        self.settle_share(&call, None).await;
                        return Ok(Err(RunExit::Abandoned));
                    }
                }
            }
        }
    }

    /// Ends a call in its budgets. A failure to write it costs the run
    /// nothing: the budget only learns less.
    pub(super) async fn settle_share(&self, call: &Call, result: Option<&Result<InferenceResponse, ProviderError>>) {
        let (outcome, mut heard) = outcome(call, result, self.config.retry_cap);
        // A reset the headers name pauses no longer than a retry waits.
        if let Some(h) = heard.as_mut() {
            h.requests_reset_ms = h.requests_reset_ms.map(|r| r.min(self.config.retry_cap.as_millis() as u64));
        }
        let learns = heard.is_some() || matches!(outcome, Outcome::Limited { .. });
        if call.budgets.is_empty() || (!call.tracked && !learns) {
            return;
        }
        if let Err(e) = self.store.settle_provider_call(&self.lease.run_id, &call.budgets, outcome, heard).await {
            tracing::warn!(error = %e, "could not settle a provider call in its budgets");
        }
    }
}

/// How a call ended, for its budgets, and what its headers said. A pause
/// is capped like a retry's delay (`retry_cap`, 30 s), so a provider asking for
/// an hour cannot stop every worker for that long.
fn outcome(
    call: &Call,
    result: Option<&Result<InferenceResponse, ProviderError>>,
    cap: Duration,
) -> (Outcome, Option<Heard>) {
    match result {
        Some(Ok(answer)) => {
            let u = &answer.usage;
            let used = u.input_tokens + u.output_tokens + u.cache_read_input_tokens + u.cache_creation_input_tokens;
            (Outcome::Answered { tokens_estimated: call.tokens, tokens_used: used }, answer.heard)
        }
        Some(Err(error)) if matches!(error.status, Some(429 | 529)) => {
            let asked = error.retry_after.map_or(DEFAULT_PAUSE_MS, |d| d.as_millis() as u64);
            let retry_after_ms = asked.min(cap.as_millis() as u64);
            (Outcome::Limited { retry_after_ms, sent_at: call.sent_at.unwrap_or(0) }, error.heard.as_deref().copied())
        }
        Some(Err(error)) => (Outcome::Failed, error.heard.as_deref().copied()),
        None => (Outcome::Failed, None),
    }
}

/// The prompt's tokens, estimated from its characters.
fn estimate(request: &InferenceRequest) -> u64 {
    let messages: u64 = request.messages.iter().map(|m| compaction::tokens_of(compaction::chars_of(m))).sum();
    request.history.tokens() + messages + super::compact::overhead_tokens(request.system.as_deref(), &request.tools)
}
