//! Built-in tools, run by the worker inside the session's work_dir.
//!
//! A tool never fails the run: whatever goes wrong becomes a result with
//! `is_error: true` that the model sees. File tools reach the filesystem
//! only through [`confine`], which has the kernel resolve every path beneath
//! the work_dir; webfetch and HTTP tools connect only to addresses
//! [`netpolicy`] allows (or hosts the operator allows, [`outside`]).
//! See `docs/tools.md` for each tool's inputs, limits and guarantees.

use std::path::PathBuf;
use std::sync::Arc;

use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::domain::model::{Agent, ToolCall, ToolSpec};
use crate::domain::shell::ShellState;
use crate::domain::toolset::{self, Source};

mod args;
pub mod bash;
pub mod confine;
pub mod edit;
pub mod glob;
pub mod grep;
pub mod html;
pub mod http;
pub mod mcp;
pub mod netpolicy;
pub mod output;
pub mod outside;
pub mod read;
pub mod sandbox;
pub mod signature;
mod specs;
mod walk;
pub mod webfetch;
pub mod write;

/// What a tool runs with.
#[derive(Debug, Clone)]
pub struct ToolContext {
    /// The session's working directory; every path a tool touches is inside it.
    pub work_dir: PathBuf,
    /// The tools the run's agent was given. A call to any other tool never
    /// runs, whatever the model answered.
    pub granted: Vec<String>,
    /// Fired when the run is cancelled or the worker gives the run up: a
    /// running tool stops at once (bash kills its process tree).
    pub cancel: CancellationToken,
    /// Lets webfetch and HTTP tools reach loopback, private, link-local and
    /// unique-local addresses: for trusted deployments and tests only.
    pub allow_private_network: bool,
    /// How tool processes are confined.
    pub sandbox: Arc<sandbox::SandboxConfig>,
    /// How HTTP tools are reached: the hosts the operator allows and the
    /// signing secret.
    pub outside: Arc<outside::OutsideConfig>,
    /// Variables the agent's `tool_env` option adds to bash's environment.
    pub env: Vec<(String, String)>,
    /// The run the calls belong to: with a call's ID, the idempotency key
    /// of a call made outside the worker (`<run_id>/<call_id>`).
    pub run_id: String,
    /// The worker's connections to MCP servers.
    pub mcp: Arc<mcp::McpPool>,
    /// The values of the secrets the agent's MCP servers name.
    pub secrets: Arc<mcp::Secrets>,
    /// The shell state bash starts from, and then reports in its result
    /// ([`ToolOutput::shell`]); `None` runs every command afresh in the
    /// work_dir and reports nothing.
    pub shell: Option<ShellState>,
}

impl ToolContext {
    /// A context for `work_dir` that grants every built-in tool, with its own
    /// cancel token, the safe network default and the default sandbox: for
    /// running tools directly. The worker grants the agent's tools only.
    pub fn new(work_dir: impl Into<PathBuf>) -> Self {
        ToolContext {
            work_dir: work_dir.into(),
            granted: NAMES.iter().map(|n| n.to_string()).collect(),
            cancel: CancellationToken::new(),
            allow_private_network: false,
            sandbox: Arc::default(),
            outside: Arc::default(),
            env: Vec::new(),
            run_id: String::new(),
            mcp: Arc::default(),
            secrets: Arc::default(),
            shell: None,
        }
    }

    /// The idempotency key of a call: the same for every attempt of it.
    pub fn idempotency_key(&self, call_id: &str) -> String {
        format!("{}/{}", self.run_id, call_id)
    }

    /// True if the agent was given the tool `name`.
    pub fn grants(&self, name: &str) -> bool {
        self.granted.iter().any(|g| g == name)
    }
}

/// The result the model sees.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolOutput {
    /// The text shown to the model.
    pub output: String,
    /// True when the tool failed; the model sees the failure and may retry.
    pub is_error: bool,
    /// The shell state a bash call left, when it carries one
    /// ([`ToolContext::shell`]) and could read the shell's after the command.
    pub shell: Option<ShellState>,
}

impl ToolOutput {
    /// A successful result.
    pub fn ok(output: impl Into<String>) -> Self {
        ToolOutput { output: output.into(), is_error: false, shell: None }
    }

    /// A failed result.
    pub fn error(output: impl Into<String>) -> Self {
        ToolOutput { output: output.into(), is_error: true, shell: None }
    }
}

/// The names of every built-in tool.
pub const NAMES: &[&str] = &["bash", "read", "write", "edit", "glob", "grep", "webfetch"];

/// True if `name` is a built-in tool.
pub fn is_known(name: &str) -> bool {
    NAMES.contains(&name)
}

/// True for tools that change nothing, which may run concurrently.
pub fn is_read_only(name: &str) -> bool {
    matches!(name, "read" | "glob" | "grep" | "webfetch")
}

/// The description of a tool given to the model: what it does, its limits,
/// and a JSON schema of its input.
pub fn spec(name: &str) -> Option<ToolSpec> {
    specs::spec(name)
}

/// A tool a run is offered: where it comes from and what the model is told.
#[derive(Debug, Clone, PartialEq)]
pub struct Offered {
    pub source: Source,
    pub spec: ToolSpec,
}

/// Every tool the agent's runs are offered, in the order the model sees
/// them: built-in tools, then HTTP tools, client tools and sub-agents.
pub fn offered(agent: &Agent) -> Vec<Offered> {
    let builtin = agent.tools.iter().filter_map(|t| spec(t)).map(|spec| Offered { source: Source::Builtin, spec });
    let http = agent.http_tools.iter().map(|t| Offered {
        source: Source::Http,
        spec: ToolSpec {
            name: t.name.clone(),
            description: t.description.clone(),
            input_schema: t.input_schema.clone(),
        },
    });
    let client = agent.client_tools.iter().map(|t| Offered {
        source: Source::Client,
        spec: ToolSpec {
            name: t.name.clone(),
            description: t.description.clone(),
            input_schema: t.input_schema.clone(),
        },
    });
    let subagents =
        agent.subagents.iter().map(|s| Offered { source: Source::Subagent, spec: crate::domain::subagent::spec(s) });
    builtin.chain(http).chain(client).chain(subagents).collect()
}

/// Runs a tool by name, if the context grants it: a call to a tool the
/// agent was not given is refused here, where tools execute, and never runs.
pub async fn run(name: &str, input: &Value, ctx: &ToolContext) -> ToolOutput {
    if !ctx.grants(name) {
        return ToolOutput::error(not_granted(name, &ctx.granted));
    }
    if !input.is_object() {
        return ToolOutput::error(format!("the input of {name} must be a JSON object"));
    }
    if let Err(e) = sandbox::check_work_dir(&ctx.work_dir, &ctx.sandbox.protected) {
        return ToolOutput::error(e);
    }
    match name {
        "bash" => bash::run(input, ctx).await,
        "read" => read::run(input, ctx).await,
        "write" => write::run(input, ctx).await,
        "edit" => edit::run(input, ctx).await,
        "glob" => glob::run(input, ctx).await,
        "grep" => grep::run(input, ctx).await,
        "webfetch" => webfetch::run(input, ctx).await,
        other => ToolOutput::error(format!("unknown tool {other:?} (known: {})", NAMES.join(", "))),
    }
}

/// Carries out a call of the run's agent, whatever the tool's source: a
/// built-in tool runs here, an HTTP or MCP tool is called; a client tool is
/// never run by the worker (the run waits for the client instead). A tool
/// the agent does not declare is refused here and never runs.
pub async fn call(call: &ToolCall, agent: &Agent, ctx: &ToolContext) -> ToolOutput {
    let refused = || ToolOutput::error(not_granted(&call.name, &toolset::declared_names(agent)));
    match toolset::source_of(agent, &call.name) {
        None => refused(),
        Some(Source::Builtin) => run(&call.name, &call.input, ctx).await,
        Some(Source::Http) => match agent.http_tools.iter().find(|t| t.name == call.name) {
            Some(tool) => http::call(tool, call, ctx).await,
            None => refused(),
        },
        Some(Source::Mcp) => match toolset::mcp_server_of(agent, &call.name) {
            Some((server, tool)) => {
                let key = ctx.idempotency_key(&call.id);
                ctx.mcp.call(server, &ctx.secrets, tool, &call.input, &key, &ctx.cancel).await
            }
            None => refused(),
        },
        Some(Source::Client) => ToolOutput::error(format!("{} is run by the client, not the worker", call.name)),
        Some(Source::Subagent) => ToolOutput::error(format!("{} is answered by a sub-agent's run", call.name)),
    }
}

/// The refusal of a call to a tool the agent was not given.
fn not_granted(name: &str, granted: &[String]) -> String {
    let has = if granted.is_empty() { "none".to_string() } else { granted.join(", ") };
    format!("tool {name:?} is not granted to this agent (its tools: {has}); the call was not run")
}

/// Checks an agent's `tool_env` option: an object of variable names to
/// string values that bash's environment gets on top of the allowlist.
pub fn check_tool_env(value: &Value) -> Result<Vec<(String, String)>, String> {
    let vars = value.as_object().ok_or("options.tool_env must be an object of variable names to strings")?;
    let mut env = Vec::with_capacity(vars.len());
    for (name, value) in vars {
        if !toolset::is_variable_name(name) {
            return Err(format!("options.tool_env: {name:?} is not a variable name ([A-Za-z_][A-Za-z0-9_]*)"));
        }
        if name.starts_with("WINGMAN_") {
            return Err(format!("options.tool_env: {name} is Wingman's own setting and is never passed to tools"));
        }
        match value.as_str() {
            Some(v) if !v.contains('\0') => env.push((name.clone(), v.to_string())),
            _ => return Err(format!("options.tool_env.{name} must be a string without NUL bytes")),
        }
    }
    Ok(env)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn only_tools_that_change_nothing_are_read_only() {
        let read_only: Vec<&str> = NAMES.iter().copied().filter(|n| is_read_only(n)).collect();
        assert_eq!(read_only, ["read", "glob", "grep", "webfetch"]);
        assert!(NAMES.iter().all(|n| is_known(n)) && !is_known("rm"));
    }

    #[test]
    fn every_named_tool_has_an_object_schema_whose_required_fields_exist() {
        for name in NAMES {
            let spec = spec(name).unwrap_or_else(|| panic!("{name} has no spec"));
            let schema = &spec.input_schema;
            assert_eq!(schema["type"], "object", "{name}");
            for field in schema["required"].as_array().unwrap() {
                assert!(schema["properties"].get(field.as_str().unwrap()).is_some(), "{name}: {field}");
            }
        }
        assert!(spec("nope").is_none());
    }

    #[tokio::test]
    async fn unknown_tools_and_non_object_inputs_are_errors() {
        let ctx = ToolContext::new(std::env::temp_dir());
        assert!(run("nope", &json!({}), &ctx).await.is_error);
        assert!(run("read", &json!("x"), &ctx).await.output.contains("JSON object"));
    }

    #[tokio::test]
    async fn a_tool_the_context_does_not_grant_never_runs() {
        let dir = std::env::temp_dir().join(format!("wingman-grant-{}", crate::domain::model::new_id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut ctx = ToolContext::new(&dir);
        ctx.granted = vec!["read".into()];
        let out = run("write", &json!({"path": "x.txt", "content": "hi"}), &ctx).await;
        assert!(out.is_error && out.output.contains("\"write\" is not granted"), "{}", out.output);
        assert!(out.output.contains("its tools: read"), "{}", out.output);
        assert!(!dir.join("x.txt").exists(), "nothing ran");
        ctx.granted.clear();
        assert!(run("read", &json!({"path": "x.txt"}), &ctx).await.output.contains("its tools: none"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn tool_env_takes_plain_names_and_strings_only() {
        let env = check_tool_env(&json!({"GIT_AUTHOR_NAME": "agent", "_X1": ""})).unwrap();
        assert_eq!(env.len(), 2);
        for bad in [
            json!([]),
            json!({"1X": "a"}),
            json!({"A-B": "a"}),
            json!({"WINGMAN_AUTH_TOKEN": "t"}),
            json!({"A": 1}),
            json!({"A": "x\u{0}y"}),
        ] {
            assert!(check_tool_env(&bad).is_err(), "{bad}");
        }
    }
}
