//! `GET /health`: liveness and readiness in one.

use std::collections::BTreeMap;

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Serialize;
use utoipa::ToSchema;

use super::AppState;
use crate::domain::model::timestamp;
use crate::services::ServiceState;
use crate::store;
use crate::tools::sandbox::{self, SandboxStatus};

/// The answer of a server whose database answers.
#[derive(Debug, Serialize, ToSchema)]
pub struct Health {
    /// `ok`; `degraded` while a service is restarting or the database's
    /// disk is full (the server answers, but some work waits).
    #[schema(value_type = String, pattern = "^(ok|degraded)$")]
    status: &'static str,
    queue: QueueStats,
    /// What this server's own workers run `bash` with.
    sandbox: SandboxStatus,
    /// The services beside the API, by name: `scheduler`, `deliverer`,
    /// `pruner` (with `--retain-days`), `event-pump`, `quiet-logs`, and each
    /// embedded worker (`worker-0`, …).
    services: BTreeMap<String, ServiceState>,
    /// When a write last found the database's disk full, while no write has
    /// succeeded since: nothing new is accepted until space is freed.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>)]
    disk_full_since: Option<String>,
}

// The API's own copy of the store's counts: the answer's shape is the API's
// to keep, and the store's types carry no HTTP schema.
/// The queue at a glance, as `GET /health` reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
pub struct QueueStats {
    /// Runs waiting for a worker (including those waiting for their session's turn).
    queued: u64,
    /// Runs a worker holds now.
    running: u64,
    /// Workers whose lease is live.
    workers: u64,
}

impl From<store::QueueStats> for QueueStats {
    fn from(stats: store::QueueStats) -> QueueStats {
        QueueStats { queued: stats.queued, running: stats.running, workers: stats.workers }
    }
}

/// The answer of a server whose database does not answer.
#[derive(Debug, Serialize, ToSchema)]
pub struct Unhealthy {
    /// Always `unavailable`.
    #[schema(value_type = String, pattern = "^unavailable$")]
    status: &'static str,
    error: String,
}

/// Liveness and readiness in one: 200 with the queue at a glance when the
/// database answers, 503 when it does not.
#[utoipa::path(
    get,
    path = "/health",
    tag = "health",
    operation_id = "health",
    responses(
        (status = 200, description = "The database answers", body = Health),
        (status = 503, description = "The database does not answer", body = Unhealthy),
    )
)]
pub async fn health(State(state): State<AppState>) -> Response {
    match state.store.queue_stats().await {
        Ok(queue) => {
            let sandbox = sandbox::status(state.config.tool_sandbox);
            let disk_full_since = store::disk::full_at().map(|at| timestamp::format(&at));
            let services = state.services.snapshot();
            let ok = services.values().all(|s| s.state == "ok") && disk_full_since.is_none();
            let status = if ok { "ok" } else { "degraded" };
            Json(Health { status, queue: queue.into(), sandbox, services, disk_full_since }).into_response()
        }
        Err(e) => {
            tracing::error!(error = %e, "health check: the database did not answer");
            let body = Unhealthy { status: "unavailable", error: "the database did not answer".into() };
            (StatusCode::SERVICE_UNAVAILABLE, Json(body)).into_response()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_queue_answers_with_the_stores_counts_under_their_names() {
        let stats = store::QueueStats { queued: 3, running: 2, workers: 1 };
        let answer = serde_json::to_value(QueueStats::from(stats)).unwrap();
        assert_eq!(answer, serde_json::json!({"queued": 3, "running": 2, "workers": 1}));
    }
}
