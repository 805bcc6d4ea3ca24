//! The tools an agent declares beyond the built-in ones, as domain values.
//!
//! An agent reaches tools in more ways than the seven built-in names: HTTP
//! tools (a service of the user's, called by the worker) and client tools
//! (run by the client while the run waits, holding no worker). A session may
//! add to its agent's tools ([`ToolAdditions`]); a run's agent snapshot holds
//! the sum. Declaring a tool grants it: whatever its source, a call goes
//! through the same grant check, approvals, events and checkpoints.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::domain::model::{Agent, ToolCall};
pub use crate::domain::model::{
    ClientTool, HttpTool, McpServer, Setting, ToolAdditions, DEFAULT_HTTP_TIMEOUT_MS, DEFAULT_MCP_TIMEOUT_MS,
};

/// The longest tool name providers accept.
pub const MAX_NAME_LEN: usize = 64;
/// The longest timeout an HTTP tool may set: ten minutes.
pub const MAX_HTTP_TIMEOUT_MS: u64 = 600_000;

/// The longest timeout an MCP server may set: an hour.
pub const MAX_MCP_TIMEOUT_MS: u64 = 3_600_000;
/// The longest MCP server name, so that `<server>__<tool>` leaves room for the tool.
pub const MAX_SERVER_NAME_LEN: usize = 24;

/// What names a server's definition wherever it is declared (secrets by
/// name, never their values): the digest of its JSON. Runs of any agent
/// that declares the same server share its listing.
pub fn definition_key(server: &McpServer) -> String {
    use sha2::{Digest, Sha256};
    let json = serde_json::to_string(server).unwrap_or_default();
    format!("{:x}", Sha256::digest(json.as_bytes()))
}

/// The names of the secrets these servers refer to, each once.
pub fn secret_names(servers: &[McpServer]) -> Vec<String> {
    let mut names: Vec<String> = servers.iter().flat_map(McpServer::secret_names).collect();
    names.sort();
    names.dedup();
    names
}

/// The name a model calls an MCP server's tool by: `<server>__<tool>`.
pub fn mcp_tool_name(server: &str, tool: &str) -> String {
    format!("{server}__{tool}")
}

/// A client's result for one call of a client tool: `{"call_id", "output",
/// "is_error"?}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ClientResult {
    /// A call of the run's `tool_calls_requested` event.
    pub call_id: String,
    /// What the model is told the tool answered.
    pub output: String,
    /// True when the tool failed; the model sees the failure.
    #[serde(default)]
    pub is_error: bool,
}

/// Checks a client's results against the calls the run waits on: every
/// waiting call answered exactly once, and no other call. Returns them in
/// the calls' order.
pub fn check_results(waiting: &[ToolCall], results: Vec<ClientResult>) -> Result<Vec<ClientResult>, String> {
    let mut answered: Vec<ClientResult> = Vec::with_capacity(results.len());
    for result in results {
        if !waiting.iter().any(|c| c.id == result.call_id) {
            return Err(format!("call_id {} is not a call waiting for a client's result", result.call_id));
        }
        if answered.iter().any(|r| r.call_id == result.call_id) {
            return Err(format!("call_id {} is answered twice", result.call_id));
        }
        answered.push(result);
    }
    let missing: Vec<&str> =
        waiting.iter().filter(|c| !answered.iter().any(|r| r.call_id == c.id)).map(|c| c.id.as_str()).collect();
    if !missing.is_empty() {
        return Err(format!("every waiting call needs a result; missing: {}", missing.join(", ")));
    }
    answered.sort_by_key(|r| waiting.iter().position(|c| c.id == r.call_id));
    Ok(answered)
}

/// Where a tool comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// One of the seven tools the worker runs itself.
    Builtin,
    /// An HTTP tool: the worker calls the user's service.
    Http,
    /// A client tool: the client runs it while the run waits.
    Client,
    /// A tool of one of the agent's MCP servers.
    Mcp,
    /// A sub-agent (`agent__<name>`): its run answers the call while the run waits.
    Subagent,
}

impl Source {
    /// The source's name, as `GET /agents/{id}/tools` shows it.
    pub fn as_str(self) -> &'static str {
        match self {
            Source::Builtin => "builtin",
            Source::Http => "http",
            Source::Client => "client",
            Source::Mcp => "mcp",
            Source::Subagent => "subagent",
        }
    }
}

/// Where the tool `name` of this agent comes from, if the agent has it.
pub fn source_of(agent: &Agent, name: &str) -> Option<Source> {
    if agent.tools.iter().any(|t| t == name) {
        Some(Source::Builtin)
    } else if agent.http_tools.iter().any(|t| t.name == name) {
        Some(Source::Http)
    } else if agent.client_tools.iter().any(|t| t.name == name) {
        Some(Source::Client)
    } else if crate::domain::subagent::subagent_of(agent, name).is_some() {
        Some(Source::Subagent)
    } else if mcp_server_of(agent, name).is_some() {
        Some(Source::Mcp)
    } else {
        None
    }
}

/// The MCP server a tool name `<server>__<tool>` belongs to, with the tool's
/// own name, if the agent has that server and it offers that tool.
pub fn mcp_server_of<'a>(agent: &'a Agent, name: &'a str) -> Option<(&'a McpServer, &'a str)> {
    let (server, tool) = name.split_once("__")?;
    let server = agent.mcp_servers.iter().find(|s| s.name == server)?;
    server.offers(tool).then_some((server, tool))
}

/// Every tool name the agent declares, built-in names first; an MCP
/// server's tools as the pattern `<server>__*`.
pub fn declared_names(agent: &Agent) -> Vec<String> {
    let http = agent.http_tools.iter().map(|t| t.name.clone());
    let client = agent.client_tools.iter().map(|t| t.name.clone());
    let mcp = agent.mcp_servers.iter().map(|s| mcp_tool_name(&s.name, "*"));
    let subagents = agent.subagents.iter().map(|s| crate::domain::subagent::tool_name(&s.name));
    agent.tools.iter().cloned().chain(http).chain(client).chain(mcp).chain(subagents).collect()
}

/// The agent with a session's additions: its runs are offered both.
pub fn with_additions(agent: &Agent, additions: &ToolAdditions) -> Agent {
    let mut merged = agent.clone();
    for name in &additions.tools {
        if !merged.tools.contains(name) {
            merged.tools.push(name.clone());
        }
    }
    merged.http_tools.extend(additions.http_tools.iter().cloned());
    merged.client_tools.extend(additions.client_tools.iter().cloned());
    merged.mcp_servers.extend(additions.mcp_servers.iter().cloned());
    merged
}

/// Checks the tools an agent (or an agent with a session's additions)
/// declares beyond the built-in ones: valid, unique names that are not
/// built-in (`builtin`), object schemas, and HTTP tools with an HTTP URL
/// and a timeout in range.
pub fn check(agent: &Agent, builtin: &[&str]) -> Result<(), String> {
    let mut seen: Vec<&str> = Vec::new();
    let extra = agent.http_tools.iter().map(|t| (t.name.as_str(), "http_tools", &t.input_schema));
    let client = agent.client_tools.iter().map(|t| (t.name.as_str(), "client_tools", &t.input_schema));
    for (name, field, schema) in extra.chain(client) {
        check_name(name).map_err(|e| format!("{field}: {e}"))?;
        if builtin.contains(&name) {
            return Err(format!("{field}: {name:?} is the name of a built-in tool"));
        }
        if seen.contains(&name) {
            return Err(format!("{field}: the tool name {name:?} is declared twice"));
        }
        seen.push(name);
        if schema.get("type").and_then(Value::as_str) != Some("object") {
            return Err(format!("{field}: {name}'s input_schema must be a JSON Schema with \"type\": \"object\""));
        }
    }
    agent.http_tools.iter().try_for_each(check_http_tool)?;
    let mut servers: Vec<&str> = Vec::new();
    for server in &agent.mcp_servers {
        check_mcp_server(server)?;
        if servers.contains(&server.name.as_str()) {
            return Err(format!("mcp_servers: the server name {:?} is declared twice", server.name));
        }
        servers.push(&server.name);
    }
    Ok(())
}

/// Checks every tool an agent names: its built-in `tools` are among
/// `builtin`, what it declares passes [`check`], and each `approve_tools`
/// entry names one of its tools or is a pattern (`*`, `prefix*`).
pub fn check_agent(agent: &Agent, builtin: &[&str]) -> Result<(), String> {
    if let Some(unknown) = agent.tools.iter().find(|t| !builtin.contains(&t.as_str())) {
        return Err(format!("unknown tool {unknown:?} (known: {})", builtin.join(", ")));
    }
    check(agent, builtin)?;
    let declared = declared_names(agent);
    let known = |t: &String| t.ends_with('*') || declared.contains(t) || mcp_server_of(agent, t).is_some();
    if let Some(unknown) = agent.approve_tools.iter().find(|t| !known(t)) {
        let names = if declared.is_empty() { "none".to_string() } else { declared.join(", ") };
        return Err(format!(
            "approve_tools: {unknown:?} is none of the agent's tools ({names}), and not a pattern such as \"*\" or \"server__*\""
        ));
    }
    Ok(())
}

fn check_mcp_server(server: &McpServer) -> Result<(), String> {
    let name = &server.name;
    let valid = !name.is_empty()
        && name.len() <= MAX_SERVER_NAME_LEN
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-');
    if !valid {
        return Err(format!(
            "mcp_servers: {name:?} is not a server name ([A-Za-z0-9-], 1 to {MAX_SERVER_NAME_LEN} characters)"
        ));
    }
    match (&server.command, &server.url) {
        (Some(command), None) if !command.trim().is_empty() && server.headers.is_empty() => {}
        (None, Some(url)) if server.env.is_empty() && server.args.is_empty() => {
            if !is_http_url(url) {
                return Err(format!("mcp_servers: {name}'s url must be an http or https URL"));
            }
        }
        _ => {
            return Err(format!(
                "mcp_servers: {name} needs either a command (with args and env) or a url (with headers), not both"
            ))
        }
    }
    if server.timeout_ms.is_some_and(|t| t == 0 || t > MAX_MCP_TIMEOUT_MS) {
        return Err(format!("mcp_servers: {name}'s timeout_ms must be between 1 and {MAX_MCP_TIMEOUT_MS}"));
    }
    check_settings(server)
}

fn check_settings(server: &McpServer) -> Result<(), String> {
    let name = &server.name;
    for (var, value) in &server.env {
        if !is_variable_name(var) || matches!(value, Setting::Plain(v) if v.contains('\0')) {
            return Err(format!("mcp_servers: {name}'s env {var:?} is not a variable name with a value"));
        }
    }
    for (header, value) in &server.headers {
        let plain = match value {
            Setting::Plain(v) => v.as_str(),
            Setting::Secret { .. } => "",
        };
        if !is_header(header, plain) {
            return Err(format!("mcp_servers: {name}'s header {header:?} is not a valid header"));
        }
    }
    if server.tools.as_ref().is_some_and(|tools| tools.iter().any(|t| t.is_empty())) {
        return Err(format!("mcp_servers: {name}'s tools allowlist has an empty name"));
    }
    Ok(())
}

fn check_http_tool(tool: &HttpTool) -> Result<(), String> {
    let name = &tool.name;
    if !is_http_url(&tool.url) {
        return Err(format!("http_tools: {name}'s url must be an http or https URL"));
    }
    if tool.timeout_ms.is_some_and(|t| t == 0 || t > MAX_HTTP_TIMEOUT_MS) {
        return Err(format!("http_tools: {name}'s timeout_ms must be between 1 and {MAX_HTTP_TIMEOUT_MS}"));
    }
    for (header, value) in &tool.headers {
        if !is_header(header, value) {
            return Err(format!("http_tools: {name}'s header {header:?} is not a valid header"));
        }
    }
    Ok(())
}

/// Whether `url` names an `http` or `https` location.
fn is_http_url(url: &str) -> bool {
    let scheme = url.split_once("://").map(|(s, _)| s.to_ascii_lowercase());
    matches!(scheme.as_deref(), Some("http" | "https")) && url.len() >= 10
}

/// Whether a header a tool declares can be sent as given: a plain token for
/// its name, and no control character (a line break, say) in its value.
fn is_header(name: &str, value: &str) -> bool {
    let token = !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_".contains(&b));
    token && !value.bytes().any(|b| b.is_ascii_control() && b != b'\t')
}

/// Whether `name` is an environment variable's name: `[A-Za-z_][A-Za-z0-9_]*`.
pub fn is_variable_name(name: &str) -> bool {
    name.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Whether providers accept `name` as a tool's: `[A-Za-z0-9_-]`, 1 to 64
/// characters.
pub fn providers_accept(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= MAX_NAME_LEN
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b"_-".contains(&b))
}

/// A tool name providers accept and that is not reserved: `[A-Za-z0-9_-]`,
/// 1 to 64 characters, without `__` (which names an MCP server's tools).
pub fn check_name(name: &str) -> Result<(), String> {
    if !providers_accept(name) {
        return Err(format!("{name:?} is not a tool name ([A-Za-z0-9_-], 1 to {MAX_NAME_LEN} characters)"));
    }
    if name.contains("__") {
        return Err(format!("{name:?}: a name with \"__\" is reserved for MCP servers' tools"));
    }
    Ok(())
}

/// Whether `pattern` of `approve_tools` covers the tool `name`: `*` covers
/// every tool, `prefix*` every tool whose name starts with the prefix (such
/// as `server__*`), and any other pattern the one tool of that name.
pub fn pattern_covers(pattern: &str, name: &str) -> bool {
    match pattern.strip_suffix('*') {
        Some(prefix) => name.starts_with(prefix),
        None => pattern == name,
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use serde_json::json;

    fn agent() -> Agent {
        serde_json::from_value(json!({
            "id": "a", "name": "a", "provider": "scripted", "model": "echo", "tools": ["bash"],
            "max_steps": 5, "created_at": "2026-01-01T00:00:00Z", "updated_at": "2026-01-01T00:00:00Z"
        }))
        .unwrap()
    }

    fn http(name: &str, url: &str) -> HttpTool {
        HttpTool {
            name: name.into(),
            description: String::new(),
            input_schema: json!({"type": "object"}),
            url: url.into(),
            headers: BTreeMap::new(),
            timeout_ms: None,
        }
    }

    fn client(name: &str) -> ClientTool {
        ClientTool { name: name.into(), description: String::new(), input_schema: json!({"type": "object"}) }
    }

    #[test]
    fn an_agent_stored_before_these_fields_reads_without_them() {
        let a = agent();
        assert!(a.http_tools.is_empty() && a.client_tools.is_empty());
        assert_eq!(declared_names(&a), ["bash"]);
    }

    #[test]
    fn names_are_unique_valid_and_never_built_in() {
        let builtin = ["bash", "read"];
        let mut a = agent();
        a.http_tools = vec![http("lookup", "https://example.com/x")];
        a.client_tools = vec![client("pick-color")];
        assert_eq!(check(&a, &builtin), Ok(()));
        assert_eq!(source_of(&a, "lookup"), Some(Source::Http));
        assert_eq!(source_of(&a, "pick-color"), Some(Source::Client));
        assert_eq!(source_of(&a, "bash"), Some(Source::Builtin));
        assert_eq!(source_of(&a, "nope"), None);
        for bad in ["bash", "lookup", "a b", "", "srv__tool", &"x".repeat(65)] {
            let mut b = a.clone();
            b.client_tools.push(client(bad));
            assert!(check(&b, &builtin).is_err(), "{bad:?}");
        }
        let mut b = a.clone();
        b.client_tools[0].input_schema = json!({"type": "string"});
        assert!(check(&b, &builtin).unwrap_err().contains("input_schema"));
    }

    #[test]
    fn http_tools_need_an_http_url_a_sane_timeout_and_plain_headers() {
        let with = |tool: HttpTool| {
            let mut a = agent();
            a.http_tools = vec![tool];
            check(&a, &[])
        };
        assert!(with(http("t", "ftp://example.com/x")).is_err());
        assert!(with(http("t", "example.com")).is_err());
        assert!(with(HttpTool { timeout_ms: Some(0), ..http("t", "http://example.com") }).is_err());
        let mut headers = BTreeMap::new();
        headers.insert("X-Key".to_string(), "a\r\nInjected: 1".to_string());
        assert!(with(HttpTool { headers, ..http("t", "http://example.com") }).is_err());
        assert_eq!(with(HttpTool { timeout_ms: Some(5), ..http("t", "HTTP://example.com") }), Ok(()));
    }

    #[test]
    fn a_session_adds_to_its_agent_without_repeating_a_built_in_name() {
        let additions = ToolAdditions {
            tools: vec!["bash".into(), "read".into()],
            http_tools: vec![http("lookup", "https://example.com")],
            client_tools: vec![client("confirm")],
            mcp_servers: vec![mcp(json!({"name": "files", "command": "files-mcp"}))],
        };
        let merged = with_additions(&agent(), &additions);
        assert_eq!(declared_names(&merged), ["bash", "read", "lookup", "confirm", "files__*"]);
        assert!(ToolAdditions::default().is_empty() && !additions.is_empty());
    }

    #[test]
    fn a_client_answers_every_waiting_call_once_and_nothing_else() {
        let call = |id: &str| ToolCall { id: id.into(), name: "pick".into(), input: json!({}) };
        let result = |id: &str| ClientResult { call_id: id.into(), output: format!("out {id}"), is_error: false };
        let waiting = [call("a"), call("b")];
        let ok = check_results(&waiting, vec![result("b"), result("a")]).unwrap();
        assert_eq!(ok.iter().map(|r| r.call_id.as_str()).collect::<Vec<_>>(), ["a", "b"], "in the calls' order");
        assert!(check_results(&waiting, vec![result("a")]).unwrap_err().contains("missing: b"));
        assert!(check_results(&waiting, vec![result("a"), result("a"), result("b")]).unwrap_err().contains("twice"));
        assert!(check_results(&waiting, vec![result("a"), result("b"), result("zz")])
            .unwrap_err()
            .contains("zz is not a call waiting"));
    }

    fn mcp(value: serde_json::Value) -> McpServer {
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn an_mcp_server_is_stdio_or_http_with_a_plain_name_and_sane_settings() {
        let check_one = |value: serde_json::Value| {
            let mut a = agent();
            a.mcp_servers = vec![mcp(value)];
            check(&a, &[])
        };
        assert_eq!(
            check_one(json!({"name": "files", "command": "x", "args": ["a"], "env": {"K": {"secret": "S"}}})),
            Ok(())
        );
        assert_eq!(
            check_one(json!({"name": "web", "url": "https://mcp.example/mcp", "headers": {"Authorization": "x"}})),
            Ok(())
        );
        for bad in [
            json!({"name": "a__b", "command": "x"}),
            json!({"name": "", "command": "x"}),
            json!({"name": "x".repeat(25), "command": "x"}),
            json!({"name": "both", "command": "x", "url": "https://mcp.example/mcp"}),
            json!({"name": "neither"}),
            json!({"name": "blank", "command": " "}),
            json!({"name": "ftp", "url": "ftp://mcp.example/mcp"}),
            json!({"name": "hdr", "command": "x", "headers": {"A": "b"}}),
            json!({"name": "env", "url": "https://mcp.example/mcp", "env": {"A": "b"}}),
            json!({"name": "var", "command": "x", "env": {"1A": "b"}}),
            json!({"name": "crlf", "url": "https://mcp.example/mcp", "headers": {"A": "b\r\nc: d"}}),
            json!({"name": "slow", "command": "x", "timeout_ms": 0}),
            json!({"name": "allow", "command": "x", "tools": [""]}),
        ] {
            assert!(check_one(bad.clone()).is_err(), "{bad}");
        }
        let mut twice = agent();
        twice.mcp_servers = vec![mcp(json!({"name": "a", "command": "x"})), mcp(json!({"name": "a", "command": "y"}))];
        assert!(check(&twice, &[]).unwrap_err().contains("twice"));
        assert!(serde_json::from_value::<McpServer>(json!({"name": "a", "command": "x", "typo": 1})).is_err());
    }

    #[test]
    fn an_mcp_tool_name_belongs_to_a_declared_server_that_offers_it() {
        let mut a = agent();
        a.mcp_servers = vec![mcp(json!({"name": "files", "command": "x", "tools": ["read_file", "a__b"]}))];
        assert_eq!(source_of(&a, "files__read_file"), Some(Source::Mcp));
        assert_eq!(mcp_server_of(&a, "files__a__b").map(|(s, t)| (s.name.as_str(), t)), Some(("files", "a__b")));
        assert_eq!(source_of(&a, "files__write_file"), None, "not in its allowlist");
        assert_eq!(source_of(&a, "other__read_file"), None);
        a.mcp_servers[0].env.insert("B".into(), Setting::Secret { secret: "two".into() });
        a.mcp_servers[0].env.insert("A".into(), Setting::Secret { secret: "one".into() });
        a.mcp_servers
            .push(mcp(json!({"name": "web", "url": "https://x.example/mcp", "headers": {"X": {"secret": "one"}}})));
        assert_eq!(secret_names(&a.mcp_servers), ["one", "two"]);
    }

    #[test]
    fn patterns_cover_one_name_a_prefix_or_everything() {
        assert!(pattern_covers("*", "anything"));
        assert!(pattern_covers("files__*", "files__read"));
        assert!(!pattern_covers("files__*", "web__read"));
        assert!(pattern_covers("bash", "bash") && !pattern_covers("bash", "bash2"));
    }
}
