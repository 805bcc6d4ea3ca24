//! The HTTP API. It only enqueues work and reads state: no handler executes
//! a run.

use crate::domain::history::HistoryCache;
use crate::tools::mcp::McpPool;
use std::sync::Arc;

use axum::extract::DefaultBodyLimit;
use axum::http::StatusCode;
use axum::middleware;
use axum::response::IntoResponse;
use axum::{Extension, Json, Router};
use serde::Serialize;
use serde_json::json;
use tokio::sync::Notify;
use utoipa::OpenApi;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::provider::models::ModelCatalog;
use crate::services::hub::Hub;
use crate::services::Board;
use crate::store::Store;
use crate::submit::{Door, SubmitConfig};
use crate::tools::sandbox::SandboxMode;
pub use bearer::AuthToken;
pub use cors::CorsPolicy;
use guard::HostPolicy;

use crate::domain::commands::AllowedCommands;

mod agent_tools;
mod agents;
mod audit;
pub mod audit_log;
mod auth;
mod bearer;
mod branches;
mod compact;
pub mod connection;
mod cors;
pub mod error;
mod extract;
mod fleet_runs;
mod fleet_tasks;
mod fleets;
mod formation_runs;
mod formations;
pub mod guard;
mod health;
mod idle;
pub mod key_ring;
mod keys;
mod limits;
mod messages;
mod metrics;
pub mod openapi;
mod order;
mod owned;
mod owners;
mod peer;
mod people;
mod providers;
mod queue;
mod retry;
mod runs;
mod schedules;
mod schemas;
mod secrets;
pub mod serve;
mod sessions;
mod sse;
mod sse_body;
mod tool_results;
mod versions;
mod webhooks;
mod workers;

/// Settings the API needs.
#[derive(Debug, Clone)]
pub struct ApiConfig {
    /// What submissions are checked against, and where runs work
    /// ([`crate::submit`]).
    pub submit: SubmitConfig,
    /// How this server's workers confine tools, for `GET /health`.
    pub tool_sandbox: SandboxMode,
    /// The largest request body accepted.
    pub max_body_bytes: usize,
    /// The largest body of a fleet run's submission (10,000 tasks must fit).
    pub max_fleet_body_bytes: usize,
    /// Names the server answers to besides its own (`--allowed-host`); `*` for any.
    pub allowed_hosts: Vec<String>,
    /// The models `GET /provider/{id}/models` lists.
    pub models: Arc<ModelCatalog>,
    /// The token every route but `/health` asks for (`--auth-token`).
    pub auth_token: Option<AuthToken>,
    /// Origins of pages served elsewhere that may call the API (`--cors-origin`).
    pub cors: CorsPolicy,
    /// The programs stdio MCP servers may be declared with (`--allow-mcp-command`).
    pub mcp_commands: AllowedCommands,
}

impl Default for ApiConfig {
    fn default() -> Self {
        ApiConfig {
            submit: SubmitConfig::default(),
            max_body_bytes: 1024 * 1024,
            max_fleet_body_bytes: 16 * 1024 * 1024,
            allowed_hosts: Vec::new(),
            tool_sandbox: SandboxMode::Auto,
            models: Arc::new(ModelCatalog::shipped()),
            auth_token: None,
            cors: CorsPolicy::default(),
            mcp_commands: AllowedCommands::default(),
        }
    }
}

/// What every handler shares, behind one reference count: axum clones a
/// handler's state (and each middleware's) for every request, and one
/// count to raise and drop is cheaper than a dozen on every request.
#[derive(Clone)]
pub struct AppState(Arc<Shared>);

impl AppState {
    /// The state handlers share.
    pub fn new(shared: Shared) -> AppState {
        AppState(Arc::new(shared))
    }
}

impl std::ops::Deref for AppState {
    type Target = Shared;

    fn deref(&self) -> &Shared {
        &self.0
    }
}

/// What [`AppState`] holds.
pub struct Shared {
    pub store: Arc<dyn Store>,
    /// The one door every submission goes through.
    pub door: Door,
    pub hub: Arc<Hub>,
    pub config: Arc<ApiConfig>,
    /// Wakes the workers of this process when a run is enqueued.
    pub wake: Arc<Notify>,
    /// The names (and port) the server answers to.
    pub hosts: Arc<HostPolicy>,
    /// Connections to MCP servers, to list the tools an agent is offered:
    /// the embedded workers' own. An API-only server (`--workers 0`) has
    /// none, and starts or reaches no MCP server: it executes nothing.
    pub mcp: Option<Arc<McpPool>>,
    /// The session histories the embedded workers keep, for `/metrics`
    /// (none in an API-only server).
    pub histories: Option<Arc<HistoryCache>>,
    /// How the services beside the API stand, for `GET /health`.
    pub services: Arc<Board>,
    /// The API keys this server looked up lately.
    pub keys: Arc<key_ring::KeyRing>,
    /// Where the audit log's entries are queued for writing.
    pub audit: audit_log::AuditLog,
}

impl Shared {
    /// Tells this process's workers and event hub that the API just wrote
    /// something they follow (a run to claim, events to deliver). The door
    /// does so itself after a submission.
    pub fn changed(&self) {
        announce(&self.wake, &self.hub);
    }
}

/// Tells a process's workers (`wake`) and event hub that something they
/// follow was just written: a run to claim, events to deliver.
pub fn announce(wake: &Notify, hub: &Hub) {
    wake.notify_waiters();
    hub.nudge();
}

/// Puts `routes` behind `token` as the API's are (a worker's metrics
/// listener): every request but to `/health` must present it.
pub fn behind_token(routes: Router, token: AuthToken) -> Router {
    let gate = bearer::Gate { token: Some(Arc::new(token)), keys: None };
    routes.layer(middleware::from_fn_with_state(gate, bearer::require))
}

/// Builds the router.
pub fn router(state: AppState) -> Router {
    let max_body = state.config.max_body_bytes;
    let gate = bearer::Gate { token: state.config.auth_token.clone().map(Arc::new), keys: Some(state.keys.clone()) };
    let (routes, mut document) = routes(&state.config).split_for_parts();
    openapi::complete(&mut document);
    let methods = openapi::route_methods(&document);
    let cors = Arc::new(cors::CorsState { policy: state.config.cors.clone(), methods });
    // The dashboard's pages are HTML for people, outside the document.
    routes
        .merge(crate::ui::routes())
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(Extension(openapi::Served::new(&document)))
        .layer(DefaultBodyLimit::max(max_body))
        .layer(middleware::from_fn(extract::refuse_nul_in_uri))
        .layer(middleware::map_response(error::json_errors))
        // Inside the gate, which names the caller, and after routing, which names the route.
        .layer(middleware::from_fn_with_state(state.clone(), audit::record))
        .layer(middleware::from_fn_with_state(gate, bearer::require))
        .layer(middleware::from_fn_with_state(state.hosts.clone(), guard::guard))
        // Outside the token check: a browser's preflight carries no credentials.
        .layer(middleware::from_fn_with_state(cors, cors::answer))
        .layer(tower_http::trace::TraceLayer::new_for_http())
        .layer(middleware::from_fn(metrics::count_requests))
        .with_state(state)
}

/// Every route, each registered with its description in the OpenAPI
/// document: a handler reaches the router only through `routes!`, which
/// reads its `#[utoipa::path]` annotation.
fn routes(config: &ApiConfig) -> OpenApiRouter<AppState> {
    OpenApiRouter::with_openapi(openapi::ApiDoc::openapi())
        .routes(routes!(health::health))
        .routes(routes!(openapi::document))
        .merge(agents::routes())
        .merge(agent_tools::routes())
        .merge(sessions::routes())
        .merge(branches::routes())
        .merge(fleets::routes())
        .merge(fleet_runs::routes(config.max_fleet_body_bytes))
        .merge(formations::routes())
        .merge(formation_runs::routes())
        .merge(runs::routes())
        .merge(retry::routes())
        .merge(messages::routes())
        .merge(compact::routes())
        .merge(people::routes())
        .merge(tool_results::routes())
        .merge(auth::routes())
        .merge(keys::routes())
        .merge(audit::routes())
        .merge(owners::routes())
        .merge(limits::routes())
        .merge(secrets::routes())
        .merge(providers::routes())
        .merge(metrics::routes())
        .merge(workers::routes())
        .merge(queue::routes())
        .merge(webhooks::routes())
        .merge(schedules::routes())
}

/// The OpenAPI document of every route, as `GET /openapi.json` serves it.
pub fn document() -> utoipa::openapi::OpenApi {
    let mut document = routes(&ApiConfig::default()).into_openapi();
    openapi::complete(&mut document);
    document
}

/// The answer of a `DELETE`: `{"status": "deleted"}`, as the original API gave it.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct Deleted {
    /// Always `deleted`.
    #[schema(value_type = String, pattern = "^deleted$")]
    status: &'static str,
}

/// The answer of a `DELETE` of a resource.
fn deleted() -> Json<Deleted> {
    Json(Deleted { status: "deleted" })
}

async fn not_found() -> impl IntoResponse {
    (StatusCode::NOT_FOUND, Json(json!({"error": "no such route"})))
}

async fn method_not_allowed() -> impl IntoResponse {
    (StatusCode::METHOD_NOT_ALLOWED, Json(json!({"error": "method not allowed on this route"})))
}
