//! The events a log is written with, typed.
//!
//! Every event Wingman writes is one of [`RunEvent`]'s variants: the engine,
//! the queue's rules and the fleet rules build them, and a store only
//! persists what [`RunEvent::kind`] and [`RunEvent::data`] say. What the
//! events mean for a resumed run (which step was open) is read from them here
//! too ([`RunEvent::open_step_change`]), so no backend has to parse its own
//! log back. Reading a stored log gives [`crate::domain::model::Event`]s, whose type
//! is a plain string: clients and the SSE framing see the JSON, not this enum.

use serde::Serialize;
use serde_json::{Map, Value};

use crate::domain::access::By;
use crate::domain::approval::{Decided, WaitingCall};
use crate::domain::checkpoint::{Checkpoint, CheckpointBody, RunSummary};
use crate::domain::formation::run::NodeStatus;
use crate::domain::guard::Exhausted;
use crate::domain::model::{FleetProgress, FleetRunStatus, RunKind, RunStatus, Usage};

/// A tool call of a reused step, as its `step_reused` event names it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReusedCall {
    pub call_id: String,
    pub name: String,
    pub is_error: bool,
}

/// An event about to be written to a run's (or a fleet run's) log; the store
/// numbers it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum RunEvent {
    /// The run was written to the queue.
    RunQueued {
        kind: RunKind,
        session_id: Option<String>,
        agent_id: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        fleet_run_id: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        task_index: Option<u32>,
    },
    /// A worker claimed the run. `charged_attempts` counts the earlier
    /// attempts that ended without checkpointing anything: only those count
    /// against `max_attempts`.
    RunStarted {
        attempt: u32,
        worker_id: String,
        charged_attempts: u32,
    },
    /// An attempt after the first picks the run up at `from_step`.
    RunResumed {
        attempt: u32,
        from_step: u32,
    },
    /// A worker gave the run back to the queue, uncharged: it shut down, or
    /// never received its claim.
    RunHandedBack {
        interrupted: bool,
        reason: String,
    },
    StepStarted {
        step: u32,
    },
    TextDelta {
        step: u32,
        text: String,
    },
    /// The model's thinking, coalesced like `text_delta`.
    ThinkingDelta {
        step: u32,
        text: String,
    },
    ToolCall {
        step: u32,
        call_id: String,
        name: String,
        input: Value,
    },
    ToolResult {
        step: u32,
        call_id: String,
        name: String,
        output: String,
        is_error: bool,
    },
    StepCompleted {
        step: u32,
        usage: Usage,
        stop_reason: String,
    },
    /// A retry's step taken whole from the run it retries
    /// ([`crate::domain::retry`]): no provider or tool was called for it.
    /// `tool_calls` are the step's calls with how each ended.
    StepReused {
        step: u32,
        from_run_id: String,
        usage: Usage,
        tool_calls: Vec<ReusedCall>,
    },
    /// What the step wrote before this event is void: it runs again.
    StepRestarted {
        step: u32,
        attempt: u32,
        #[serde(skip_serializing_if = "Option::is_none")]
        call_id: Option<String>,
        /// For a provider failure: which retry this is, after what delay.
        #[serde(skip_serializing_if = "Option::is_none")]
        retry: Option<u32>,
        #[serde(skip_serializing_if = "Option::is_none")]
        delay_ms: Option<u64>,
        #[serde(skip_serializing_if = "Option::is_none")]
        status: Option<u16>,
        reason: String,
    },
    /// The run compacts its prompt before `step`'s inference (see
    /// [`crate::domain::compaction`]): `reason` is `context`, `overflow` or `requested`.
    CompactionStarted {
        step: u32,
        tokens_before: u64,
        reason: String,
    },
    /// The compaction is done and checkpointed.
    CompactionCompleted {
        step: u32,
        tokens_before: u64,
        tokens_after: u64,
        pruned_results: u32,
        summarized_messages: u32,
    },
    /// A call of `step` started a sub-agent's run, which a client can tail.
    /// (`child_run_id`, since every event's `run_id` is its own log's.)
    SubagentStarted {
        step: u32,
        call_id: String,
        child_run_id: String,
        agent_id: String,
    },
    /// The sub-agent's run of a call of `step` ended; its result follows as
    /// the call's `tool_result`.
    SubagentFinished {
        step: u32,
        call_id: String,
        child_run_id: String,
        status: RunStatus,
    },
    /// Calls of `step` wait for a person; the run is `waiting` and holds no worker.
    ApprovalRequested {
        step: u32,
        calls: Vec<WaitingCall>,
    },
    /// A person decided on every waiting call of `step`; the run is queued again.
    ApprovalDecided {
        step: u32,
        decisions: Vec<Decided>,
        /// Who did it: the key's owner, name and ID (absent in logs written before keys had names).
        #[serde(skip_serializing_if = "Option::is_none")]
        by: Option<By>,
    },
    /// Calls of `step` to client tools wait for the client's results; the run
    /// is `waiting` and holds no worker.
    ToolCallsRequested {
        step: u32,
        calls: Vec<WaitingCall>,
    },
    /// The client posted the results of every call of `step` it waited on;
    /// the run is queued again.
    ToolResultsReceived {
        step: u32,
        call_ids: Vec<String>,
        /// Who did it: the key's owner, name and ID (absent in logs written before keys had names).
        #[serde(skip_serializing_if = "Option::is_none")]
        by: Option<By>,
    },
    /// An MCP server could not be reached or could not list its tools: its
    /// tools are missing from this step, and the run goes on.
    ToolSourceUnavailable {
        step: u32,
        server: String,
        error: String,
    },
    /// The answer of `step` streamed more than `max_step_output_bytes`
    /// (`limit`): the worker stopped reading it, and the run fails.
    StepOutputExceeded {
        step: u32,
        bytes: u64,
        limit: u64,
    },
    /// The step's inference waits for its share of a provider budget
    /// (`budget`: a credential's name or `agent:<id>`) until `until`:
    /// `reason` is `paused` (a 429 or 529), `requests_per_minute`,
    /// `tokens_per_minute` or `max_concurrent`. Not an attempt: nothing
    /// was sent.
    RateLimited {
        step: u32,
        budget: String,
        reason: String,
        until: String,
        wait_ms: u64,
    },
    /// The run's spending reached its budget at `step`, and the run fails:
    /// dollars (`spent_usd`, `limit_usd`) or tokens (`spent_tokens`,
    /// `limit_tokens`). With `owner`, it is the owner's daily budget
    /// (`max_cost_usd_per_day`) that its runs spent today, before `step`.
    BudgetExhausted {
        step: u32,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        owner: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        spent_usd: Option<f64>,
        #[serde(skip_serializing_if = "Option::is_none")]
        limit_usd: Option<f64>,
        #[serde(skip_serializing_if = "Option::is_none")]
        spent_tokens: Option<u64>,
        #[serde(skip_serializing_if = "Option::is_none")]
        limit_tokens: Option<u64>,
    },
    /// The model asked for `name` with the same input `repeats` times in a
    /// row, after it was told it repeats itself: the run fails.
    LoopDetected {
        step: u32,
        name: String,
        repeats: u32,
    },
    /// A person's message reached the run at a step boundary; `skipped` are
    /// the calls of that step that had not started and never will.
    Steered {
        message: String,
        skipped: Vec<String>,
        /// Who did it: the key's owner, name and ID (absent in logs written before keys had names).
        #[serde(skip_serializing_if = "Option::is_none")]
        by: Option<By>,
    },
    /// The run's one terminal event; `by` says who cancelled it, when a
    /// person did (its own cancel, or its fleet run's).
    Done {
        status: RunStatus,
        response: Option<String>,
        usage: Usage,
        steps: u32,
        #[serde(skip_serializing_if = "Option::is_none")]
        error: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        by: Option<By>,
    },
    /// The first event of a fleet run's log.
    FleetQueued {
        fleet_id: String,
        agent_id: String,
        tasks: usize,
        worker_count: u32,
    },
    /// One task of a fleet run ended: its result (see [`crate::domain::fleet::result`]).
    Result(Map<String, Value>),
    /// The first event of a formation run's log: the graph's size and the
    /// nodes that start with it.
    FormationQueued {
        formation_id: String,
        nodes: usize,
        entries: Vec<String>,
    },
    /// A node of a formation run started: an agent node's run, a fleet
    /// node's fleet run, or a function computed at once.
    NodeStarted {
        node: String,
        kind: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        run_id: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        fleet_run_id: Option<String>,
    },
    /// A node of a formation run ended, with its output or why it did not give one.
    NodeFinished {
        node: String,
        status: NodeStatus,
        #[serde(skip_serializing_if = "Option::is_none")]
        output: Option<Value>,
        #[serde(skip_serializing_if = "Option::is_none")]
        error: Option<String>,
    },
    /// A formation run's terminal event, with the outputs of its exit nodes.
    #[serde(rename = "done")]
    FormationDone {
        status: FleetRunStatus,
        outputs: Value,
        #[serde(skip_serializing_if = "Option::is_none")]
        error: Option<String>,
    },
    /// A fleet run's terminal event, with the counts.
    #[serde(rename = "done")]
    FleetDone {
        status: FleetRunStatus,
        tasks: u64,
        succeeded: u64,
        failed: u64,
        cancelled: u64,
    },
}

impl RunEvent {
    /// The event's type, as stored and as clients see it.
    pub fn kind(&self) -> &'static str {
        match self {
            RunEvent::RunQueued { .. } => "run_queued",
            RunEvent::RunStarted { .. } => "run_started",
            RunEvent::RunResumed { .. } => "run_resumed",
            RunEvent::RunHandedBack { .. } => "run_handed_back",
            RunEvent::StepStarted { .. } => "step_started",
            RunEvent::TextDelta { .. } => "text_delta",
            RunEvent::ThinkingDelta { .. } => "thinking_delta",
            RunEvent::ToolCall { .. } => "tool_call",
            RunEvent::ToolResult { .. } => "tool_result",
            RunEvent::StepCompleted { .. } => "step_completed",
            RunEvent::StepRestarted { .. } => "step_restarted",
            RunEvent::StepReused { .. } => "step_reused",
            RunEvent::ApprovalRequested { .. } => "approval_requested",
            RunEvent::ApprovalDecided { .. } => "approval_decided",
            RunEvent::ToolCallsRequested { .. } => "tool_calls_requested",
            RunEvent::SubagentStarted { .. } => "subagent_started",
            RunEvent::SubagentFinished { .. } => "subagent_finished",
            RunEvent::ToolResultsReceived { .. } => "tool_results_received",
            RunEvent::ToolSourceUnavailable { .. } => "tool_source_unavailable",
            RunEvent::Steered { .. } => "steered",
            RunEvent::StepOutputExceeded { .. } => "step_output_exceeded",
            RunEvent::RateLimited { .. } => "rate_limited",
            RunEvent::BudgetExhausted { .. } => "budget_exhausted",
            RunEvent::LoopDetected { .. } => "loop_detected",
            RunEvent::CompactionStarted { .. } => "compaction_started",
            RunEvent::CompactionCompleted { .. } => "compaction_completed",
            RunEvent::Done { .. } | RunEvent::FleetDone { .. } | RunEvent::FormationDone { .. } => "done",
            RunEvent::FleetQueued { .. } => "fleet_queued",
            RunEvent::Result(_) => "result",
            RunEvent::FormationQueued { .. } => "formation_queued",
            RunEvent::NodeStarted { .. } => "node_started",
            RunEvent::NodeFinished { .. } => "node_finished",
        }
    }

    /// The event's fields, without its type.
    pub fn data(&self) -> Map<String, Value> {
        match serde_json::to_value(self) {
            Ok(Value::Object(mut map)) => {
                map.remove("type");
                map
            }
            // Every variant is a struct or a map, and every field serialises.
            _ => Map::new(),
        }
    }

    /// The event's fields as JSON text, for a store to persist.
    pub fn data_json(&self) -> String {
        Value::Object(self.data()).to_string()
    }

    /// How this event changes the run's open step (a step started but not
    /// completed, which a resumed attempt must restart): `Some(Some(step))`
    /// opens one, `Some(None)` closes it, `None` leaves it as it was.
    pub fn open_step_change(&self) -> Option<Option<u32>> {
        match self {
            RunEvent::StepStarted { step } | RunEvent::StepRestarted { step, .. } => Some(Some(*step)),
            RunEvent::StepCompleted { .. } => Some(None),
            _ => None,
        }
    }

    /// The `tool_result` event that announces a tool result checkpoint.
    pub fn tool_result(checkpoint: &Checkpoint) -> Option<RunEvent> {
        match &checkpoint.body {
            CheckpointBody::ToolResult { call_id, name, output, is_error } => Some(RunEvent::ToolResult {
                step: checkpoint.step,
                call_id: call_id.clone(),
                name: name.clone(),
                output: output.clone(),
                is_error: *is_error,
            }),
            _ => None,
        }
    }

    /// The `budget_exhausted` event of a run whose spending reached `exhausted` at `step`.
    pub fn budget_exhausted(step: u32, exhausted: &Exhausted) -> RunEvent {
        let (mut spent_usd, mut limit_usd, mut spent_tokens, mut limit_tokens) = (None, None, None, None);
        match *exhausted {
            Exhausted::Cost { spent_usd: s, limit_usd: l } => (spent_usd, limit_usd) = (Some(s), Some(l)),
            Exhausted::Tokens { spent_tokens: s, limit_tokens: l } => (spent_tokens, limit_tokens) = (Some(s), Some(l)),
        }
        RunEvent::BudgetExhausted { step, owner: None, spent_usd, limit_usd, spent_tokens, limit_tokens }
    }

    /// The `done` event of a run that ends with `status`.
    pub fn done(status: RunStatus, error: Option<String>, summary: &RunSummary) -> RunEvent {
        let (response, usage, steps) = (summary.response.clone(), summary.usage, summary.steps);
        RunEvent::Done { status, response, usage, steps, error, by: None }
    }

    /// The `done` event of a fleet run whose tasks have all ended.
    pub fn fleet_done(status: FleetRunStatus, progress: &FleetProgress) -> RunEvent {
        RunEvent::FleetDone {
            status,
            tasks: progress.total,
            succeeded: progress.succeeded,
            failed: progress.failed,
            cancelled: progress.cancelled,
        }
    }
}

/// The open step after a run's events `events`, given the one before them.
pub fn open_step_after(before: Option<u32>, events: &[RunEvent]) -> Option<u32> {
    events.iter().fold(before, |open, event| event.open_step_change().unwrap_or(open))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn data_is_the_fields_without_the_type_and_absent_options_are_left_out() {
        let started = RunEvent::RunStarted { attempt: 2, worker_id: "w".into(), charged_attempts: 0 };
        assert_eq!(started.kind(), "run_started");
        assert_eq!(Value::Object(started.data()), json!({"attempt": 2, "worker_id": "w", "charged_attempts": 0}));
        let queued = RunEvent::RunQueued {
            kind: RunKind::Message,
            session_id: None,
            agent_id: "a".into(),
            fleet_run_id: None,
            task_index: None,
        };
        assert_eq!(Value::Object(queued.data()), json!({"kind": "message", "session_id": null, "agent_id": "a"}));
        let result = RunEvent::Result(json!({"task_index": 3}).as_object().unwrap().clone());
        assert_eq!((result.kind(), Value::Object(result.data())), ("result", json!({"task_index": 3})));
        let done =
            RunEvent::fleet_done(FleetRunStatus::Failed, &FleetProgress { total: 2, failed: 1, ..Default::default() });
        assert_eq!(done.kind(), "done");
        assert_eq!(done.data()["status"], "failed");
    }

    #[test]
    fn the_open_step_is_the_last_started_and_not_completed() {
        let usage = Usage::default();
        let completed = RunEvent::StepCompleted { step: 1, usage, stop_reason: "end_turn".into() };
        assert_eq!(open_step_after(None, &[RunEvent::StepStarted { step: 1 }]), Some(1));
        assert_eq!(open_step_after(Some(1), std::slice::from_ref(&completed)), None);
        assert_eq!(open_step_after(Some(1), &[RunEvent::TextDelta { step: 1, text: "x".into() }]), Some(1));
        let restarted = RunEvent::StepRestarted {
            step: 2,
            attempt: 2,
            call_id: None,
            retry: None,
            delay_ms: None,
            status: None,
            reason: "r".into(),
        };
        assert_eq!(open_step_after(None, &[completed, restarted]), Some(2));
    }
}
