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
pub use pool::{Listed, McpPool, Reach, Secrets};
