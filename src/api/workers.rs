//! Workers: `GET /workers` lists the worker processes the database
//! remembers, their leases and the runs each holds.

use axum::extract::State;
use axum::Json;
use chrono::{DateTime, Utc};
use serde::Serialize;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::error::ApiResult;
use super::AppState;
use crate::store;

/// The route, registered with its `#[utoipa::path]` description.
pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::default().routes(routes!(list))
}

/// The answer of `GET /workers`.
#[derive(Debug, Serialize, ToSchema)]
pub struct WorkerList {
    /// Live workers first, then lapsed, then stopped.
    workers: Vec<WorkerInfo>,
}

// The API's own copies of the store's worker types: the answer's shape is the
// API's to keep, and the store's types carry no HTTP schema.
/// Where a worker's lease stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum WorkerStatus {
    /// Its lease is live: it heartbeats.
    Live,
    /// Its lease ran out without a goodbye (it crashed, stalled or lost
    /// the database): the runs it held are rescued by other workers.
    Lapsed,
    /// It shut down and gave its lease up.
    Stopped,
}

impl From<store::WorkerStatus> for WorkerStatus {
    fn from(status: store::WorkerStatus) -> WorkerStatus {
        match status {
            store::WorkerStatus::Live => WorkerStatus::Live,
            store::WorkerStatus::Lapsed => WorkerStatus::Lapsed,
            store::WorkerStatus::Stopped => WorkerStatus::Stopped,
        }
    }
}

/// A worker and its lease, as `GET /workers` shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ToSchema)]
pub struct WorkerInfo {
    /// The worker's ID, one per process start.
    id: String,
    /// Its name in logs (`wingman worker --name`; `worker-<pid>` by default, `serve-<pid>` for a server's own).
    name: String,
    status: WorkerStatus,
    /// When it registered.
    #[serde(with = "crate::domain::model::timestamp")]
    started_at: DateTime<Utc>,
    /// When its lease runs out unless renewed (each heartbeat pushes it on);
    /// `null` once it stopped.
    #[serde(with = "crate::domain::model::timestamp::option")]
    lease_expires_at: Option<DateTime<Utc>>,
    /// The runs it holds (status `running` under its lease), oldest first.
    runs: Vec<String>,
}

impl From<store::WorkerInfo> for WorkerInfo {
    fn from(worker: store::WorkerInfo) -> WorkerInfo {
        WorkerInfo {
            id: worker.id,
            name: worker.name,
            status: worker.status.into(),
            started_at: worker.started_at,
            lease_expires_at: worker.lease_expires_at,
            runs: worker.runs,
        }
    }
}

/// Live workers first, then those whose lease lapsed, then those that
/// stopped; a worker gone for an hour and holding nothing is forgotten.
#[utoipa::path(
    get,
    path = "/workers",
    tag = "health",
    operation_id = "list_workers",
    responses((status = 200, description = "The workers and their leases", body = WorkerList))
)]
async fn list(State(state): State<AppState>) -> ApiResult<Json<WorkerList>> {
    let workers = state.store.list_workers().await?.into_iter().map(WorkerInfo::from).collect();
    Ok(Json(WorkerList { workers }))
}

#[cfg(test)]
mod tests {
    use chrono::TimeZone;
    use serde_json::json;

    use super::*;

    fn worker(status: store::WorkerStatus, lease_expires_at: Option<DateTime<Utc>>) -> store::WorkerInfo {
        store::WorkerInfo {
            id: "w1".into(),
            name: "host-1".into(),
            status,
            started_at: Utc.timestamp_millis_opt(1_700_000_000_123).unwrap(),
            lease_expires_at,
            runs: vec!["r1".into(), "r2".into()],
        }
    }

    #[test]
    fn a_worker_answers_with_its_lease_and_runs_in_the_documented_shape() {
        let lease = Utc.timestamp_millis_opt(1_700_000_003_000).unwrap();
        let live = serde_json::to_value(WorkerInfo::from(worker(store::WorkerStatus::Live, Some(lease)))).unwrap();
        let expected = json!({
            "id": "w1", "name": "host-1", "status": "live", "started_at": "2023-11-14T22:13:20.123Z",
            "lease_expires_at": "2023-11-14T22:13:23.000Z", "runs": ["r1", "r2"],
        });
        assert_eq!(live, expected);
        let stopped = serde_json::to_value(WorkerInfo::from(worker(store::WorkerStatus::Stopped, None))).unwrap();
        assert_eq!((&stopped["status"], &stopped["lease_expires_at"]), (&json!("stopped"), &json!(null)));
        let lapsed = WorkerInfo::from(worker(store::WorkerStatus::Lapsed, Some(lease)));
        assert_eq!(serde_json::to_value(lapsed).unwrap()["status"], "lapsed");
    }
}
