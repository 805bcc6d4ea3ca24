//! Provider budgets in the loop: before an inference is sent, its share
//! of the budgets it draws from (the agent's own, when it declares limits,
//! and its credential's) is taken, waiting for it when it is spent or the
//! credential is paused; after, the budgets learn from how the call ended
//! (a 429 or 529 pauses the credential for every worker). The wait is not
//! an attempt: nothing was sent, nothing is retried, and the run says why
//! with a `rate_limited` event. A wait of a second or more is not spent in
//! the worker: the run is handed back to the queue until shortly before its
//! share is due.

use std::time::Duration;

use chrono::{TimeZone, Utc};

use super::{counted, Execution, RunExit};
use crate::domain::budget::{Heard, Outcome};
use crate::domain::compaction;
use crate::domain::event::RunEvent;
use crate::domain::share::{BudgetRef, Share, ShareAsk};
use crate::metrics::FencedWrite;
use crate::provider::{self, InferenceRequest, InferenceResponse, ProviderError};
use crate::store::{Commit, HandBack, StoreError};

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
            let answer = self.store.take_provider_share(&ask).await?;
            match answer {
                Share::Go { now, tracked } => {
                    (call.sent_at, call.tracked) = (Some(now), tracked);
                    return Ok(Ok(call));
                }
                Share::Wait { until, wait_ms, ref budget, reason, .. } => {
                    let said = (budget.clone(), reason.as_str().to_string());
                    if let Some((wake_at, wake_in)) = answer.hand_back_until() {
                        // The step starts when the run is claimed again; until then it has not.
                        self.pending.retain(|e| !matches!(e, RunEvent::StepStarted { step: s } if *s == step));
                        self.announce_wait(step, &said, wake_at, wake_in).await?;
                        return self.hand_back_for_budget(wake_at, wake_in).await.map(Err);
                    }
                    // Said once for each budget and reason, not at every poll.
                    if announced.as_ref() != Some(&said) {
                        self.announce_wait(step, &said, until, wait_ms).await?;
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

    /// Writes `rate_limited`: the step's call waits for `budget` (for
    /// `reason`) until `until`, `wait_ms` from now.
    async fn announce_wait(
        &mut self,
        step: u32,
        (budget, reason): &(String, String),
        until: i64,
        wait_ms: u64,
    ) -> Result<(), StoreError> {
        let until_text = Utc.timestamp_millis_opt(until).single().unwrap_or_else(Utc::now).to_rfc3339();
        let event =
            RunEvent::RateLimited { step, budget: budget.clone(), reason: reason.clone(), until: until_text, wait_ms };
        self.write(Commit { events: vec![event], ..Default::default() }).await?;
        crate::metrics::rate_limited(budget, reason);
        Ok(())
    }

    /// Hands the run back to the queue until `until` (the store's clock,
    /// `wait_ms` from now; see [`Share::hand_back_until`]), so that its
    /// wait holds no worker. Its place in its budgets stays: it is how the
    /// calls that wait after it line up behind it, and how the API shows
    /// it rate-limited.
    async fn hand_back_for_budget(&mut self, until: i64, wait_ms: u64) -> Result<RunExit, StoreError> {
        let handed = self.store.release_run(&self.lease, HandBack::ForBudget { wake_at: until }).await;
        counted(FencedWrite::HandBack, handed)?;
        let wake = tokio::time::Instant::now() + Duration::from_millis(wait_ms);
        Ok(RunExit::ForBudget { wake })
    }

    /// Ends a call in its budgets. A failure to write it costs the run
    /// nothing: the budget only learns less. A 429 or 529 pauses the
    /// budgets, and the pause holds the retry back with every other run's
    /// (handing it back while it lasts), so the failure is left with no
    /// retry delay of its own.
    pub(super) async fn settle_share(
        &self,
        call: &Call,
        result: Option<&mut Result<InferenceResponse, ProviderError>>,
    ) {
        let (outcome, mut heard) = outcome(call, result.as_deref(), self.config.retry_cap);
        // After the pause's length was read from it.
        if let (Some(Err(error)), Outcome::Limited { .. }) = (result, outcome) {
            if !call.budgets.is_empty() {
                error.retry_after = Some(Duration::ZERO);
            }
        }
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
