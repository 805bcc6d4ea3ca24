//! One connection to one MCP server: started (stdio) or reached (Streamable
//! HTTP), initialized once, its tool list cached until the server says it
//! changed.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CallToolResult, ClientCapabilities, ClientConfig, ClientRequest,
    Implementation, ProtocolVersion, RequestMetaObject, ServerResult, Tool,
};
use rmcp::service::{NotificationContext, PeerRequestOptions, RunningService};
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde_json::{Map, Value};

/// What the worker does when an MCP server speaks to it: notes that its
/// tool list changed, so the next step lists it again.
#[derive(Clone)]
pub struct Listener {
    stale: Arc<AtomicBool>,
}

impl ClientHandler for Listener {
    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.stale.store(true, Ordering::SeqCst);
    }

    fn get_info(&self) -> ClientConfig {
        let client = Implementation::new("wingman", env!("CARGO_PKG_VERSION"));
        ClientConfig::new(ClientCapabilities::default(), client).with_protocol_version(ProtocolVersion::V_2025_11_25)
    }
}

/// A live, initialized connection.
pub struct Connection {
    service: RunningService<RoleClient, Listener>,
    stale: Arc<AtomicBool>,
    tools: tokio::sync::Mutex<Option<Vec<Tool>>>,
    /// The last lines a stdio server wrote to its stderr, for errors.
    pub stderr: Arc<Mutex<String>>,
}

impl Connection {
    /// Initializes the MCP session over `transport`, within `timeout`.
    pub async fn open<T, E, A>(transport: T, timeout: Duration, stderr: Arc<Mutex<String>>) -> Result<Self, String>
    where
        T: rmcp::transport::IntoTransport<RoleClient, E, A>,
        E: std::error::Error + Send + Sync + 'static,
    {
        let stale = Arc::new(AtomicBool::new(false));
        let listener = Listener { stale: stale.clone() };
        let failure = match tokio::time::timeout(timeout, listener.serve(transport)).await {
            Ok(Ok(service)) => return Ok(Connection { service, stale, tools: tokio::sync::Mutex::new(None), stderr }),
            Ok(Err(e)) => format!("could not initialize: {e}"),
            Err(_) => format!("did not answer initialize within {} ms", timeout.as_millis()),
        };
        // A server that exits at once says why on its stderr: give the reader a moment.
        tokio::time::sleep(Duration::from_millis(50)).await;
        Err(with_stderr(failure, &stderr))
    }

    /// True once the transport is gone (the server exited, say).
    pub fn is_closed(&self) -> bool {
        self.service.is_closed() || self.service.peer().is_transport_closed()
    }

    /// The server's tools: the cached list, or a fresh one (`true`) when
    /// there is none yet or the server said it changed.
    pub async fn tools(&self, timeout: Duration) -> Result<(Vec<Tool>, bool), String> {
        let mut cached = self.tools.lock().await;
        let stale = self.stale.swap(false, Ordering::SeqCst);
        if let (Some(tools), false) = (cached.as_ref(), stale) {
            return Ok((tools.clone(), false));
        }
        let listed = match tokio::time::timeout(timeout, self.service.peer().list_all_tools()).await {
            Ok(Ok(tools)) => tools,
            Ok(Err(e)) => {
                self.stale.store(stale, Ordering::SeqCst);
                return Err(format!("could not list its tools: {e}"));
            }
            Err(_) => return Err(format!("did not list its tools within {} ms", timeout.as_millis())),
        };
        *cached = Some(listed.clone());
        Ok((listed, true))
    }

    /// Calls `tool` with `arguments`, the idempotency key in `_meta`, and a
    /// progress token: the timeout restarts whenever the server reports
    /// progress.
    pub async fn call(
        &self,
        tool: &str,
        arguments: Map<String, Value>,
        key: &str,
        timeout: Duration,
    ) -> Result<CallToolResult, String> {
        let mut params = CallToolRequestParams::new(tool.to_string());
        params.arguments = Some(arguments);
        let request = ClientRequest::CallToolRequest(CallToolRequest::new(params));
        let mut meta = Map::new();
        meta.insert(IDEMPOTENCY_KEY.into(), Value::String(key.to_string()));
        let options = PeerRequestOptions::with_timeout(timeout)
            .reset_timeout_on_progress()
            .with_meta(RequestMetaObject(meta.into()));
        let handle = self.service.peer().send_request_with_option(request, options).await.map_err(|e| e.to_string())?;
        match handle.await_response().await {
            Ok(ServerResult::CallToolResult(result)) => Ok(result),
            Ok(_) => Err("answered tools/call with something other than a tool result".into()),
            Err(rmcp::ServiceError::Timeout { timeout }) => {
                Err(format!("neither answered nor reported progress for {} ms", timeout.as_millis()))
            }
            Err(e) => Err(e.to_string()),
        }
    }
}

/// `error`, with the last lines the server wrote to its stderr, if any.
pub fn with_stderr(error: String, stderr: &Mutex<String>) -> String {
    let tail = stderr.lock().unwrap_or_else(|e| e.into_inner()).trim().to_string();
    if tail.is_empty() {
        error
    } else {
        format!("{error} (its stderr ends: {tail})")
    }
}

/// The `_meta` key that carries a call's idempotency key: the same for
/// every attempt of the call, so a server can tell a repeat.
pub const IDEMPOTENCY_KEY: &str = "wingman/idempotency_key";
