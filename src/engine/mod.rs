//! Executing one claimed run: the agent loop as a step machine.
//!
//! Each turn of the loop asks [`next_action`] what the checkpoints call for,
//! does it, and commits the result with its events in one fenced write. A
//! crash anywhere loses at most the step in flight: the next worker loads the
//! same checkpoints and computes the same next action.
//!
//! Events that announce work (`run_resumed`, `step_started`, …) are not
//! written on their own: they ride along with the next write of the run, so a
//! one-step run costs one transaction after its claim (which wrote
//! `run_started`).

use std::sync::Arc;
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use crate::domain::approval::{WaitingCall, REPEATED_CALL};
use crate::domain::checkpoint::{self, next_action, NextAction, RunSummary};
use crate::domain::event::RunEvent;
use crate::domain::history::HistoryCache;
use crate::domain::model::{RunStatus, ToolCall};
use crate::domain::secret::Secrets;
use crate::metrics::{self, FencedWrite};
use crate::provider::pricing::Pricing;
use crate::store::quota_book::QuotaBook;
use crate::store::{Claim, Commit, Committed, Finish, HandBack, InboxItem, Lease, RunContext, Store, StoreError};
use crate::tools::mcp::McpPool;
use crate::tools::outside::OutsideConfig;
use crate::tools::sandbox::SandboxConfig;

mod budget;
mod children;
mod compact;
mod guards;
mod infer;
mod people;
mod stream;
mod tools;

/// Settings of the agent loop.
#[derive(Debug, Clone)]
pub struct LoopConfig {
    /// How often streamed text is written as `text_delta` events while a step runs.
    pub delta_flush: Duration,
    /// Retries of a transient provider failure before the run fails.
    pub provider_retries: u32,
    /// The first retry delay; it doubles each retry, and each wait is drawn
    /// between half the delay and all of it (see [`retry_delay`]).
    pub retry_base: Duration,
    /// The longest retry delay, also the cap on a provider's `retry-after`.
    pub retry_cap: Duration,
    /// Prices used to record the cost of each inference.
    pub pricing: Arc<Pricing>,
    /// Lets webfetch and HTTP tools reach private and local network addresses.
    pub allow_private_network: bool,
    /// How tool processes are confined.
    pub sandbox: Arc<SandboxConfig>,
    /// How HTTP tools are reached and signed.
    pub outside: Arc<OutsideConfig>,
    /// The worker's connections to MCP servers, shared by its runs.
    pub mcp: Arc<McpPool>,
    /// The session histories the worker loaded, so that a session's next
    /// run reads only what was added since.
    pub histories: Arc<HistoryCache>,
    /// The owners' quotas, read at most once a second: a daily budget is
    /// read before each inference only for an owner that has one.
    pub quotas: Arc<QuotaBook>,
}

impl Default for LoopConfig {
    fn default() -> Self {
        LoopConfig {
            delta_flush: Duration::from_millis(200),
            provider_retries: 4,
            retry_base: Duration::from_millis(500),
            retry_cap: Duration::from_secs(30),
            pricing: Arc::new(Pricing::defaults()),
            allow_private_network: false,
            sandbox: Arc::default(),
            outside: Arc::default(),
            mcp: Arc::default(),
            histories: Arc::default(),
            quotas: Arc::default(),
        }
    }
}

/// How the worker tells a run to stop.
#[derive(Debug, Clone, Default)]
pub struct RunSignals {
    /// Stop at the next step boundary and hand the run back (graceful shutdown).
    pub stop: CancellationToken,
    /// Stop now, writing nothing more: the run was cancelled, taken over, or
    /// the shutdown grace period ran out. Running tools are killed.
    pub abort: CancellationToken,
}

/// How an execution ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RunExit {
    /// The run reached a terminal state.
    Finished,
    /// The run was handed back to the queue at a step boundary.
    HandedBack,
    /// The worker stopped writing for the run: aborted, or its lease is gone.
    Abandoned,
    /// The database failed mid-run and retries did not get past it: the
    /// worker hands the run back once the database answers again.
    DatabaseLost,
    /// The run waits for a person's decision or a client's tool results, held by no worker.
    Waiting,
    /// The run was handed back to wait for its provider budget; it may be
    /// claimed again from `wake` on.
    ForBudget { wake: tokio::time::Instant },
}

/// Executes a claimed run until it ends, is handed back or is abandoned.
pub async fn execute(store: Arc<dyn Store>, config: LoopConfig, claim: Claim, signals: RunSignals) -> RunExit {
    let lease = claim.lease.clone();
    let outcome = match Execution::start(store.clone(), config, claim, signals).await {
        Ok(Some(mut execution)) => {
            let driven = execution.drive().await;
            let failed = match &driven {
                Ok(_) => None,
                Err(e) => Some(e.to_string()),
            };
            crate::otel::end(&execution.trace, failed.as_deref());
            driven.map_err(|e| (e, "could not go on"))
        }
        Ok(None) => Ok(RunExit::Abandoned),
        Err(e) => Err((e, "could not be loaded")),
    };
    match outcome {
        Ok(exit) => exit,
        Err((error, what)) => stopped_by(store.as_ref(), &lease, error, what).await,
    }
}

/// What becomes of a run whose execution met a store error it could not
/// get past. Fenced, another worker holds the run. A database that could
/// not be reached may answer again: the run is handed back, uncharged, once
/// it does. Any other error gives the same answer however often it is tried
/// (a stored row that does not decode, say): handing the run back would
/// only have the next worker meet it again, forever, with the session's
/// later runs waiting behind it, so the run fails and says why.
async fn stopped_by(store: &dyn Store, lease: &Lease, error: StoreError, what: &str) -> RunExit {
    match error {
        StoreError::Fenced => {
            // Worth a line: a write that arrived after another worker took
            // the run over (or after it was cancelled) is what fencing is for.
            tracing::warn!(error = %error, "the run's write was refused; giving the run up");
            RunExit::Abandoned
        }
        error if error.is_retryable() => {
            tracing::warn!(error = %error, "the database failed mid-run; handing the run back when it answers");
            RunExit::DatabaseLost
        }
        error => {
            tracing::error!(error = %error, "the run {what}; failing it");
            fail_run(store, lease, format!("the run {what}: {error}")).await
        }
    }
}

/// Fails a run whose execution panicked, under the lease it ran with.
pub async fn fail_after_panic(store: &dyn Store, lease: &Lease, message: &str) -> RunExit {
    fail_run(store, lease, format!("the worker panicked while executing this run: {message}")).await
}

/// Fails a run with `error`, under the lease it ran with: the summary comes
/// from the checkpoints it stored. Fenced (cancelled or taken over
/// meanwhile), it is left alone. If its checkpoints cannot be read either
/// (the reason it could not be loaded, say), it ends without a summary
/// rather than not at all, and leaves nothing in its session's history.
async fn fail_run(store: &dyn Store, lease: &Lease, error: String) -> RunExit {
    let mut outcome = commit_failure(store, lease, &error, None).await;
    if matches!(&outcome, Err(e) if !e.is_retryable() && !matches!(e, StoreError::Fenced)) {
        outcome = commit_failure(store, lease, &error, Some(RunSummary::default())).await;
    }
    match outcome {
        Ok(()) => {
            metrics::run_finished(RunStatus::Failed);
            RunExit::Finished
        }
        Err(e) => {
            tracing::warn!(error = %e, "could not fail the run");
            RunExit::Abandoned
        }
    }
}

async fn commit_failure(
    store: &dyn Store,
    lease: &Lease,
    error: &str,
    summary: Option<RunSummary>,
) -> Result<(), StoreError> {
    let finish = Finish { status: RunStatus::Failed, error: Some(error.to_string()), summary };
    let commit = Commit { finish: Some(finish), ..Default::default() };
    commit_retrying(store, lease, &commit).await.map(|_| ())
}

/// Commits under the lease, trying again (a few times, with a growing
/// pause) while the store says retrying may help.
async fn commit_retrying(store: &dyn Store, lease: &Lease, commit: &Commit) -> Result<Committed, StoreError> {
    let mut tries = 0;
    loop {
        match store.commit(lease, commit.clone()).await {
            Err(e) if e.is_retryable() && tries < 5 => {
                tries += 1;
                tracing::warn!(error = %e, "commit failed; retrying");
                tokio::time::sleep(Duration::from_millis(50 * tries)).await;
            }
            outcome => return counted(FencedWrite::Commit, outcome),
        }
    }
}

/// Passes a fenced write's outcome on, counting it if the fence refused it.
pub fn counted<T>(write: FencedWrite, outcome: Result<T, StoreError>) -> Result<T, StoreError> {
    if let Err(StoreError::Fenced) = outcome {
        metrics::fenced_write_refused(write);
    }
    outcome
}

struct Execution {
    store: Arc<dyn Store>,
    config: LoopConfig,
    lease: Lease,
    attempt: u32,
    ctx: RunContext,
    signals: RunSignals,
    /// Events waiting to ride along with the next write.
    pending: Vec<RunEvent>,
    /// What people sent the run, to take in at the next step boundary.
    inbox: Vec<InboxItem>,
    /// The newest inbox item taken in or read so far; a commit that sees a
    /// newer one sends the run to read its inbox at the next boundary.
    inbox_seen: u64,
    /// A commit saw inbox items not read yet.
    inbox_unread: bool,
    /// The secrets of the current step's MCP servers, once read.
    secrets: Option<Arc<Secrets>>,
    /// This attempt's `invoke_agent` span, the parent of its other spans.
    trace: opentelemetry::Context,
}

impl Execution {
    async fn start(
        store: Arc<dyn Store>,
        config: LoopConfig,
        claim: Claim,
        signals: RunSignals,
    ) -> Result<Option<Execution>, StoreError> {
        let ctx = match claim.context {
            Some(ctx) => *ctx,
            None => {
                let mut loaded = store.load_runs(vec![claim.lease.run_id.clone()], config.histories.clone()).await?;
                loaded.pop().ok_or(StoreError::NotFound("run"))?
            }
        };
        if ctx.run.status != RunStatus::Running {
            return Ok(None);
        }
        let mut pending = Vec::new();
        if ctx.resumed {
            let from_step = match next_action(&ctx.checkpoints, &ctx.agent) {
                NextAction::Infer { step }
                | NextAction::RunTools { step, .. }
                | NextAction::AwaitApproval { step, .. }
                | NextAction::AwaitClient { step, .. }
                | NextAction::StartChildren { step, .. }
                | NextAction::AwaitChildren { step } => step,
                _ => ctx.run.steps,
            };
            pending.push(RunEvent::RunResumed { attempt: claim.attempt, from_step });
            // After a clean hand-back nothing was in flight, so nothing is void.
            if let Some(step) = ctx.open_step.filter(|_| !ctx.handed_back) {
                pending.push(restarted(
                    step,
                    claim.attempt,
                    None,
                    "the worker executing this step stopped; its partial output is void",
                ));
            }
        }
        let inbox = ctx.inbox.clone();
        let inbox_seen = inbox.iter().map(|i| i.seq).max().unwrap_or(0);
        let traceparent = ctx.run.input.carried.traceparent.as_deref();
        let trace = crate::otel::invoke_agent(traceparent, &ctx.agent, &claim.lease.run_id, claim.attempt);
        Ok(Some(Execution {
            store,
            config,
            lease: claim.lease,
            attempt: claim.attempt,
            ctx,
            signals,
            pending,
            inbox,
            inbox_seen,
            inbox_unread: false,
            secrets: None,
            trace,
        }))
    }

    async fn drive(&mut self) -> Result<RunExit, StoreError> {
        let mut first = true;
        loop {
            if self.signals.abort.is_cancelled() {
                return Ok(RunExit::Abandoned);
            }
            if self.signals.stop.is_cancelled() {
                let released = self.store.release_run(&self.lease, HandBack::AtStepBoundary).await;
                counted(FencedWrite::HandBack, released)?;
                return Ok(RunExit::HandedBack);
            }
            if let Some(exit) = self.take_inbox().await? {
                return Ok(exit);
            }
            if let Some(exit) = self.end_if_over_budget().await? {
                return Ok(exit);
            }
            let action = next_action(&self.ctx.checkpoints, &self.ctx.agent);
            match action {
                NextAction::Succeed => {
                    if let Some(exit) = self.finish(RunStatus::Succeeded, None).await? {
                        return Ok(exit);
                    }
                }
                NextAction::StepLimit { max_steps } => {
                    let error = format!("max_steps reached: the run needed another step after {max_steps} steps");
                    if let Some(exit) = self.finish(RunStatus::Failed, Some(error)).await? {
                        return Ok(exit);
                    }
                }
                NextAction::AwaitApproval { step, calls, repeated } => {
                    let calls = calls.iter().map(|c| waiting(c, &repeated)).collect();
                    if let Some(exit) = self.wait_for(RunEvent::ApprovalRequested { step, calls }).await? {
                        return Ok(exit);
                    }
                }
                NextAction::AwaitClient { step, calls } => {
                    let calls = calls.iter().map(WaitingCall::from).collect();
                    if let Some(exit) = self.wait_for(RunEvent::ToolCallsRequested { step, calls }).await? {
                        return Ok(exit);
                    }
                }
                NextAction::StartChildren { step, calls } => {
                    if let Some(exit) = self.start_children(step, calls).await? {
                        return Ok(exit);
                    }
                }
                NextAction::AwaitChildren { .. } => {
                    if let Some(exit) = self.await_children().await? {
                        return Ok(exit);
                    }
                }
                NextAction::LoopDetected { step, name, repeats } => {
                    if let Some(exit) = self.loop_detected(step, name, repeats).await? {
                        return Ok(exit);
                    }
                }
                NextAction::Infer { step } => {
                    if let Some(exit) = self.infer(step).await? {
                        return Ok(exit);
                    }
                }
                NextAction::RunTools { step, calls } => {
                    if first && self.ctx.resumed && !self.ctx.handed_back {
                        self.pending.push(restarted(
                            step,
                            self.attempt,
                            Some(calls[0].call().id.clone()),
                            "resumed: this tool call may have started before the worker stopped",
                        ));
                        // Say so durably before running it again: if this attempt
                        // also stops before its first write, the log must still
                        // show that the call may have run once more.
                        self.write(Commit::default()).await?;
                    }
                    if let Some(exit) = self.run_tools(step, calls).await? {
                        return Ok(exit);
                    }
                }
            }
            first = false;
        }
    }

    /// Writes the pending events plus `commit`, fenced by the lease. Returns
    /// whether the run ended with it: a commit that would end the run while
    /// its inbox holds something new is written without the end, and the
    /// inbox is taken in at the next boundary.
    async fn write(&mut self, mut commit: Commit) -> Result<bool, StoreError> {
        let mut events = std::mem::take(&mut self.pending);
        events.append(&mut commit.events);
        commit.events = events;
        if let Some(finish) = &mut commit.finish {
            // Under the lease this worker holds every checkpoint of the run,
            // so it can say what the run amounts to; the store need not reload.
            let mut all = self.ctx.checkpoints.clone();
            all.extend(commit.checkpoints.iter().cloned());
            finish.summary = Some(checkpoint::summarize(&self.ctx.run.input, &all, finish.status));
        }
        let committed = match commit_retrying(self.store.as_ref(), &self.lease, &commit).await {
            Err(StoreError::InboxWaiting) if commit.finish.is_some() => {
                commit.finish = None;
                self.inbox_unread = true;
                commit_retrying(self.store.as_ref(), &self.lease, &commit).await?
            }
            outcome => outcome?,
        };
        if committed.inbox_newest.is_some_and(|newest| newest > self.inbox_seen) {
            self.inbox_unread = true;
        }
        self.ctx.checkpoints.extend(commit.checkpoints);
        let Some(finish) = &commit.finish else { return Ok(false) };
        metrics::run_finished(finish.status);
        match &finish.error {
            Some(error) => {
                tracing::info!(status = finish.status.as_str(), error, "run ended")
            }
            None => tracing::info!(status = finish.status.as_str(), "run ended"),
        }
        Ok(true)
    }

    /// Ends the run, unless its inbox turned out to hold something new (then
    /// the loop goes on and takes it in).
    async fn finish(&mut self, status: RunStatus, error: Option<String>) -> Result<Option<RunExit>, StoreError> {
        let commit = Commit { finish: Some(Finish { status, error, summary: None }), ..Default::default() };
        Ok(self.write(commit).await?.then_some(RunExit::Finished))
    }

    /// Whether people sent the run something it has not taken in yet.
    fn inbox_has_news(&self) -> bool {
        self.inbox_unread || !self.inbox.is_empty()
    }
}

/// A call as `approval_requested` shows it, with its reason when the loop
/// guard stopped it.
fn waiting(call: &ToolCall, repeated: &[String]) -> WaitingCall {
    let reason = repeated.contains(&call.id).then(|| REPEATED_CALL.to_string());
    WaitingCall { reason, ..WaitingCall::from(call) }
}

/// `step_restarted` for a step a resumed attempt redoes.
fn restarted(step: u32, attempt: u32, call_id: Option<String>, reason: &str) -> RunEvent {
    RunEvent::StepRestarted { step, attempt, call_id, retry: None, delay_ms: None, status: None, reason: reason.into() }
}

impl Execution {
    /// The values of the secrets the agent's MCP servers name, as this
    /// step read them: once per step (an inference lists the servers' tools
    /// and its calls use them), so that a secret changed meanwhile applies
    /// from the next step.
    async fn step_secrets(&mut self) -> Result<Arc<Secrets>, StoreError> {
        if let Some(secrets) = &self.secrets {
            return Ok(secrets.clone());
        }
        let secrets = Arc::new(self.store.secrets_of(&self.ctx.run.owner, &self.ctx.agent.mcp_servers).await?);
        self.secrets = Some(secrets.clone());
        Ok(secrets)
    }
}

/// Exponential backoff with equal jitter (a uniform draw between half the
/// doubled, capped delay and all of it, so that a retry never comes much
/// sooner than the schedule says), or the provider's `retry-after`, capped.
pub fn retry_delay(config: &LoopConfig, failures: u32, retry_after: Option<Duration>) -> Duration {
    if let Some(after) = retry_after {
        return after.min(config.retry_cap);
    }
    let ceiling = config.retry_base.saturating_mul(1u32 << failures.min(16)).min(config.retry_cap);
    let half = ceiling / 2;
    half + ceiling.mul_f64(fastrand::f64() * 0.5)
}

#[cfg(test)]
mod tests {
    use super::tools::batches;
    use super::*;
    use crate::domain::approval::Outcome;
    use crate::domain::model::ToolCall;

    #[test]
    fn retry_delays_grow_and_stay_capped() {
        let config = LoopConfig {
            retry_base: Duration::from_millis(100),
            retry_cap: Duration::from_secs(1),
            ..Default::default()
        };
        for failures in 0..10 {
            let ceiling = Duration::from_millis(100 * (1 << failures)).min(Duration::from_secs(1));
            let d = retry_delay(&config, failures, None);
            assert!(d >= ceiling / 2 && d <= ceiling, "{failures}: {d:?}");
        }
        assert_eq!(
            retry_delay(&config, 0, Some(Duration::from_secs(17))),
            Duration::from_secs(1),
            "retry-after is capped"
        );
        assert_eq!(retry_delay(&config, 0, Some(Duration::from_millis(300))), Duration::from_millis(300));
    }

    #[test]
    fn read_only_calls_are_batched_and_others_run_alone() {
        let call =
            |name: &str| Outcome::Run(ToolCall { id: name.into(), name: name.into(), input: serde_json::json!({}) });
        let calls = [call("read"), call("grep"), call("bash"), call("glob"), call("write")];
        let shape: Vec<usize> = batches(&calls).iter().map(Vec::len).collect();
        assert_eq!(shape, [2, 1, 1, 1]);
    }
}
