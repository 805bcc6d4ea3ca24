//! The worker's MCP connections, one per server definition and secrets:
//! kept while they are used, closed (a stdio server ending with its
//! connection) once idle for the setting, and at most so many at once, the
//! least recently used idle one closed to make room.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rmcp::model::{CallToolResult, Tool};
use serde_json::Value;
use sha2::{Digest, Sha256};
use tokio_util::sync::CancellationToken;

use super::connection::{with_stderr, Connection};
use super::start;
use crate::domain::commands::AllowedCommands;
use crate::domain::model::{McpListing, ToolSpec};
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
    /// What this call learned from the servers themselves (a list not
    /// cached, or a failure not reported within the last minute), for the
    /// caller to store: what any server answers `GET /agents/{id}/tools` from.
    pub fresh: Vec<McpListing>,
}

/// How a worker keeps its MCP connections.
#[derive(Debug, Clone)]
pub struct McpSettings {
    /// Where HTTP servers may be reached.
    pub reach: Reach,
    /// The programs stdio servers may run (`--allow-mcp-command`).
    pub commands: AllowedCommands,
    /// A connection unused this long is closed (`--mcp-idle-secs`).
    pub idle: Duration,
    /// The most connections kept at once (`--mcp-max-connections`).
    pub max_connections: usize,
}

impl Default for McpSettings {
    fn default() -> Self {
        McpSettings {
            reach: Reach::default(),
            commands: AllowedCommands::default(),
            idle: Duration::from_secs(300),
            max_connections: 64,
        }
    }
}

/// One definition's connection, and when a run last asked for it.
#[derive(Default)]
struct SlotState {
    connection: tokio::sync::Mutex<Option<Arc<Connection>>>,
    last_used: Mutex<Option<Instant>>,
}

impl SlotState {
    fn touch(&self) {
        *self.last_used.lock().unwrap_or_else(|e| e.into_inner()) = Some(Instant::now());
    }

    fn last_used(&self) -> Option<Instant> {
        *self.last_used.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// True while a run holds the connection (a call, a listing) or is
    /// opening it: such a slot is never closed.
    fn in_use(&self) -> bool {
        match self.connection.try_lock() {
            Ok(held) => held.as_ref().is_some_and(|c| Arc::strong_count(c) > 1),
            Err(_) => true,
        }
    }
}

type Slot = Arc<SlotState>;

/// A worker's connections to MCP servers.
#[derive(Default)]
pub struct McpPool {
    /// By definition: the digest of its secrets' values, and its slot.
    slots: Mutex<HashMap<String, (String, Slot)>>,
    settings: McpSettings,
    opened: AtomicU64,
    /// By definition key: the failure last reported as fresh, and when.
    failures: Mutex<HashMap<String, (String, Instant)>>,
}

/// How long a failure, once reported, is not reported again.
const FAILURE_REPORTED_FOR: Duration = Duration::from_secs(60);

impl std::fmt::Debug for McpPool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpPool").field("opened", &self.opened()).finish_non_exhaustive()
    }
}

impl McpPool {
    /// A pool that keeps its connections under these settings.
    pub fn new(settings: McpSettings) -> Self {
        McpPool { settings, ..Default::default() }
    }

    /// The settings it keeps its connections under.
    pub fn settings(&self) -> &McpSettings {
        &self.settings
    }

    /// Closes the connections no run has used for the idle setting (a stdio
    /// server ends with its connection); returns how many.
    pub fn close_idle(&self) -> usize {
        let now = Instant::now();
        let idle = self.settings.idle;
        let mut slots = self.slots.lock().unwrap_or_else(|e| e.into_inner());
        let before = slots.len();
        slots.retain(|_, (_, slot)| {
            slot.in_use() || slot.last_used().is_none_or(|used| now.duration_since(used) < idle)
        });
        let closed = before - slots.len();
        if closed > 0 {
            tracing::info!(closed, kept = slots.len(), "closed idle MCP connections");
        }
        closed
    }

    /// Past the cap, closes the least recently used idle connections but `keep`'s.
    fn make_room(&self, keep: &Slot) {
        let mut slots = self.slots.lock().unwrap_or_else(|e| e.into_inner());
        while slots.len() > self.settings.max_connections.max(1) {
            let oldest = slots
                .iter()
                .filter(|(_, (_, slot))| !Arc::ptr_eq(slot, keep) && !slot.in_use())
                .min_by_key(|(_, (_, slot))| slot.last_used())
                .map(|(definition, _)| definition.clone());
            let Some(oldest) = oldest else {
                tracing::warn!(
                    kept = slots.len(),
                    "every MCP connection is in use: over --mcp-max-connections for now"
                );
                return;
            };
            slots.remove(&oldest);
            tracing::info!(kept = slots.len(), "closed the least recently used MCP connection to make room");
        }
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
            let outcome = self.tools(server, secrets).await;
            let failure_is_news = self.note_failure(server, outcome.as_ref().err());
            match outcome {
                Ok((tools, fresh)) => {
                    if fresh {
                        listed.fresh.push(listing(server, tools.clone(), None));
                    }
                    listed.tools.extend(tools);
                }
                Err(error) => {
                    if failure_is_news {
                        listed.fresh.push(listing(server, Vec::new(), Some(error.clone())));
                    }
                    listed.unavailable.push((server.name.clone(), error));
                }
            }
        }
        listed
    }

    /// Notes how listing `server` went, and says whether a failure is worth
    /// storing: not the one reported for it within the last minute (a server
    /// that stays down would otherwise be written at every step of every
    /// run). A success forgets its failure.
    fn note_failure(&self, server: &McpServer, error: Option<&String>) -> bool {
        let mut failures = self.failures.lock().unwrap_or_else(|e| e.into_inner());
        // The common case, a server that answers and never failed, costs no digest.
        if error.is_none() && failures.is_empty() {
            return false;
        }
        let key = toolset::definition_key(server);
        let Some(error) = error else {
            failures.remove(&key);
            return false;
        };
        let now = Instant::now();
        let repeated = failures
            .get(&key)
            .is_some_and(|(last, at)| last == error && now.duration_since(*at) < FAILURE_REPORTED_FOR);
        if !repeated {
            failures.insert(key, (error.clone(), now));
        }
        !repeated
    }

    /// The server's tools as the model is offered them, `<server>__<tool>`,
    /// under its allowlist, and whether they were listed anew; or why there
    /// are none now.
    async fn tools(&self, server: &McpServer, secrets: &Secrets) -> Result<(Vec<ToolSpec>, bool), String> {
        let connection = self.connection(server, secrets).await?;
        let tools = connection.tools(Duration::from_millis(server.timeout_ms())).await;
        let (tools, fresh) = tools.map_err(|e| self.failed(server, secrets, &connection, e))?;
        let specs = tools.iter().filter(|t| server.offers(&t.name)).filter_map(|t| spec(server, t)).collect();
        Ok((specs, fresh))
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
        slot.touch();
        let mut held = slot.connection.lock().await;
        if let Some(connection) = held.as_ref().filter(|c| !c.is_closed()) {
            return Ok(connection.clone());
        }
        let connection = Arc::new(start::open(server, secrets, &self.settings).await?);
        self.opened.fetch_add(1, Ordering::Relaxed);
        tracing::info!(server = %server.name, "connected to an MCP server");
        *held = Some(connection.clone());
        drop(held);
        self.make_room(&slot);
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

/// What was just learned of `server`'s tools, to be stored.
fn listing(server: &McpServer, tools: Vec<ToolSpec>, error: Option<String>) -> McpListing {
    McpListing {
        definition: toolset::definition_key(server),
        server: server.name.clone(),
        tools,
        error,
        listed_at: chrono::Utc::now(),
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
