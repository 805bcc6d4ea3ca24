//! Webhooks in the API: `GET …/deliveries` of a run, a fleet run or a
//! formation run. (A submission's `webhook` is checked at the door,
//! `crate::submit::checks::webhook_url`.)

use axum::extract::{Path, State};
use axum::Json;
use serde::Serialize;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::error::{ApiResult, ErrorBody};
use super::owned::visible;
use super::schemas::Id;
use super::AppState;
use crate::domain::access::Caller;
use crate::domain::webhook::Delivery;

/// Each handler is registered with its `#[utoipa::path]` description.
pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::default()
        .routes(routes!(run_deliveries))
        .routes(routes!(fleet_run_deliveries))
        .routes(routes!(formation_run_deliveries))
}

/// A subject's deliveries.
#[derive(Debug, Serialize, ToSchema)]
struct Deliveries {
    /// Oldest first, each with its finished attempts (`log`).
    deliveries: Vec<Delivery>,
}

/// The announcements of a run's end: each delivery, where it stands, and
/// its attempts.
#[utoipa::path(
    get,
    path = "/runs/{id}/deliveries",
    tag = "runs",
    operation_id = "list_run_deliveries",
    params(("id" = Id, Path, description = "The run's ID")),
    responses(
        (status = 200, description = "The run's webhook deliveries", body = Deliveries),
        (status = 404, description = "No such run", body = ErrorBody),
    )
)]
async fn run_deliveries(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
) -> ApiResult<Json<Deliveries>> {
    visible(&caller, state.store.get_run(&id).await?, || format!("run {id}"))?;
    list(&state, &id).await
}

/// The announcements of a fleet run's end.
#[utoipa::path(
    get,
    path = "/fleet-runs/{id}/deliveries",
    tag = "fleets",
    operation_id = "list_fleet_run_deliveries",
    params(("id" = Id, Path, description = "The fleet run's ID")),
    responses(
        (status = 200, description = "The fleet run's webhook deliveries", body = Deliveries),
        (status = 404, description = "No such fleet run", body = ErrorBody),
    )
)]
async fn fleet_run_deliveries(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
) -> ApiResult<Json<Deliveries>> {
    visible(&caller, state.store.get_fleet_run(&id).await?, || format!("fleet run {id}"))?;
    list(&state, &id).await
}

/// The announcements of a formation run's end.
#[utoipa::path(
    get,
    path = "/formation-runs/{id}/deliveries",
    tag = "formation-runs",
    operation_id = "list_formation_run_deliveries",
    params(("id" = Id, Path, description = "The formation run's ID")),
    responses(
        (status = 200, description = "The formation run's webhook deliveries", body = Deliveries),
        (status = 404, description = "No such formation run", body = ErrorBody),
    )
)]
async fn formation_run_deliveries(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
) -> ApiResult<Json<Deliveries>> {
    visible(&caller, state.store.get_formation_run(&id).await?, || format!("formation run {id}"))?;
    list(&state, &id).await
}

async fn list(state: &AppState, subject_id: &str) -> ApiResult<Json<Deliveries>> {
    Ok(Json(Deliveries { deliveries: state.store.list_deliveries(subject_id).await? }))
}
