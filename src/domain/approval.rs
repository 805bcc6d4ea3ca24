//! People's decisions on tool calls that wait for approval, as domain rules.
//!
//! An agent's `approve_tools` names tools whose calls wait for a person. A
//! decision is stored as a checkpoint of the step it answers
//! ([`crate::domain::checkpoint::CheckpointBody::Decision`]), so the step machine
//! reads it like any other progress: an approved call runs, an edited one
//! runs with the person's input, a rejected one gets an error result, and a
//! `respond` gives the person's message as the result without running.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::domain::model::ToolCall;
use crate::domain::toolset;

/// What a person decided about one tool call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "decision", rename_all = "snake_case")]
pub enum Decision {
    /// Run the call as the model asked.
    Approve,
    /// Do not run it; the model is told it was rejected, with the message.
    Reject {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        message: Option<String>,
    },
    /// Run it with this input instead.
    Edit { input: Value },
    /// Do not run it; the message is its result.
    Respond { message: String },
}

/// A call waiting for a person, as events and answers show it:
/// `{"call_id", "name", "input", "reason"?}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct WaitingCall {
    pub call_id: String,
    pub name: String,
    pub input: Value,
    /// Why a person is asked when `approve_tools` alone would not ask:
    /// `repeated_call` for a call the loop guard stopped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// The `reason` of a waiting call that repeats the calls before it.
pub const REPEATED_CALL: &str = "repeated_call";

impl From<&ToolCall> for WaitingCall {
    fn from(call: &ToolCall) -> Self {
        WaitingCall { call_id: call.id.clone(), name: call.name.clone(), input: call.input.clone(), reason: None }
    }
}

/// A decision with the call it answers, as events and answers show it:
/// `{"call_id", "decision", "input"?, "original_input"?, "message"?}`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Decided {
    pub call_id: String,
    #[serde(flatten)]
    pub decision: Decision,
    /// For an edit: the input the model asked for, which did not run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub original_input: Option<Value>,
}

impl Decided {
    /// The record of `decision` on `call`.
    pub fn of(call: &ToolCall, decision: Decision) -> Decided {
        let original_input = matches!(decision, Decision::Edit { .. }).then(|| call.input.clone());
        Decided { call_id: call.id.clone(), decision, original_input }
    }
}

/// One decision as a client sends it: `{"call_id", "decision", "input"?, "message"?}`.
#[derive(Debug, Clone, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct DecisionRequest {
    /// A call of the run's `approval_requested` event.
    pub call_id: String,
    /// `approve`, `edit` (with `input`), `reject` (with `message`, optional)
    /// or `respond` (with `message`).
    #[schema(pattern = "^(approve|edit|reject|respond)$")]
    pub decision: String,
    /// For `edit`: the JSON object the call runs with instead.
    #[serde(default)]
    pub input: Option<Value>,
    /// For `reject` and `respond`.
    #[serde(default)]
    pub message: Option<String>,
}

/// Whether calls to `tool` wait for a person under these `approve_tools`
/// (`*`, a name, or a prefix pattern such as `server__*`).
pub fn needs_approval(approve_tools: &[String], tool: &str) -> bool {
    approve_tools.iter().any(|pattern| toolset::pattern_covers(pattern, tool))
}

/// How a decided call is carried out: run it (with this input), or answer
/// it without running.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    Run(ToolCall),
    Answer { call: ToolCall, output: String, is_error: bool },
}

impl Outcome {
    /// The call, with the input it runs with.
    pub fn call(&self) -> &ToolCall {
        match self {
            Outcome::Run(call) | Outcome::Answer { call, .. } => call,
        }
    }
}

/// Applies a decision (or none, for a call that needs none) to a call.
pub fn outcome(call: ToolCall, decision: Option<&Decision>) -> Outcome {
    match decision {
        None | Some(Decision::Approve) => Outcome::Run(call),
        Some(Decision::Edit { input }) => Outcome::Run(ToolCall { input: input.clone(), ..call }),
        Some(Decision::Reject { message }) => {
            let output = match message {
                Some(m) => format!("a person rejected this tool call: {m}"),
                None => "a person rejected this tool call".to_string(),
            };
            Outcome::Answer { call, output, is_error: true }
        }
        Some(Decision::Respond { message }) => Outcome::Answer { call, output: message.clone(), is_error: false },
    }
}

/// Checks a client's decisions against the calls waiting for one: every
/// waiting call decided exactly once, no other call named, and each
/// decision well formed. Returns the decisions in the calls' order.
pub fn validate(waiting: &[ToolCall], requests: Vec<DecisionRequest>) -> Result<Vec<(String, Decision)>, String> {
    let mut decided: Vec<(String, Decision)> = Vec::new();
    for request in requests {
        if !waiting.iter().any(|c| c.id == request.call_id) {
            return Err(format!("call_id {} is not waiting for a decision", request.call_id));
        }
        if decided.iter().any(|(id, _)| *id == request.call_id) {
            return Err(format!("call_id {} is decided twice", request.call_id));
        }
        let call_id = request.call_id.clone();
        decided.push((call_id, parse(request)?));
    }
    let missing: Vec<&str> =
        waiting.iter().filter(|c| !decided.iter().any(|(id, _)| *id == c.id)).map(|c| c.id.as_str()).collect();
    if !missing.is_empty() {
        return Err(format!("every waiting call needs a decision; missing: {}", missing.join(", ")));
    }
    decided.sort_by_key(|(id, _)| waiting.iter().position(|c| c.id == *id));
    Ok(decided)
}

fn parse(request: DecisionRequest) -> Result<Decision, String> {
    let id = &request.call_id;
    match request.decision.as_str() {
        "approve" => Ok(Decision::Approve),
        "reject" => Ok(Decision::Reject { message: request.message }),
        "edit" => match request.input {
            Some(input @ Value::Object(_)) => Ok(Decision::Edit { input }),
            Some(_) => Err(format!("call_id {id}: an edit's input must be a JSON object")),
            None => Err(format!("call_id {id}: an edit needs the new input")),
        },
        "respond" => match request.message {
            Some(message) => Ok(Decision::Respond { message }),
            None => Err(format!("call_id {id}: respond needs a message")),
        },
        other => Err(format!("call_id {id}: unknown decision {other:?} (approve, reject, edit or respond)")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn call(id: &str) -> ToolCall {
        ToolCall { id: id.into(), name: "bash".into(), input: json!({"command": "true"}) }
    }

    fn request(id: &str, decision: &str) -> DecisionRequest {
        DecisionRequest { call_id: id.into(), decision: decision.into(), input: None, message: None }
    }

    #[test]
    fn every_waiting_call_is_decided_once_and_nothing_else() {
        let waiting = [call("a"), call("b")];
        let ok = validate(&waiting, vec![request("b", "approve"), request("a", "reject")]).unwrap();
        assert_eq!(ok.iter().map(|(id, _)| id.as_str()).collect::<Vec<_>>(), ["a", "b"], "in the calls' order");
        assert!(validate(&waiting, vec![request("a", "approve")]).unwrap_err().contains("missing: b"));
        assert!(validate(&waiting, vec![request("a", "approve"), request("a", "approve"), request("b", "approve")])
            .unwrap_err()
            .contains("twice"));
        assert!(validate(&waiting, vec![request("zz", "approve")]).unwrap_err().contains("not waiting"));
        assert!(validate(&waiting, vec![request("a", "maybe"), request("b", "approve")])
            .unwrap_err()
            .contains("unknown decision"));
    }

    #[test]
    fn edits_need_an_object_and_responses_a_message() {
        let waiting = [call("a")];
        assert!(validate(&waiting, vec![request("a", "edit")]).is_err());
        let mut edit = request("a", "edit");
        edit.input = Some(json!("rm -rf /"));
        assert!(validate(&waiting, vec![edit]).is_err());
        let mut edit = request("a", "edit");
        edit.input = Some(json!({"command": "echo hi"}));
        assert_eq!(
            validate(&waiting, vec![edit]).unwrap()[0].1,
            Decision::Edit { input: json!({"command": "echo hi"}) }
        );
        assert!(validate(&waiting, vec![request("a", "respond")]).is_err());
    }

    #[test]
    fn outcomes_follow_the_decision() {
        assert_eq!(outcome(call("a"), None), Outcome::Run(call("a")));
        let edited = outcome(call("a"), Some(&Decision::Edit { input: json!({"command": "ls"}) }));
        assert_eq!(edited, Outcome::Run(ToolCall { input: json!({"command": "ls"}), ..call("a") }));
        match outcome(call("a"), Some(&Decision::Reject { message: Some("no".into()) })) {
            Outcome::Answer { output, is_error: true, .. } => assert!(output.ends_with(": no")),
            other => panic!("{other:?}"),
        }
        assert!(needs_approval(&["*".into()], "read"));
        assert!(needs_approval(&["bash".into()], "bash"));
        assert!(!needs_approval(&["bash".into()], "read"));
    }
}
