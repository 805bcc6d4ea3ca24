//! Checkpoints and what a run's checkpoints add up to.
//!
//! A checkpoint is one durable unit of a run's progress: an inference result,
//! a tool result, a failed provider attempt, a person's decision or message,
//! or the shell state a bash call left. Everything else about a run —
//! the next step to take, its final response, its usage, what it leaves in the
//! session history — is computed from its checkpoints by the pure functions
//! here, so the worker, the API's cancel and the rescue of crashed runs all
//! agree on it.

use serde::{Deserialize, Serialize};

use crate::domain::approval::{self, Decision, Outcome};
use crate::domain::compaction::Marker;
use crate::domain::guard::{self, Verdict};
use crate::domain::model::{
    storable_text, Agent, Content, Message, Role, RunInput, RunStatus, ToolCall, ToolCallRecord, Usage,
};
use crate::domain::shell::ShellState;
use crate::domain::toolset::{self, Source};

/// One checkpointed unit of a run, numbered by the inference step it belongs to.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Checkpoint {
    pub step: u32,
    pub body: CheckpointBody,
}

/// What a checkpoint records.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum CheckpointBody {
    /// The model's answer for a step: text and/or tool calls.
    Inference { message: Message, usage: Usage, stop_reason: String },
    /// The result of one tool call requested at this step.
    ToolResult { call_id: String, name: String, output: String, is_error: bool },
    /// A provider attempt for this step that failed; kept so retries are
    /// counted durably. `overflow`: the provider said the prompt is too long.
    ProviderError {
        attempt: u32,
        message: String,
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        overflow: bool,
        /// For an overflow: the context window the provider named.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        window: Option<u64>,
    },
    /// A person's decision on one of this step's tool calls (see [`crate::domain::approval`]).
    Decision { call_id: String, decision: Decision },
    /// A person's message delivered after this step (step 0: before the run's
    /// own message); `seq` is its number in the run's inbox.
    Steer { seq: u64, message: String },
    /// The shell state a bash call of this step left, when it changed it
    /// (see [`crate::domain::shell`]); written with the call's result.
    Shell { call_id: String, state: ShellState },
    /// A compaction done before this step's inference (the `index`th of the
    /// run), with what writing its summary cost (see [`crate::domain::compaction`]).
    /// `forced`: it answered the provider's saying the prompt was too long.
    Compaction {
        index: u32,
        marker: Marker,
        usage: Usage,
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        forced: bool,
    },
    /// A call of this step started a sub-agent's run (see [`crate::domain::subagent`]).
    Child { call_id: String, run_id: String, agent_id: String },
    /// The sub-agent's run of a call ended (its result is the call's
    /// `tool_result`), having spent this much, its own children included.
    ChildEnded { call_id: String, run_id: String, status: RunStatus, spent_usd: f64, spent_tokens: u64 },
}

impl Checkpoint {
    /// The stored kind of the checkpoint.
    pub fn kind(&self) -> &'static str {
        match self.body {
            CheckpointBody::Inference { .. } => "inference",
            CheckpointBody::ToolResult { .. } => "tool_result",
            CheckpointBody::ProviderError { .. } => "provider_error",
            CheckpointBody::Decision { .. } => "decision",
            CheckpointBody::Steer { .. } => "steer",
            CheckpointBody::Shell { .. } => "shell",
            CheckpointBody::Compaction { .. } => "compaction",
            CheckpointBody::Child { .. } => "child",
            CheckpointBody::ChildEnded { .. } => "child_ended",
        }
    }

    /// The key that makes the checkpoint unique within its step and kind,
    /// as stored (a model's call ID is the model's text: see [`storable_text`]).
    pub fn call_id(&self) -> String {
        match &self.body {
            CheckpointBody::ToolResult { call_id, .. } => storable_text(call_id.clone()),
            CheckpointBody::ProviderError { attempt, .. } => attempt.to_string(),
            CheckpointBody::Decision { call_id, .. }
            | CheckpointBody::Shell { call_id, .. }
            | CheckpointBody::Child { call_id, .. }
            | CheckpointBody::ChildEnded { call_id, .. } => storable_text(call_id.clone()),
            CheckpointBody::Steer { seq, .. } => seq.to_string(),
            CheckpointBody::Compaction { index, .. } => index.to_string(),
            CheckpointBody::Inference { .. } => String::new(),
        }
    }
}

/// The tool calls requested by an assistant message.
pub fn tool_calls_of(message: &Message) -> Vec<ToolCall> {
    message
        .content
        .iter()
        .filter_map(|c| match c {
            Content::ToolUse { id, name, input } => {
                Some(ToolCall { id: id.clone(), name: name.clone(), input: input.clone() })
            }
            _ => None,
        })
        .collect()
}

/// `step`'s assistant message with each call as it ran: a call a person
/// edited carries the input it ran with, so the history the model is sent
/// next, and the run's record, show the call that gave its result (the
/// `tool_call` event keeps what the model asked; `approval_decided` both).
fn as_ran(checkpoints: &[Checkpoint], step: u32, message: &Message) -> Message {
    let mut message = message.clone();
    for content in &mut message.content {
        if let Content::ToolUse { id, input, .. } = content {
            if let Some(Decision::Edit { input: edited }) = find_decision(checkpoints, step, id) {
                *input = edited.clone();
            }
        }
    }
    message
}

/// The next thing a run must do, given its checkpoints.
#[derive(Debug, Clone, PartialEq)]
pub enum NextAction {
    /// Ask the provider for step `step`.
    Infer { step: u32 },
    /// Carry out the tool calls of `step` that have no result yet, in order:
    /// run them, or answer them as a person decided.
    RunTools { step: u32, calls: Vec<Outcome> },
    /// Some of `step`'s calls wait for a person's decision: the run waits.
    /// `repeated` names those a person is asked about because the loop
    /// guard stopped them.
    AwaitApproval { step: u32, calls: Vec<ToolCall>, repeated: Vec<String> },
    /// Every call of `step` the worker could carry out has its result; the
    /// rest are calls of client tools, whose results the run waits for.
    AwaitClient { step: u32, calls: Vec<ToolCall> },
    /// Calls of `step` hand tasks to sub-agents whose runs have not started:
    /// the run starts them and waits for them.
    StartChildren { step: u32, calls: Vec<ToolCall> },
    /// Calls of `step` wait for sub-agents' runs that have started and not
    /// ended: the run waits (the last child's end queues it again).
    AwaitChildren { step: u32 },
    /// The model answered without tool calls: the run succeeded.
    Succeed,
    /// The run used up its `max_steps` and still had work to do.
    StepLimit { max_steps: u32 },
    /// The model asked once more for a call the loop guard had refused
    /// (the `repeats`th identical call in a row): the run fails.
    LoopDetected { step: u32, name: String, repeats: u32 },
}

/// Computes the next action of a run from its checkpoints, under the rules
/// of its agent (`max_steps`, `approve_tools`, `loop_guard`).
pub fn next_action(checkpoints: &[Checkpoint], agent: &Agent) -> NextAction {
    let Some((step, message)) = last_inference(checkpoints) else {
        return NextAction::Infer { step: 1 };
    };
    let calls = tool_calls_of(message);
    let pending: Vec<ToolCall> =
        calls.iter().filter(|c| find_result(checkpoints, step, &c.id).is_none()).cloned().collect();
    if !pending.is_empty() {
        return pending_action(checkpoints, step, pending, agent);
    }
    // A person's message after the last answer asks for another one.
    if calls.is_empty() && !steered_after(checkpoints, step) {
        return NextAction::Succeed;
    }
    if step >= agent.max_steps {
        return NextAction::StepLimit { max_steps: agent.max_steps };
    }
    NextAction::Infer { step: step + 1 }
}

/// A pending call with the loop guard's verdict on it and how many
/// identical calls in a row it ends.
struct Judged {
    call: ToolCall,
    verdict: Verdict,
    repeats: u32,
}

/// What a step whose calls do not all have results does next: fail on a
/// loop, wait for a person, carry calls out, or wait for the client.
fn pending_action(checkpoints: &[Checkpoint], step: u32, pending: Vec<ToolCall>, agent: &Agent) -> NextAction {
    let person = !agent.approve_tools.is_empty();
    let judged: Vec<Judged> = pending
        .into_iter()
        .map(|call| {
            let repeats = guard::repeats(checkpoints, step, &call.id);
            Judged { verdict: guard::verdict(agent.guards.loop_guard, person, repeats), call, repeats }
        })
        .collect();
    if let Some(j) = judged.iter().find(|j| j.verdict == Verdict::Fail) {
        return NextAction::LoopDetected { step, name: j.call.name.clone(), repeats: j.repeats };
    }
    let undecided: Vec<&Judged> = judged
        .iter()
        .filter(|j| j.verdict == Verdict::AskPerson || approval::needs_approval(&agent.approve_tools, &j.call.name))
        .filter(|j| find_decision(checkpoints, step, &j.call.id).is_none())
        .collect();
    if !undecided.is_empty() {
        let repeated = undecided.iter().filter(|j| j.verdict == Verdict::AskPerson).map(|j| j.call.id.clone());
        let calls = undecided.iter().map(|j| j.call.clone()).collect();
        return NextAction::AwaitApproval { step, calls, repeated: repeated.collect() };
    }
    let Elsewhere { here, children, client } = carried_out_here(checkpoints, step, judged, agent);
    if !here.is_empty() {
        return NextAction::RunTools { step, calls: here };
    }
    let (started, unstarted): (Vec<ToolCall>, Vec<ToolCall>) =
        children.into_iter().partition(|c| child_of(checkpoints, step, &c.id).is_some());
    if !unstarted.is_empty() {
        return NextAction::StartChildren { step, calls: unstarted };
    }
    if !started.is_empty() {
        return NextAction::AwaitChildren { step };
    }
    NextAction::AwaitClient { step, calls: client }
}

/// A step's pending calls by who answers them.
struct Elsewhere {
    /// What the worker carries out: tools it runs, calls a person answered,
    /// calls the loop guard refused.
    here: Vec<Outcome>,
    /// Calls of sub-agents, answered by their runs.
    children: Vec<ToolCall>,
    /// Calls of client tools, which only the client can answer.
    client: Vec<ToolCall>,
}

/// The sub-agent run a call of `step` started, if it started one.
pub fn child_of<'a>(checkpoints: &'a [Checkpoint], step: u32, call_id: &str) -> Option<&'a str> {
    checkpoints.iter().find_map(|c| match &c.body {
        CheckpointBody::Child { call_id: id, run_id, .. } if c.step == step && id == call_id => Some(run_id.as_str()),
        _ => None,
    })
}

/// Splits a step's pending (decided or undecided-free) calls by who
/// answers them ([`Elsewhere`]).
fn carried_out_here(checkpoints: &[Checkpoint], step: u32, pending: Vec<Judged>, agent: &Agent) -> Elsewhere {
    let mut split = Elsewhere { here: Vec::new(), children: Vec::new(), client: Vec::new() };
    for Judged { call, verdict, repeats } in pending {
        if verdict == Verdict::Refuse {
            let output = guard::refusal(&call.name, repeats);
            split.here.push(Outcome::Answer { call, output, is_error: true });
            continue;
        }
        let decision = find_decision(checkpoints, step, &call.id);
        match approval::outcome(call, decision) {
            Outcome::Run(call) => match toolset::source_of(agent, &call.name) {
                Some(Source::Client) => split.client.push(call),
                Some(Source::Subagent) => split.children.push(call),
                _ => split.here.push(Outcome::Run(call)),
            },
            outcome => split.here.push(outcome),
        }
    }
    split
}

/// The checkpoints that deliver people's messages to a run at a step
/// boundary: the calls of the current step that have not run are closed
/// with an error result saying why (so the history stays valid), then each
/// message follows. Returns them with the IDs of the calls skipped.
pub fn steer(checkpoints: &[Checkpoint], messages: &[(u64, String)]) -> (Vec<Checkpoint>, Vec<ToolCall>) {
    let Some((step, message)) = last_inference(checkpoints) else {
        let steers = messages.iter().map(|(seq, m)| steer_checkpoint(0, *seq, m)).collect();
        return (steers, Vec::new());
    };
    let skipped: Vec<ToolCall> =
        tool_calls_of(message).into_iter().filter(|c| find_result(checkpoints, step, &c.id).is_none()).collect();
    let mut out: Vec<Checkpoint> = skipped
        .iter()
        .map(|c| Checkpoint {
            step,
            body: CheckpointBody::ToolResult {
                call_id: c.id.clone(),
                name: c.name.clone(),
                output: "not run: a person steered the run before this call started".into(),
                is_error: true,
            },
        })
        .collect();
    out.extend(messages.iter().map(|(seq, m)| steer_checkpoint(step, *seq, m)));
    (out, skipped)
}

fn steer_checkpoint(step: u32, seq: u64, message: &str) -> Checkpoint {
    Checkpoint { step, body: CheckpointBody::Steer { seq, message: message.to_string() } }
}

fn steered_after(checkpoints: &[Checkpoint], step: u32) -> bool {
    checkpoints.iter().any(|c| c.step == step && matches!(c.body, CheckpointBody::Steer { .. }))
}

fn find_decision<'a>(checkpoints: &'a [Checkpoint], step: u32, call_id: &str) -> Option<&'a Decision> {
    checkpoints.iter().find_map(|c| match &c.body {
        CheckpointBody::Decision { call_id: id, decision } if c.step == step && id == call_id => Some(decision),
        _ => None,
    })
}

/// How many provider calls for this run ended durably (answers and failures).
/// The scripted provider uses it to pick its next turn deterministically.
pub fn inference_calls(checkpoints: &[Checkpoint]) -> u32 {
    checkpoints
        .iter()
        .filter(|c| matches!(c.body, CheckpointBody::Inference { .. } | CheckpointBody::ProviderError { .. }))
        .count() as u32
}

/// How many provider failures were recorded for `step`.
pub fn provider_failures(checkpoints: &[Checkpoint], step: u32) -> u32 {
    checkpoints.iter().filter(|c| c.step == step && matches!(c.body, CheckpointBody::ProviderError { .. })).count()
        as u32
}

fn last_inference(checkpoints: &[Checkpoint]) -> Option<(u32, &Message)> {
    checkpoints
        .iter()
        .filter_map(|c| match &c.body {
            CheckpointBody::Inference { message, .. } => Some((c.step, message)),
            _ => None,
        })
        .max_by_key(|(step, _)| *step)
}

fn find_result<'a>(checkpoints: &'a [Checkpoint], step: u32, call_id: &str) -> Option<(&'a str, bool)> {
    checkpoints.iter().find_map(|c| match &c.body {
        CheckpointBody::ToolResult { call_id: id, output, is_error, .. } if c.step == step && id == call_id => {
            Some((output.as_str(), *is_error))
        }
        _ => None,
    })
}

/// The conversation a run has produced so far, after the session's history:
/// the user's message, then each step's assistant message and tool results.
/// Tool calls that have no result are left open, so this is only for a run in
/// progress; see [`summarize`] for the closed form written to the history.
pub fn conversation(input: &RunInput, checkpoints: &[Checkpoint]) -> Vec<Message> {
    build_conversation(input, checkpoints, None)
}

fn build_conversation(input: &RunInput, checkpoints: &[Checkpoint], close_with: Option<&str>) -> Vec<Message> {
    let mut steps: Vec<(u32, &Message)> = checkpoints
        .iter()
        .filter_map(|c| match &c.body {
            CheckpointBody::Inference { message, .. } => Some((c.step, message)),
            _ => None,
        })
        .collect();
    steps.sort_by_key(|(s, _)| *s);
    let mut messages = steers_at(checkpoints, 0);
    messages.push(Message::user_text(input.message.clone()));
    let last = steps.last().map_or(0, |(step, _)| *step);
    for (step, message) in steps {
        messages.extend(markers_at(checkpoints, step));
        let message = as_ran(checkpoints, step, message);
        let mut results = Vec::new();
        for call in tool_calls_of(&message) {
            match (find_result(checkpoints, step, &call.id), close_with) {
                (Some((output, is_error)), _) => results.push(Content::ToolResult {
                    tool_use_id: call.id.clone(),
                    content: output.to_string(),
                    is_error,
                }),
                (None, Some(reason)) => results.push(Content::ToolResult {
                    tool_use_id: call.id.clone(),
                    content: reason.to_string(),
                    is_error: true,
                }),
                (None, None) => {}
            }
        }
        messages.push(message);
        if !results.is_empty() {
            messages.push(Message { role: Role::Tool, content: results });
        }
        messages.extend(steers_at(checkpoints, step));
    }
    // Compactions before a step whose answer has not come yet.
    messages.extend(markers_after(checkpoints, last));
    messages
}

/// The compaction markers of the compactions done before `step`'s inference, in order.
fn markers_at(checkpoints: &[Checkpoint], step: u32) -> Vec<Message> {
    compactions(checkpoints, |s| s == step)
}

fn markers_after(checkpoints: &[Checkpoint], step: u32) -> Vec<Message> {
    compactions(checkpoints, |s| s > step)
}

fn compactions(checkpoints: &[Checkpoint], at: impl Fn(u32) -> bool) -> Vec<Message> {
    let mut found: Vec<(u32, &Marker)> = checkpoints
        .iter()
        .filter_map(|c| match &c.body {
            CheckpointBody::Compaction { index, marker, .. } if at(c.step) => Some((*index, marker)),
            _ => None,
        })
        .collect();
    found.sort_by_key(|(index, _)| *index);
    found.into_iter().map(|(_, marker)| marker.clone().message()).collect()
}

/// Whether the provider said `step`'s prompt was too long more often than
/// the run compacted for it: `Some` with the window it named, if it did.
pub fn unanswered_overflow(checkpoints: &[Checkpoint], step: u32) -> Option<Option<u64>> {
    let mut said = Vec::new();
    let mut answered = 0;
    for c in checkpoints.iter().filter(|c| c.step == step) {
        match &c.body {
            CheckpointBody::ProviderError { overflow: true, window, .. } => said.push(*window),
            CheckpointBody::Compaction { forced: true, .. } => answered += 1,
            _ => {}
        }
    }
    (said.len() > answered).then(|| said.last().copied().flatten())
}

/// How many times the run compacted because `step`'s prompt was too long.
pub fn forced_compactions(checkpoints: &[Checkpoint], step: u32) -> usize {
    checkpoints
        .iter()
        .filter(|c| c.step == step && matches!(c.body, CheckpointBody::Compaction { forced: true, .. }))
        .count()
}

/// Whether the run compacted after `step`'s answer.
pub fn compacted_after(checkpoints: &[Checkpoint], step: u32) -> bool {
    checkpoints.iter().any(|c| c.step > step && matches!(c.body, CheckpointBody::Compaction { .. }))
}

/// The run's last answer: its step, message and usage.
pub fn last_answer(checkpoints: &[Checkpoint]) -> Option<(u32, &Message, Usage)> {
    checkpoints
        .iter()
        .filter_map(|c| match &c.body {
            CheckpointBody::Inference { message, usage, .. } => Some((c.step, message, *usage)),
            _ => None,
        })
        .max_by_key(|(step, _, _)| *step)
}

/// How many compactions the run has done, and whether the newest came
/// after the last thing the conversation gained (an answer, a tool result,
/// a person's message), so that another would find nothing new. Read from
/// the steps, not the order of the list: a compaction before `step`'s
/// inference precedes everything of that step.
pub fn compactions_done(checkpoints: &[Checkpoint]) -> (u32, bool) {
    let compacted = checkpoints.iter().filter(|c| matches!(c.body, CheckpointBody::Compaction { .. }));
    let count = compacted.clone().count() as u32;
    let Some(newest) = compacted.map(|c| c.step).max() else { return (0, false) };
    let gained = checkpoints.iter().any(|c| {
        c.step >= newest
            && matches!(
                c.body,
                CheckpointBody::Inference { .. } | CheckpointBody::ToolResult { .. } | CheckpointBody::Steer { .. }
            )
    });
    (count, !gained)
}

/// People's messages delivered after `step`, in the order they were sent.
fn steers_at(checkpoints: &[Checkpoint], step: u32) -> Vec<Message> {
    let mut steers: Vec<(u64, &str)> = checkpoints
        .iter()
        .filter_map(|c| match &c.body {
            CheckpointBody::Steer { seq, message } if c.step == step => Some((*seq, message.as_str())),
            _ => None,
        })
        .collect();
    steers.sort_by_key(|(seq, _)| *seq);
    steers.into_iter().map(|(_, m)| Message::user_text(m.to_string())).collect()
}

/// What a finished run amounts to. The default is a run that got nowhere.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RunSummary {
    pub response: Option<String>,
    pub usage: Usage,
    pub steps: u32,
    pub tool_calls: Vec<ToolCallRecord>,
    /// Messages appended to the session history when the run ends.
    pub history: Vec<Message>,
    /// What the run spent, its sub-agents' runs included: a parent's budget
    /// covers what its children spent ([`crate::domain::guard::Spent`]).
    pub spent: guard::Spent,
}

/// Summarises a run that ends with `status`.
///
/// The history rule: a run that never got an answer from the provider leaves
/// nothing in the session history. Otherwise it leaves the user's message and
/// every checkpointed step; a tool call without a result (the run failed or was
/// cancelled before it ran) gets an error result saying so, so the history is
/// always valid for the next provider request.
pub fn summarize(input: &RunInput, checkpoints: &[Checkpoint], status: RunStatus) -> RunSummary {
    let mut usages = Vec::new();
    let mut steps = 0;
    let mut response = None;
    let mut tool_calls = Vec::new();
    let mut inferences: Vec<&Checkpoint> =
        checkpoints.iter().filter(|c| matches!(c.body, CheckpointBody::Inference { .. })).collect();
    inferences.sort_by_key(|c| c.step);
    for cp in &inferences {
        let CheckpointBody::Inference { message, usage: u, .. } = &cp.body else { continue };
        usages.push(*u);
        steps += 1;
        response = Some(storable_text(message.text()));
        for call in tool_calls_of(&as_ran(checkpoints, cp.step, message)) {
            let result = find_result(checkpoints, cp.step, &call.id);
            tool_calls.push(ToolCallRecord {
                step: cp.step,
                call_id: call.id,
                name: call.name,
                input: call.input,
                output: result.map(|(o, _)| o.to_string()),
                is_error: result.map(|(_, e)| e),
            });
        }
    }
    for c in checkpoints {
        if let CheckpointBody::Compaction { usage, .. } = &c.body {
            usages.push(*usage);
        }
    }
    let history = if inferences.is_empty() {
        // A compaction stays: the work it did is not lost with the run.
        markers_after(checkpoints, 0)
    } else {
        let reason = format!("tool call not run: the run ended {}", status.as_str());
        build_conversation(input, checkpoints, Some(&reason))
    };
    let spent = guard::Spent::of(checkpoints);
    RunSummary { response, usage: Usage::sum(&usages), steps, tool_calls, history, spent }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    fn agent(max_steps: u32, approve_tools: &[&str]) -> Agent {
        Agent {
            id: "a".into(),
            name: "a".into(),
            owner: crate::domain::model::first_admin(),
            shared: false,
            provider: "scripted".into(),
            model: "echo".into(),
            options: Default::default(),
            instructions: None,
            tools: vec!["bash".into()],
            output_schema: None,
            max_steps,
            guards: Default::default(),
            approve_tools: approve_tools.iter().map(|t| t.to_string()).collect(),
            http_tools: Vec::new(),
            client_tools: Vec::new(),
            mcp_servers: Vec::new(),
            reasoning: Default::default(),
            reasoning_byte_limit: crate::domain::model::DEFAULT_REASONING_BYTE_LIMIT,
            compaction: Default::default(),
            subagents: Vec::new(),
            max_depth: 3,
            webhook: None,
            concurrency: None,
            limits: None,
            version: 1,
            created_at: chrono::Utc::now(),
            updated_at: chrono::Utc::now(),
        }
    }

    fn call(id: &str) -> ToolCall {
        ToolCall { id: id.into(), name: "bash".into(), input: json!({"command": "true"}) }
    }

    fn decision(step: u32, id: &str, decision: Decision) -> Checkpoint {
        Checkpoint { step, body: CheckpointBody::Decision { call_id: id.into(), decision } }
    }

    fn input() -> RunInput {
        RunInput::new("hi", Default::default())
    }

    fn inference(step: u32, text: &str, calls: &[&str]) -> Checkpoint {
        let mut content = vec![Content::Text { text: text.into() }];
        for id in calls {
            content.push(Content::ToolUse { id: (*id).into(), name: "bash".into(), input: json!({"command": "true"}) });
        }
        Checkpoint {
            step,
            body: CheckpointBody::Inference {
                message: Message { role: Role::Assistant, content },
                usage: Usage { input_tokens: 2, output_tokens: 3, ..Default::default() },
                stop_reason: if calls.is_empty() { "end_turn".into() } else { "tool_use".into() },
            },
        }
    }

    fn result(step: u32, id: &str) -> Checkpoint {
        Checkpoint {
            step,
            body: CheckpointBody::ToolResult {
                call_id: id.into(),
                name: "bash".into(),
                output: "ok".into(),
                is_error: false,
            },
        }
    }

    #[test]
    fn client_tool_calls_wait_after_the_calls_the_worker_carries_out() {
        let mut a = agent(5, &["pick"]);
        a.client_tools = vec![crate::domain::toolset::ClientTool {
            name: "pick".into(),
            description: String::new(),
            input_schema: json!({"type": "object"}),
        }];
        let ask = |name: &str, id: &str| Content::ToolUse { id: id.into(), name: name.into(), input: json!({}) };
        let message = Message { role: Role::Assistant, content: vec![ask("pick", "p"), ask("bash", "b")] };
        let usage = Usage::default();
        let asked =
            Checkpoint { step: 1, body: CheckpointBody::Inference { message, usage, stop_reason: "tool_use".into() } };
        let mut cps = vec![asked];
        // Approval first, for the client tool too.
        assert!(matches!(next_action(&cps, &a), NextAction::AwaitApproval { calls, .. } if calls[0].id == "p"));
        cps.push(decision(1, "p", Decision::Approve));
        // The worker runs what it can, then the run waits for the client.
        assert!(
            matches!(next_action(&cps, &a), NextAction::RunTools { calls, .. } if calls.len() == 1 && calls[0].call().id == "b")
        );
        cps.push(result(1, "b"));
        assert!(matches!(next_action(&cps, &a), NextAction::AwaitClient { step: 1, calls } if calls[0].id == "p"));
        cps.push(result(1, "p"));
        assert_eq!(next_action(&cps, &a), NextAction::Infer { step: 2 });
        // A person who answers for the client spares the wait.
        let mut answered = cps[..2].to_vec();
        answered[1] = decision(1, "p", Decision::Respond { message: "blue".into() });
        answered.push(result(1, "b"));
        assert!(
            matches!(next_action(&answered, &a), NextAction::RunTools { calls, .. } if matches!(calls[0], Outcome::Answer { .. }))
        );
    }

    #[test]
    fn a_fresh_run_starts_with_inference() {
        assert_eq!(next_action(&[], &agent(5, &[])), NextAction::Infer { step: 1 });
    }

    #[test]
    fn pending_tool_calls_come_before_the_next_inference() {
        let cps = vec![inference(1, "", &["a", "b"]), result(1, "a")];
        match next_action(&cps, &agent(5, &[])) {
            NextAction::RunTools { step: 1, calls } => assert_eq!(calls, [Outcome::Run(call("b"))]),
            other => panic!("{other:?}"),
        }
        let cps = vec![inference(1, "", &["a", "b"]), result(1, "a"), result(1, "b")];
        assert_eq!(next_action(&cps, &agent(5, &[])), NextAction::Infer { step: 2 });
    }

    #[test]
    fn an_answer_without_tool_calls_succeeds() {
        let cps = vec![inference(1, "", &["a"]), result(1, "a"), inference(2, "done", &[])];
        assert_eq!(next_action(&cps, &agent(5, &[])), NextAction::Succeed);
    }

    #[test]
    fn the_step_limit_stops_a_runaway_loop() {
        let cps = vec![inference(1, "", &["a"]), result(1, "a"), inference(2, "", &["b"]), result(2, "b")];
        assert_eq!(next_action(&cps, &agent(2, &[])), NextAction::StepLimit { max_steps: 2 });
    }

    #[test]
    fn provider_failures_count_as_calls_but_not_as_steps() {
        let failure = Checkpoint {
            step: 1,
            body: CheckpointBody::ProviderError { attempt: 1, message: "429".into(), overflow: false, window: None },
        };
        let cps = vec![failure];
        assert_eq!(next_action(&cps, &agent(5, &[])), NextAction::Infer { step: 1 });
        assert_eq!(inference_calls(&cps), 1);
        assert_eq!(provider_failures(&cps, 1), 1);
        assert_eq!(summarize(&input(), &cps, RunStatus::Failed).steps, 0);
    }

    #[test]
    fn a_run_that_never_got_an_answer_leaves_no_history() {
        assert!(summarize(&input(), &[], RunStatus::Cancelled).history.is_empty());
    }

    #[test]
    fn an_interrupted_run_closes_its_open_tool_calls() {
        let cps = vec![inference(1, "working", &["a", "b"]), result(1, "a")];
        let summary = summarize(&input(), &cps, RunStatus::Cancelled);
        let last = summary.history.last().unwrap();
        assert_eq!(last.role, Role::Tool);
        assert_eq!(last.content.len(), 2, "every tool_use has its tool_result");
        match &last.content[1] {
            Content::ToolResult { tool_use_id, is_error, content } => {
                assert_eq!(tool_use_id, "b");
                assert!(is_error);
                assert!(content.contains("cancelled"));
            }
            other => panic!("{other:?}"),
        }
        // The in-progress conversation leaves them open: they are still to run.
        let open = conversation(&input(), &cps);
        assert_eq!(open.last().unwrap().content.len(), 1);
    }

    #[test]
    fn summary_adds_usage_and_lists_tool_calls() {
        let cps = vec![inference(1, "", &["a"]), result(1, "a"), inference(2, "final", &[])];
        let summary = summarize(&input(), &cps, RunStatus::Succeeded);
        assert_eq!(summary.usage, Usage { input_tokens: 4, output_tokens: 6, ..Default::default() });
        assert_eq!(summary.steps, 2);
        assert_eq!(summary.response.as_deref(), Some("final"));
        assert_eq!(summary.tool_calls[0].output.as_deref(), Some("ok"));
        assert_eq!(summary.history.len(), 4, "user, assistant, tool, assistant");
    }

    #[test]
    fn an_edited_call_is_recorded_and_sent_on_with_the_input_it_ran_with() {
        let edited = json!({"command": "uname -r"});
        let cps = vec![
            inference(1, "", &["a", "b"]),
            decision(1, "a", Decision::Edit { input: edited.clone() }),
            decision(1, "b", Decision::Approve),
            result(1, "a"),
            result(1, "b"),
            inference(2, "final", &[]),
        ];
        let asked = call("b").input;
        let summary = summarize(&input(), &cps, RunStatus::Succeeded);
        assert_eq!(summary.tool_calls[0].input, edited);
        assert_eq!(summary.tool_calls[1].input, asked, "an approved call keeps its input");
        let inputs =
            |messages: &[Message]| -> Vec<Value> { messages.iter().flat_map(tool_calls_of).map(|c| c.input).collect() };
        assert_eq!(inputs(&summary.history), vec![edited.clone(), asked.clone()], "the history");
        assert_eq!(inputs(&conversation(&input(), &cps)), vec![edited, asked], "the next request");
    }

    #[test]
    fn calls_that_need_a_person_wait_until_every_one_is_decided() {
        let bash = agent(5, &["bash"]);
        let cps = vec![inference(1, "", &["a", "b"])];
        assert_eq!(
            next_action(&cps, &bash),
            NextAction::AwaitApproval { step: 1, calls: vec![call("a"), call("b")], repeated: vec![] }
        );
        assert!(matches!(next_action(&cps, &agent(5, &[])), NextAction::RunTools { .. }), "no approval asked");
        let mut decided = cps.clone();
        decided.push(decision(1, "a", Decision::Reject { message: None }));
        assert_eq!(
            next_action(&decided, &bash),
            NextAction::AwaitApproval { step: 1, calls: vec![call("b")], repeated: vec![] }
        );
        decided.push(decision(1, "b", Decision::Edit { input: json!({"command": "ls"}) }));
        match next_action(&decided, &bash) {
            NextAction::RunTools { step: 1, calls } => {
                assert!(matches!(&calls[0], Outcome::Answer { is_error: true, .. }));
                assert_eq!(calls[1], Outcome::Run(ToolCall { input: json!({"command": "ls"}), ..call("b") }));
            }
            other => panic!("{other:?}"),
        }
        // A call that already has its result is not asked about again.
        decided.push(result(1, "a"));
        decided.push(result(1, "b"));
        assert_eq!(next_action(&decided, &bash), NextAction::Infer { step: 2 });
    }

    #[test]
    fn steering_closes_the_calls_not_run_and_asks_for_another_answer() {
        let cps = vec![inference(1, "", &["a", "b", "c"]), result(1, "a")];
        let (delivered, skipped) = steer(&cps, &[(7, "stop and summarise".into())]);
        assert_eq!(skipped, [call("b"), call("c")]);
        let mut all = cps.clone();
        all.extend(delivered);
        assert_eq!(next_action(&all, &agent(5, &["bash"])), NextAction::Infer { step: 2 });
        let conversation = conversation(&input(), &all);
        let last = conversation.last().unwrap();
        assert_eq!((last.role, last.text()), (Role::User, "stop and summarise".to_string()));
        assert_eq!(conversation[conversation.len() - 2].content.len(), 3, "every call has a result");
        // After a final answer, a person's message asks for one more.
        let done = vec![inference(1, "final", &[])];
        assert_eq!(next_action(&done, &agent(5, &[])), NextAction::Succeed);
        let (more, skipped) = steer(&done, &[(1, "and in French?".into())]);
        assert!(skipped.is_empty());
        let mut done = done;
        done.extend(more);
        assert_eq!(next_action(&done, &agent(5, &[])), NextAction::Infer { step: 2 });
    }

    fn compaction(step: u32, index: u32) -> Checkpoint {
        let marker = Marker {
            summary: Some(format!("summary {index}")),
            first_kept: 0,
            pruned_before: 0,
            tokens_before: 10,
            tokens_after: 5,
            pruned_results: 0,
            summarized_messages: 1,
        };
        let usage = Usage { input_tokens: 7, output_tokens: 2, ..Default::default() };
        Checkpoint { step, body: CheckpointBody::Compaction { index, marker, usage, forced: false } }
    }

    #[test]
    fn compactions_become_markers_where_they_happened() {
        let marker_text = |m: &Message| crate::domain::compaction::marker_of(m).and_then(|k| k.summary.clone());
        // Listed out of order, as a store may load them: steps decide.
        let cps = vec![inference(2, "done", &[]), result(1, "a"), compaction(2, 1), inference(1, "", &["a"])];
        let conversation = conversation(&input(), &cps);
        let kinds: Vec<Option<String>> = conversation.iter().map(marker_text).collect();
        assert_eq!(kinds, [None, None, None, Some("summary 1".into()), None], "user, call, result, marker, answer");
        assert_eq!(compactions_done(&cps), (1, false), "an answer came after it");
        let summary = summarize(&input(), &cps, RunStatus::Succeeded);
        assert_eq!(summary.usage.input_tokens, 2 + 2 + 7, "the summary's tokens count");
        assert_eq!(summary.history.len(), 5);
        // A run that compacted and never got its answer leaves its marker.
        let failed = vec![compaction(1, 1), compaction(1, 2)];
        assert_eq!(compactions_done(&failed), (2, true));
        let left = summarize(&input(), &failed, RunStatus::Failed).history;
        assert_eq!(
            left.iter().map(marker_text).collect::<Vec<_>>(),
            [Some("summary 1".into()), Some("summary 2".into())]
        );
    }

    #[test]
    fn an_overflow_is_answered_by_one_forced_compaction() {
        let overflow = |attempt| Checkpoint {
            step: 1,
            body: CheckpointBody::ProviderError {
                attempt,
                message: "too long".into(),
                overflow: true,
                window: Some(9),
            },
        };
        let mut cps = vec![overflow(1)];
        assert_eq!(unanswered_overflow(&cps, 1), Some(Some(9)));
        assert_eq!(unanswered_overflow(&cps, 2), None);
        let mut forced = compaction(1, 1);
        if let CheckpointBody::Compaction { forced: f, .. } = &mut forced.body {
            *f = true;
        }
        cps.push(forced);
        assert_eq!(unanswered_overflow(&cps, 1), None);
        assert_eq!(forced_compactions(&cps, 1), 1);
    }

    #[test]
    fn a_message_steered_before_the_run_started_comes_before_its_own() {
        let (delivered, _) = steer(&[], &[(1, "be brief".into())]);
        let conversation = conversation(&input(), &delivered);
        assert_eq!(conversation.iter().map(Message::text).collect::<Vec<_>>(), ["be brief", "hi"]);
        assert_eq!(next_action(&delivered, &agent(5, &[])), NextAction::Infer { step: 1 });
    }
}
