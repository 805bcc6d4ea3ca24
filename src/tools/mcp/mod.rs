//! MCP servers' tools, through the official Rust SDK (`rmcp`).
//!
//! A worker keeps one connection per server definition (and the secret
//! values it was given): opened on first use, reused by every run that
//! names the same server, its tool list cached and listed again only when
//! the server sends `notifications/tools/list_changed`. A stdio server is
//! the worker's child and dies with it; a Streamable HTTP server whose
//! session expired (404) is initialized again, once, by the transport. A
//! server that cannot start or list tools fails nothing: the caller hears
//! why and the run goes on without its tools.

mod connection;
mod http;
mod pool;
mod start;

pub use connection::IDEMPOTENCY_KEY;
pub use pool::{Listed, McpPool, McpSettings, Reach, Secrets};

use std::sync::Arc;
use std::time::Duration;

use tokio_util::sync::CancellationToken;

/// Closes `pool`'s idle connections as they pass the idle setting, until
/// `shutdown`: a pass every half of the setting (at most every 30 s).
pub async fn close_idle_until(pool: Arc<McpPool>, shutdown: CancellationToken) {
    let every = (pool.settings().idle / 2).clamp(Duration::from_millis(100), Duration::from_secs(30));
    loop {
        tokio::select! {
            _ = shutdown.cancelled() => return,
            _ = tokio::time::sleep(every) => {}
        }
        pool.close_idle();
    }
}
