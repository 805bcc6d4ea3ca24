//! The tools an agent declares beyond the built-in ones, as it stores them
//! (the rules over them are `crate::domain::toolset`'s).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The timeout of an HTTP tool call when its definition gives none.
pub const DEFAULT_HTTP_TIMEOUT_MS: u64 = 30_000;

/// A tool served by a service of the user's: the worker POSTs
/// `{"run_id", "call_id", "tool", "input"}` to `url`, signed, with an
/// idempotency key, and the answer's body is the result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct HttpTool {
    /// The name the model calls it by: `[A-Za-z0-9_-]`, at most 64 characters.
    pub name: String,
    /// What the tool does, for the model.
    #[serde(default)]
    pub description: String,
    /// A JSON Schema of its input object.
    #[schema(value_type = Object)]
    pub input_schema: Value,
    /// An `http` or `https` URL.
    pub url: String,
    /// Headers sent with every call (an API key, say).
    #[serde(default)]
    pub headers: BTreeMap<String, String>,
    /// How long one attempt may take (default 30,000; at most 600,000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
}

impl HttpTool {
    /// The timeout of one attempt.
    pub fn timeout_ms(&self) -> u64 {
        self.timeout_ms.unwrap_or(DEFAULT_HTTP_TIMEOUT_MS)
    }
}

/// The timeout of one MCP tool call when the server's definition gives
/// none; it restarts whenever the server reports progress.
pub const DEFAULT_MCP_TIMEOUT_MS: u64 = 60_000;

/// A value of an MCP server's `env` or `headers`: text, or `{"secret":
/// "NAME"}`, the name of a stored secret the worker puts in its place.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(untagged)]
pub enum Setting {
    /// The value itself.
    Plain(String),
    /// A secret, by name (`PUT /secrets/{name}`).
    Secret { secret: String },
}

/// An MCP server an agent uses: started by the worker over stdio
/// (`command`) or reached over Streamable HTTP (`url`). Its tools are
/// offered as `<name>__<tool>`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct McpServer {
    /// `[A-Za-z0-9-]`, at most 24 characters: the prefix of its tools' names.
    pub name: String,
    /// For stdio: the program the worker starts (its child; it dies with it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    /// For stdio: the program's arguments.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub args: Vec<String>,
    /// For stdio: the program's environment, on top of a minimal one.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub env: BTreeMap<String, Setting>,
    /// For Streamable HTTP: the server's `http` or `https` URL.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// For Streamable HTTP: headers sent with every request.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub headers: BTreeMap<String, Setting>,
    /// Only these of its tools are offered (all when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<String>>,
    /// How long a call may go without an answer or a progress report
    /// (default 60,000; at most 3,600,000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
}

impl McpServer {
    /// The timeout of one call, restarted by each progress report.
    pub fn timeout_ms(&self) -> u64 {
        self.timeout_ms.unwrap_or(DEFAULT_MCP_TIMEOUT_MS)
    }

    /// Whether the server's tool `tool` is offered, under its allowlist.
    pub fn offers(&self, tool: &str) -> bool {
        self.tools.as_ref().is_none_or(|allowed| allowed.iter().any(|t| t == tool))
    }

    /// The names of the secrets its environment and headers refer to.
    pub fn secret_names(&self) -> Vec<String> {
        let mut names: Vec<String> = (self.env.values().chain(self.headers.values()))
            .filter_map(|s| match s {
                Setting::Secret { secret } => Some(secret.clone()),
                Setting::Plain(_) => None,
            })
            .collect();
        names.sort();
        names.dedup();
        names
    }
}

/// A tool the client runs: a step that calls one parks the run until the
/// client posts the results.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ClientTool {
    /// The name the model calls it by: `[A-Za-z0-9_-]`, at most 64 characters.
    pub name: String,
    /// What the tool does, for the model.
    #[serde(default)]
    pub description: String,
    /// A JSON Schema of its input object.
    #[schema(value_type = Object)]
    pub input_schema: Value,
}

/// What a session adds to its agent's tools, for that session's runs only.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct ToolAdditions {
    /// Built-in tool names.
    #[serde(default)]
    pub tools: Vec<String>,
    #[serde(default)]
    pub http_tools: Vec<HttpTool>,
    #[serde(default)]
    pub client_tools: Vec<ClientTool>,
    #[serde(default)]
    pub mcp_servers: Vec<McpServer>,
}

impl ToolAdditions {
    /// True when the session adds nothing.
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
            && self.http_tools.is_empty()
            && self.client_tools.is_empty()
            && self.mcp_servers.is_empty()
    }
}
