//! A message to a session, and a compaction of its history: each a run in
//! the session's order.

use crate::domain::access::Caller;
use crate::domain::branch::RewindTo;
use crate::domain::guard;
use crate::domain::lifecycle::FromPast;
use crate::domain::model::{new_id, Agent, Carried, MultitaskStrategy, Owned, Reasoning, RunInput, RunKind, Session};
use crate::domain::toolset;
use crate::domain::webhook::Webhook;
use crate::store::{Enqueued, NewRun, StoreError};
use crate::tools;

use super::{checks, Door, Envelope, SubmitError, SubmitResult};

/// A message for a session's agent (`POST /sessions/{id}/message`, a
/// schedule's message target).
#[derive(Debug, Clone, Default)]
pub struct MessageSubmission {
    pub session_id: String,
    /// The agent to run; the session's own when `None`.
    pub agent_id: Option<String>,
    pub message: String,
    /// What becomes of the session's unfinished runs.
    pub strategy: MultitaskStrategy,
    /// The run's reasoning level, over its agent's, as the client wrote it.
    pub reasoning: Option<String>,
    /// A budget in US dollars for this run, at most its agent's.
    pub max_cost_usd: Option<f64>,
    /// Where the run's end is announced; the agent's `webhook` when `None`.
    pub webhook: Option<Webhook>,
    /// A run of the session this message replaces: the session is rewound
    /// to just before it first, in the same transaction.
    pub replace: Option<String>,
}

/// A compaction of a session's history, queued behind its unfinished runs
/// (`POST /sessions/{id}/compact`).
#[derive(Debug, Clone, Default)]
pub struct CompactionSubmission {
    pub session_id: String,
    /// The agent whose model (or `compaction.model`) writes the summary;
    /// the session's own when `None`.
    pub agent_id: Option<String>,
}

impl MessageSubmission {
    /// What a key of this message stands for. A reasoning level, a budget
    /// and a webhook join it only when given, each named, so that keys
    /// stored before any of them existed still match their requests.
    fn key_parts(&self, agent_id: &str) -> Vec<String> {
        let strategy = serde_json::to_string(&self.strategy).unwrap_or_default();
        let mut parts = vec![agent_id.to_string(), self.message.clone(), strategy];
        parts.extend(self.reasoning.as_ref().map(|r| format!("reasoning={r}")));
        parts.extend(self.max_cost_usd.map(|usd| format!("max_cost_usd={usd}")));
        parts.extend(self.webhook.as_ref().map(|hook| format!("webhook={}", hook.url)));
        parts.extend(self.replace.as_ref().map(|run_id| format!("replace={run_id}")));
        parts
    }
}

impl Door {
    /// Enqueues a message's run: checked, written with its first event in
    /// one transaction (after its strategy is applied to the runs in its
    /// way), and this process's workers woken.
    pub async fn message(&self, envelope: &Envelope, submission: MessageSubmission) -> SubmitResult<Enqueued> {
        checks::message(&submission.message).map_err(SubmitError::Invalid)?;
        let reasoning = submission.reasoning.as_deref().map(|r| Reasoning::parse_field("reasoning", r));
        let reasoning = reasoning.transpose().map_err(SubmitError::Invalid)?;
        let session_id = submission.session_id.clone();
        let (session, agent_id, agent) =
            self.session_agent(&session_id, submission.agent_id.as_deref(), envelope.caller.as_ref()).await?;
        check_budget(submission.max_cost_usd, &agent)?;
        let webhook = checks::webhook_url(&self.config.webhooks, submission.webhook.as_ref(), agent.webhook.as_ref())?;
        let parts = submission.key_parts(&agent_id);
        let key = envelope.key(&format!("message:{session_id}"), &parts.iter().map(String::as_str).collect::<Vec<_>>());
        let mut input = RunInput::new(submission.message, in_session(envelope, &session, &agent));
        (input.reasoning, input.max_cost_usd, input.webhook) = (reasoning, submission.max_cost_usd, webhook);
        self.check_queue_room(&session.owner, 1).await?;
        let mut run = self.session_run(RunKind::Message, &session, agent, input, submission.strategy);
        let Some(replaced) = submission.replace else { return self.enqueue_run(run, key, &session_id).await };
        // A run not of this session is named as such, not as a missing session.
        run.from_past = Some(FromPast { rewind: Some(RewindTo::Before(replaced.clone())), reused: None });
        let enqueued = self.store.enqueue_run(run, key).await.map_err(|e| match e {
            StoreError::NotFound("run") => SubmitError::NotFound(format!("run {replaced} of session {session_id}")),
            other => SubmitError::naming(format!("session {session_id}"))(other),
        })?;
        self.written();
        Ok(enqueued)
    }

    /// Enqueues a compaction of the session's history, in the session's order.
    pub async fn compaction(&self, envelope: &Envelope, submission: CompactionSubmission) -> SubmitResult<Enqueued> {
        let session_id = submission.session_id.clone();
        let (session, agent_id, agent) =
            self.session_agent(&session_id, submission.agent_id.as_deref(), envelope.caller.as_ref()).await?;
        let key = envelope.key(&format!("compact:{session_id}"), &[agent_id.as_str()]);
        let input = RunInput::new(String::new(), in_session(envelope, &session, &agent));
        self.check_queue_room(&session.owner, 1).await?;
        let run = self.session_run(RunKind::Compaction, &session, agent, input, MultitaskStrategy::Enqueue);
        self.enqueue_run(run, key, &session_id).await
    }

    /// A session, and the agent (with the session's added tools) that a run
    /// for it uses: `agent_id` if given, else the session's own. A session,
    /// or a named agent, that `caller` may not see is answered as one that
    /// does not exist. A schedule is checked with this when it is made, as
    /// its ticks will be.
    pub async fn session_agent(
        &self,
        session_id: &str,
        agent_id: Option<&str>,
        caller: Option<&Caller>,
    ) -> SubmitResult<(Session, String, Agent)> {
        let sees = |object: &dyn Owned| caller.is_none_or(|caller| caller.sees(object.owner(), object.shared()));
        let (session, agent) = self
            .store
            .session_and_agent(session_id, agent_id)
            .await?
            .filter(|(session, _)| sees(session))
            .ok_or_else(|| SubmitError::NotFound(format!("session {session_id}")))?;
        let agent_id_given = agent_id.is_some();
        let agent_id = agent_id
            .map(str::to_string)
            .or(session.agent_id.clone())
            .ok_or_else(|| SubmitError::Refused("agent_id is required: the session has no agent of its own".into()))?;
        let agent = match (agent, agent_id_given) {
            (Some(agent), false) => agent,
            (Some(agent), true) if sees(&agent) => agent,
            (_, true) => return Err(SubmitError::NotFound(format!("agent {agent_id}"))),
            (None, false) => {
                return Err(SubmitError::Gone(format!(
                "this session's agent {agent_id} no longer exists (it was deleted): name another with \"agent_id\" \
                 (wingman send --agent ID), or give the session one with PUT /sessions/{session_id} {{\"agent_id\": …}}"
            )))
            }
        };
        let agent = with_session_tools(&agent, &session)?;
        Ok((session, agent_id, agent))
    }

    pub(super) fn session_run(
        &self,
        kind: RunKind,
        session: &Session,
        agent: Agent,
        input: RunInput,
        strategy: MultitaskStrategy,
    ) -> NewRun {
        NewRun {
            id: new_id(),
            kind,
            session_id: Some(session.id.clone()),
            agent,
            input,
            work_dir: session.work_dir.clone(),
            max_attempts: self.config.max_attempts,
            strategy,
            from_past: None,
        }
    }

    async fn enqueue_run(
        &self,
        run: NewRun,
        key: Option<crate::store::IdempotencyKey>,
        session_id: &str,
    ) -> SubmitResult<Enqueued> {
        let enqueued =
            self.store.enqueue_run(run, key).await.map_err(SubmitError::naming(format!("session {session_id}")))?;
        self.written();
        Ok(enqueued)
    }
}

/// What a run of `agent` in `session` carries: the envelope's, owned by
/// the session's owner whoever sent it (an admin's message to a member's
/// session is the member's work, and `{owner}` in the agent's concurrency
/// key is the member).
pub(super) fn in_session(envelope: &Envelope, session: &Session, agent: &Agent) -> Carried {
    let carried = Carried { owner: session.owner.clone(), ..envelope.carried.clone() };
    carried.for_run(agent, Some(&session.id))
}

/// The agent a session's run is given: the agent with the session's tool
/// additions. An agent changed since the additions were made may clash
/// with them (a name declared twice, say): the run is refused.
pub fn with_session_tools(agent: &Agent, session: &Session) -> SubmitResult<Agent> {
    if session.added_tools.is_empty() {
        return Ok(agent.clone());
    }
    let merged = toolset::with_additions(agent, &session.added_tools);
    toolset::check_agent(&merged, tools::NAMES).map_err(|e| {
        SubmitError::Conflict(format!("session {}'s tools do not fit agent {}: {e}", session.id, agent.id))
    })?;
    Ok(merged)
}

/// Checks a message's budget: positive, and no more than its agent's.
fn check_budget(asked: Option<f64>, agent: &Agent) -> SubmitResult<()> {
    let Some(asked) = asked else { return Ok(()) };
    guard::check_cost(asked).map_err(|e| SubmitError::Invalid(format!("max_cost_usd {e}")))?;
    match agent.guards.max_cost_usd {
        Some(limit) if asked > limit => Err(SubmitError::Invalid(format!(
            "max_cost_usd {asked} is more than the agent's ({limit}): a message may only lower its agent's budget"
        ))),
        _ => Ok(()),
    }
}
