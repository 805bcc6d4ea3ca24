//! The worker's MCP connections, one per server definition and secrets.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::{CallToolResult, Tool};
use serde_json::Value;
use sha2::{Digest, Sha256};
use tokio_util::sync::CancellationToken;

use super::connection::{with_stderr, Connection};
use super::start;
use crate::domain::model::ToolSpec;
pub use crate::domain::secret::Secrets;
use crate::domain::toolset::{self, McpServer};
use crate::tools::outside::OutsideConfig;
use crate::tools::{output, ToolOutput};

/// Where the worker may connect: the network policy's settings.
#[derive(Debug, Clone, Default)]
pub struct Reach {
    pub allow_private_network: bool,
    pub outside: OutsideConfig,
}

/// What [`McpPool::list`] found.
#[derive(Debug, Default)]
pub struct Listed {
    /// The tools, as the model is offered them.
    pub tools: Vec<ToolSpec>,
    /// The servers left out, by name, with why.
    pub unavailable: Vec<(String, String)>,
}

type Slot = Arc<tokio::sync::Mutex<Option<Arc<Connection>>>>;

/// A worker's connections to MCP servers.
#[derive(Default)]
pub struct McpPool {
    /// By definition: the digest of its secrets' values, and its slot.
    slots: Mutex<HashMap<String, (String, Slot)>>,
    reach: Reach,
    opened: AtomicU64,
}

impl std::fmt::Debug for McpPool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpPool").field("opened", &self.opened()).finish_non_exhaustive()
    }
}

impl McpPool {
    /// A pool whose HTTP servers are reached under these settings.
    pub fn new(reach: Reach) -> Self {
        McpPool { reach, ..Default::default() }
    }

    /// How many connections this pool has opened (each one initialized once).
    pub fn opened(&self) -> u64 {
        self.opened.load(Ordering::Relaxed)
    }

    /// Every tool of these servers, in their order, and the servers that
    /// could not be listed now, each with why.
    pub async fn list(&self, servers: &[McpServer], secrets: &Secrets) -> Listed {
        let mut listed = Listed::default();
        for server in servers {
            match self.tools(server, secrets).await {
                Ok(tools) => listed.tools.extend(tools),
                Err(error) => listed.unavailable.push((server.name.clone(), error)),
            }
        }
        listed
    }

    /// The server's tools as the model is offered them, `<server>__<tool>`,
    /// under its allowlist; or why there are none now.
    async fn tools(&self, server: &McpServer, secrets: &Secrets) -> Result<Vec<ToolSpec>, String> {
        let connection = self.connection(server, secrets).await?;
        let tools = connection.tools(Duration::from_millis(server.timeout_ms())).await;
        let tools = tools.map_err(|e| self.failed(server, secrets, &connection, e))?;
        Ok(tools.iter().filter(|t| server.offers(&t.name)).filter_map(|t| spec(server, t)).collect())
    }

    /// Calls the server's tool `tool`. Whatever goes wrong is an error result.
    pub async fn call(
        &self,
        server: &McpServer,
        secrets: &Secrets,
        tool: &str,
        input: &Value,
        key: &str,
        cancel: &CancellationToken,
    ) -> ToolOutput {
        let Some(arguments) = input.as_object().cloned() else {
            return ToolOutput::error("the input of an MCP tool must be a JSON object");
        };
        let connection = match self.connection(server, secrets).await {
            Ok(c) => c,
            Err(e) => return ToolOutput::error(format!("MCP server {} is unavailable: {e}", server.name)),
        };
        let timeout = Duration::from_millis(server.timeout_ms());
        let answer = tokio::select! {
            answer = connection.call(tool, arguments, key, timeout) => answer,
            _ = cancel.cancelled() => return ToolOutput::error("the call was cancelled"),
        };
        match answer {
            Ok(result) => output_of(result),
            Err(e) => ToolOutput::error(format!(
                "MCP server {}: {}",
                server.name,
                self.failed(server, secrets, &connection, e)
            )),
        }
    }

    /// The live connection for this definition, opened if there is none:
    /// runs asking at once wait for one connection rather than open several.
    async fn connection(&self, server: &McpServer, secrets: &Secrets) -> Result<Arc<Connection>, String> {
        let slot = self.slot(server, secrets);
        let mut held = slot.lock().await;
        if let Some(connection) = held.as_ref().filter(|c| !c.is_closed()) {
            return Ok(connection.clone());
        }
        let connection = Arc::new(start::open(server, secrets, &self.reach).await?);
        self.opened.fetch_add(1, Ordering::Relaxed);
        tracing::info!(server = %server.name, "connected to an MCP server");
        *held = Some(connection.clone());
        Ok(connection)
    }

    /// The slot of this definition. When its secrets' values changed, the
    /// old connection is let go (it closes, and a stdio server ends, once
    /// the calls that hold it are answered) and a new one is made.
    fn slot(&self, server: &McpServer, secrets: &Secrets) -> Slot {
        let (definition, values) = keys(server, secrets);
        let mut slots = self.slots.lock().unwrap_or_else(|e| e.into_inner());
        match slots.get(&definition) {
            Some((held_values, slot)) if *held_values == values => slot.clone(),
            _ => {
                let slot = Slot::default();
                slots.insert(definition, (values, slot.clone()));
                slot
            }
        }
    }

    /// Says what failed, with the server's last stderr lines; a connection
    /// whose transport is gone is forgotten, so the next use opens another.
    fn failed(&self, server: &McpServer, secrets: &Secrets, connection: &Connection, error: String) -> String {
        if connection.is_closed() {
            let (definition, values) = keys(server, secrets);
            let mut slots = self.slots.lock().unwrap_or_else(|e| e.into_inner());
            if slots.get(&definition).is_some_and(|(held, _)| *held == values) {
                slots.remove(&definition);
            }
        }
        with_stderr(error, &connection.stderr)
    }
}

/// A connection's identity: its definition (secrets by name), and a digest
/// of the values of the secrets it uses, which never leaves this pool.
fn keys(server: &McpServer, secrets: &Secrets) -> (String, String) {
    let definition = serde_json::to_string(server).unwrap_or_default();
    let mut hash = Sha256::new();
    for name in server.secret_names() {
        hash.update(name.as_bytes());
        hash.update([0]);
        hash.update(secrets.get(&name).map(|s| s.expose().as_bytes()).unwrap_or_default());
        hash.update([0]);
    }
    (definition, format!("{:x}", hash.finalize()))
}

/// The tool as offered to the model; none for a name providers refuse.
fn spec(server: &McpServer, tool: &Tool) -> Option<ToolSpec> {
    let name = toolset::mcp_tool_name(&server.name, &tool.name);
    if !toolset::providers_accept(&name) {
        tracing::warn!(server = %server.name, tool = %tool.name, "an MCP tool whose name providers refuse is not offered");
        return None;
    }
    let description = tool.description.as_deref().unwrap_or_default().to_string();
    Some(ToolSpec { name, description, input_schema: Value::Object((*tool.input_schema).clone()) })
}

/// What the model sees of a tool's answer: its text blocks, other blocks
/// as JSON, or the structured result when there are no blocks; capped.
fn output_of(result: CallToolResult) -> ToolOutput {
    let mut parts: Vec<String> = Vec::new();
    for block in &result.content {
        let value = serde_json::to_value(block).unwrap_or(Value::Null);
        match value.get("text").and_then(Value::as_str) {
            Some(text) if value["type"] == "text" => parts.push(text.to_string()),
            _ => parts.push(value.to_string()),
        }
    }
    if parts.is_empty() {
        if let Some(structured) = &result.structured_content {
            parts.push(structured.to_string());
        }
    }
    let text = output::capped(&parts.join("\n"));
    ToolOutput { output: text, is_error: result.is_error.unwrap_or(false), shell: None }
}
