//! Workers: `GET /workers` lists the worker processes the database
//! remembers, their leases and the runs each holds.

use axum::extract::State;
use axum::Json;
use serde::Serialize;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::error::ApiResult;
use super::AppState;
use crate::store::WorkerInfo;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::default().routes(routes!(list))
}

/// The answer of `GET /workers`.
#[derive(Debug, Serialize, ToSchema)]
pub struct WorkerList {
    /// Live workers first, then lapsed, then stopped.
    workers: Vec<WorkerInfo>,
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
    let workers = state.store.list_workers().await?;
    Ok(Json(WorkerList { workers }))
}
