//! Sub-agents: an agent that hands tasks to other agents, as domain rules.
//!
//! An agent's `subagents` are offered to its model as tools named
//! `agent__<name>`. A step's calls of them start child runs (kind
//! `subagent`), each in a session of its own, in the parent's commit that
//! parks it: the parent then waits, holding no worker, like a run waiting
//! for a person. A child's end writes its answer into the parent as the
//! call's result in the transaction that ends the child
//! ([`crate::domain::lifecycle::child_ended`]), and the last one queues the parent
//! again. Nothing here touches a database: the engine plans the children
//! with [`plan`], and both backends persist what the rules decide.

use serde_json::{json, Value};

use crate::domain::guard::{Budget, Spent};
use crate::domain::model::{Agent, RunInput, RunStatus, ToolCall, ToolSpec};
pub use crate::domain::model::{ParentCall, Subagent, DEFAULT_MAX_DEPTH};

/// The prefix of the tool names that call sub-agents.
pub const TOOL_PREFIX: &str = "agent__";
/// The deepest nesting an agent may allow.
pub const MAX_MAX_DEPTH: u32 = 10;
/// The longest sub-agent name: `agent__<name>` stays within what providers accept.
pub const MAX_NAME_LEN: usize = crate::domain::toolset::MAX_NAME_LEN - TOOL_PREFIX.len();
/// The longest task a call may hand over, in bytes: a message's limit.
pub const MAX_TASK_BYTES: usize = 256 * 1024;

/// The tool name a sub-agent is called by.
pub fn tool_name(name: &str) -> String {
    format!("{TOOL_PREFIX}{name}")
}

/// The sub-agent a tool name calls, if the agent has it.
pub fn subagent_of<'a>(agent: &'a Agent, tool: &str) -> Option<&'a Subagent> {
    let name = tool.strip_prefix(TOOL_PREFIX)?;
    agent.subagents.iter().find(|s| s.name == name)
}

/// What the model is told of a sub-agent's tool.
pub fn spec(subagent: &Subagent) -> ToolSpec {
    let description = if subagent.description.is_empty() {
        format!("Hands a task to the agent {:?} and answers with its response.", subagent.name)
    } else {
        subagent.description.clone()
    };
    ToolSpec {
        name: tool_name(&subagent.name),
        description,
        input_schema: json!({
            "type": "object",
            "properties": {
                "task": {"type": "string", "description": "What the agent is asked to do, in full: it sees nothing else of this conversation."},
                "data": {"type": "object", "description": "Structured input for the task, if any."}
            },
            "required": ["task"]
        }),
    }
}

/// Checks an agent's sub-agents as given (names already filled in, see
/// [`fill_name`]): valid, unique names, and a `max_depth` in range.
pub fn check(agent: &Agent) -> Result<(), String> {
    check_max_depth(agent.max_depth)?;
    let mut seen: Vec<&str> = Vec::new();
    for sub in &agent.subagents {
        check_name(&sub.name)?;
        if seen.contains(&sub.name.as_str()) {
            return Err(format!("subagents: the name {:?} is declared twice", sub.name));
        }
        seen.push(&sub.name);
    }
    if !agent.subagents.is_empty() && agent.mcp_servers.iter().any(|s| s.name == "agent") {
        return Err("mcp_servers: the server name \"agent\" is reserved for sub-agents' tools".into());
    }
    Ok(())
}

/// Checks an agent's `max_depth`: from 1 to [`MAX_MAX_DEPTH`].
pub fn check_max_depth(max_depth: u32) -> Result<(), String> {
    if (1..=MAX_MAX_DEPTH).contains(&max_depth) {
        Ok(())
    } else {
        Err(format!("max_depth must be between 1 and {MAX_MAX_DEPTH}"))
    }
}

fn check_name(name: &str) -> Result<(), String> {
    let valid = !name.is_empty()
        && name.len() <= MAX_NAME_LEN
        && !name.contains("__")
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b"_-".contains(&b));
    if valid {
        Ok(())
    } else {
        Err(format!(
            "subagents: {name:?} is not a sub-agent name ([A-Za-z0-9_-] without \"__\", 1 to {MAX_NAME_LEN} characters)"
        ))
    }
}

/// A sub-agent's name when the client gave none: its agent's name, if that
/// is a valid one.
pub fn fill_name(subagent: &mut Subagent, agent_name: &str) -> Result<(), String> {
    if !subagent.name.is_empty() {
        return Ok(());
    }
    if check_name(agent_name).is_err() {
        return Err(format!(
            "subagents: the agent {} is named {agent_name:?}, which is not a tool name; give the sub-agent a \"name\"",
            subagent.agent_id
        ));
    }
    subagent.name = agent_name.to_string();
    Ok(())
}

/// The task a call hands over: `{"task": string, "data"?: object}`.
#[derive(Debug, Clone, PartialEq)]
pub struct Task {
    pub task: String,
    pub data: Option<Value>,
}

/// Reads a call's input as a task, or says what is wrong with it.
pub fn task_of(input: &Value) -> Result<Task, String> {
    let Some(object) = input.as_object() else { return Err("the input must be an object".into()) };
    if let Some(key) = object.keys().find(|k| !matches!(k.as_str(), "task" | "data")) {
        return Err(format!("unknown input field {key:?}: the input is {{\"task\", \"data\"?}}"));
    }
    let task = match object.get("task") {
        Some(Value::String(task)) if !task.trim().is_empty() => task.clone(),
        _ => return Err("\"task\" must be a non-empty string".into()),
    };
    if task.len() > MAX_TASK_BYTES {
        return Err(format!("\"task\" is longer than {MAX_TASK_BYTES} bytes"));
    }
    let data = match object.get("data") {
        None | Some(Value::Null) => None,
        Some(data @ Value::Object(_)) => Some(data.clone()),
        Some(_) => return Err("\"data\" must be an object".into()),
    };
    Ok(Task { task, data })
}

/// How deep a run nests (0 for a run a client submitted) and the deepest
/// its tree allows.
pub fn lineage(agent: &Agent, input: &RunInput) -> (u32, u32) {
    match &input.parent {
        Some(parent) => (parent.depth, parent.max_depth),
        None => (0, agent.max_depth),
    }
}

/// A call of a sub-agent, as the parent's commit carries it out.
#[derive(Debug, Clone, PartialEq)]
pub enum Start {
    /// Start a child run: its input (with its [`ParentCall`]).
    Child { call: ToolCall, agent_id: String, input: Box<RunInput> },
    /// The call is answered at once with an error and starts nothing.
    Refused { call: ToolCall, output: String },
}

/// What the parent knows when a step's sub-agent calls start.
#[derive(Debug, Clone, Copy)]
pub struct Parent<'a> {
    pub run_id: &'a str,
    pub agent: &'a Agent,
    pub input: &'a RunInput,
    /// What the parent (and the children that ended) spent so far.
    pub spent: Spent,
}

/// Plans the sub-agent calls of `step`: a child for each valid call of a
/// sub-agent whose agent still exists (`exists`), a refusal for the others.
/// Children share what is left of the parent's budget equally, so that
/// together they cannot spend past it.
pub fn plan(parent: Parent, step: u32, calls: &[ToolCall], exists: impl Fn(&str) -> bool) -> Vec<Start> {
    let (depth, max_depth) = lineage(parent.agent, parent.input);
    let mut starts: Vec<Start> = calls.iter().map(|call| judge(parent, call, depth, max_depth, &exists)).collect();
    let children = starts.iter().filter(|s| matches!(s, Start::Child { .. })).count();
    let (usd, tokens) = share(Budget::of(parent.agent, parent.input), parent.spent, children);
    for start in &mut starts {
        if let Start::Child { call, input, .. } = start {
            input.max_cost_usd = usd;
            input.max_total_tokens = tokens;
            input.parent = Some(ParentCall {
                run_id: parent.run_id.to_string(),
                call_id: call.id.clone(),
                step,
                tool: call.name.clone(),
                depth: depth + 1,
                max_depth,
            });
        }
    }
    starts
}

/// What becomes of one call: a child carrying what its parent carries, or a refusal.
fn judge(parent: Parent, call: &ToolCall, depth: u32, max_depth: u32, exists: &impl Fn(&str) -> bool) -> Start {
    let agent = parent.agent;
    let refuse = |output: String| Start::Refused { call: call.clone(), output };
    let Some(subagent) = subagent_of(agent, &call.name) else {
        return refuse(format!("{} is not a sub-agent of this agent; the call was not run", call.name));
    };
    if depth + 1 > max_depth {
        return refuse(format!(
            "max_depth reached: this run is at depth {depth} and may not start a sub-agent (max_depth {max_depth})"
        ));
    }
    if !exists(&subagent.agent_id) {
        return refuse(format!("the sub-agent's agent {} no longer exists; the call was not run", subagent.agent_id));
    }
    match task_of(&call.input) {
        Ok(task) => Start::Child {
            call: call.clone(),
            agent_id: subagent.agent_id.clone(),
            input: Box::new(RunInput { data: task.data, ..RunInput::new(task.task, parent.input.carried.inherited()) }),
        },
        Err(e) => refuse(format!("invalid input for {}: {e}", call.name)),
    }
}

/// What each of `children` may spend: an equal part of what is left of
/// `budget` after `spent` (`None` where the budget sets no limit).
pub fn share(budget: Budget, spent: Spent, children: usize) -> (Option<f64>, Option<u64>) {
    let n = children.max(1);
    let usd = budget.max_cost_usd.map(|limit| ((limit - spent.usd) / n as f64).max(f64::MIN_POSITIVE));
    let tokens = budget.max_total_tokens.map(|limit| (limit.saturating_sub(spent.tokens) / n as u64).max(1));
    (usd, tokens)
}

/// The result a parent's call gets from its child's end: the response, or
/// an error that says how the child ended.
pub fn result_of(run_id: &str, status: RunStatus, response: Option<&str>, error: Option<&str>) -> (String, bool) {
    match status {
        RunStatus::Succeeded => (response.unwrap_or_default().to_string(), false),
        status => {
            let why = error.map(|e| format!(": {e}")).unwrap_or_default();
            (format!("the sub-agent's run {run_id} ended {}{why}", status.as_str()), true)
        }
    }
}

#[cfg(test)]
mod tests;
