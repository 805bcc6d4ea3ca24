//! The HTTP API. It only enqueues work and reads state: no handler executes
//! a run.

use std::path::PathBuf;
use std::sync::Arc;

use axum::extract::{DefaultBodyLimit, State};
use axum::http::StatusCode;
use axum::middleware;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use serde_json::json;
use tokio::sync::Notify;

use crate::hub::Hub;
use crate::provider::models::ModelCatalog;
use crate::store::Store;
use crate::tools::sandbox::{self, SandboxMode};
pub use bearer::AuthToken;
pub use cors::CorsPolicy;
use guard::HostPolicy;

mod agents;
mod auth;
mod bearer;
mod cors;
pub mod error;
mod extract;
mod fleet_runs;
mod fleets;
pub mod guard;
mod people;
mod providers;
mod runs;
mod sessions;
mod sse;
mod work_dir;
mod workers;

/// Settings the API needs.
#[derive(Debug, Clone)]
pub struct ApiConfig {
    /// Where sessions without a `work_dir` get one (`<data_dir>/sessions/<id>`).
    pub data_dir: PathBuf,
    /// Files no session's work_dir may contain: the database.
    pub protected: Vec<PathBuf>,
    /// How this server's workers confine tools, for `GET /health`.
    pub tool_sandbox: SandboxMode,
    /// Attempts a run gets before a crashing run is failed.
    pub max_attempts: u32,
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
    /// The directory every client-given `work_dir` must resolve inside
    /// (`--work-root`), canonical; `None` lets clients choose any.
    pub work_root: Option<PathBuf>,
    /// Origins of pages served elsewhere that may call the API (`--cors-origin`).
    pub cors: CorsPolicy,
}

impl Default for ApiConfig {
    fn default() -> Self {
        ApiConfig {
            data_dir: PathBuf::from("."),
            protected: Vec::new(),
            max_attempts: 3,
            max_body_bytes: 1024 * 1024,
            max_fleet_body_bytes: 16 * 1024 * 1024,
            allowed_hosts: Vec::new(),
            tool_sandbox: SandboxMode::Auto,
            models: Arc::new(ModelCatalog::shipped()),
            auth_token: None,
            work_root: None,
            cors: CorsPolicy::default(),
        }
    }
}

/// What every handler shares.
#[derive(Clone)]
pub struct AppState {
    pub store: Arc<dyn Store>,
    pub hub: Arc<Hub>,
    pub config: Arc<ApiConfig>,
    /// Wakes the workers of this process when a run is enqueued.
    pub wake: Arc<Notify>,
    /// The names (and port) the server answers to.
    pub hosts: Arc<HostPolicy>,
}

impl AppState {
    /// Tells this process's workers and event hub that the API just wrote
    /// something they follow (a run to claim, events to deliver).
    pub fn changed(&self) {
        self.wake.notify_waiters();
        self.hub.nudge();
    }
}

/// Builds the router.
pub fn router(state: AppState) -> Router {
    let max_body = state.config.max_body_bytes;
    let token = state.config.auth_token.clone().map(Arc::new);
    let cors = Arc::new(state.config.cors.clone());
    Router::new()
        .route("/health", get(health))
        .merge(agents::routes())
        .merge(sessions::routes())
        .merge(fleets::routes())
        .merge(fleet_runs::routes(state.config.max_fleet_body_bytes))
        .merge(runs::routes())
        .merge(people::routes())
        .merge(auth::routes())
        .merge(providers::routes())
        .merge(workers::routes())
        .merge(crate::ui::routes())
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(DefaultBodyLimit::max(max_body))
        .layer(middleware::map_response(error::json_errors))
        .layer(middleware::from_fn_with_state(token, bearer::require))
        .layer(middleware::from_fn_with_state(state.hosts.clone(), guard::guard))
        // Outside the token check: a browser's preflight carries no credentials.
        .layer(middleware::from_fn_with_state(cors, cors::answer))
        .layer(tower_http::trace::TraceLayer::new_for_http())
        .with_state(state)
}

/// Liveness and readiness in one: 200 with the queue at a glance when the
/// database answers, 503 when it does not.
async fn health(State(state): State<AppState>) -> Response {
    match state.store.queue_stats().await {
        Ok(queue) => {
            let sandbox = sandbox::status(state.config.tool_sandbox);
            Json(json!({"status": "ok", "queue": queue, "sandbox": sandbox})).into_response()
        }
        Err(e) => {
            tracing::error!(error = %e, "health check: the database did not answer");
            let body = json!({"status": "unavailable", "error": "the database did not answer"});
            (StatusCode::SERVICE_UNAVAILABLE, Json(body)).into_response()
        }
    }
}

/// The answer of a `DELETE` of a resource, as the original API gave it.
fn deleted() -> Json<serde_json::Value> {
    Json(json!({"status": "deleted"}))
}

async fn not_found() -> impl IntoResponse {
    (StatusCode::NOT_FOUND, Json(json!({"error": "no such route"})))
}

async fn method_not_allowed() -> impl IntoResponse {
    (StatusCode::METHOD_NOT_ALLOWED, Json(json!({"error": "method not allowed on this route"})))
}
