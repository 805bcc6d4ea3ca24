//! Fleet definitions: `POST|GET /fleets`, `GET|PUT|DELETE /fleets/{id}`.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::routing::get;
use axum::{Json, Router};
use chrono::Utc;
use serde::Deserialize;
use serde_json::Value;

use super::error::{naming, ApiError, ApiResult};
use super::extract::JsonBody;
use super::work_dir;
use super::{deleted, AppState};
use crate::model::{new_id, Fleet, FleetStatus};

/// The largest `worker_count`: a cap, not a number of processes, so it only
/// needs to be finite.
const MAX_WORKER_COUNT: u32 = 100_000;

pub fn routes() -> Router<AppState> {
    Router::new().route("/fleets", get(list).post(create)).route("/fleets/{id}", get(show).put(update).delete(remove))
}

/// The fields a client may set on a fleet. On `PUT`, absent fields keep their value.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct FleetFields {
    name: Option<String>,
    agent_id: Option<String>,
    worker_count: Option<u32>,
    /// `null` clears it: each task then gets a directory of its own.
    #[serde(default, deserialize_with = "present")]
    work_dir: Option<Option<String>>,
}

/// Tells a field set to `null` (`Some(None)`) from an absent one (`None`).
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Option<String>>, D::Error> {
    Option::<String>::deserialize(d).map(Some)
}

async fn check(state: &AppState, fields: &FleetFields) -> ApiResult<()> {
    if fields.name.as_ref().is_some_and(|n| n.trim().is_empty()) {
        return Err(ApiError::BadRequest("name must not be empty".into()));
    }
    if let Some(agent_id) = &fields.agent_id {
        if state.store.get_agent(agent_id).await?.is_none() {
            return Err(ApiError::NotFound(format!("agent {agent_id}")));
        }
    }
    if fields.worker_count.is_some_and(|n| n > MAX_WORKER_COUNT) {
        return Err(ApiError::BadRequest(format!("worker_count must be 0 (no limit) to {MAX_WORKER_COUNT}")));
    }
    if let Some(Some(dir)) = &fields.work_dir {
        work_dir::check(state, dir)?;
    }
    Ok(())
}

async fn create(
    State(state): State<AppState>,
    JsonBody(fields): JsonBody<FleetFields>,
) -> ApiResult<(StatusCode, Json<Fleet>)> {
    let (Some(name), Some(agent_id)) = (fields.name.clone(), fields.agent_id.clone()) else {
        return Err(ApiError::Unprocessable("name and agent_id are required".into()));
    };
    check(&state, &fields).await?;
    let now = Utc::now();
    let fleet = Fleet {
        id: new_id(),
        name,
        agent_id,
        worker_count: fields.worker_count.unwrap_or(0),
        work_dir: fields.work_dir.flatten(),
        status: FleetStatus::Stopped,
        created_at: now,
        updated_at: now,
    };
    state.store.insert_fleet(&fleet).await?;
    Ok((StatusCode::CREATED, Json(fleet)))
}

async fn list(State(state): State<AppState>) -> ApiResult<Json<Vec<Fleet>>> {
    Ok(Json(state.store.list_fleets().await?))
}

async fn find(state: &AppState, id: &str) -> ApiResult<Fleet> {
    state.store.get_fleet(id).await?.ok_or_else(|| ApiError::NotFound(format!("fleet {id}")))
}

async fn show(State(state): State<AppState>, Path(id): Path<String>) -> ApiResult<Json<Fleet>> {
    Ok(Json(find(&state, &id).await?))
}

async fn update(
    State(state): State<AppState>,
    Path(id): Path<String>,
    JsonBody(fields): JsonBody<FleetFields>,
) -> ApiResult<Json<Fleet>> {
    let mut fleet = find(&state, &id).await?;
    check(&state, &fields).await?;
    if let Some(name) = fields.name {
        fleet.name = name;
    }
    if let Some(agent_id) = fields.agent_id {
        fleet.agent_id = agent_id;
    }
    if let Some(n) = fields.worker_count {
        fleet.worker_count = n;
    }
    if let Some(dir) = fields.work_dir {
        fleet.work_dir = dir;
    }
    fleet.updated_at = Utc::now();
    state.store.update_fleet(&fleet).await?;
    Ok(Json(fleet))
}

async fn remove(State(state): State<AppState>, Path(id): Path<String>) -> ApiResult<Json<Value>> {
    state.store.delete_fleet(&id).await.map_err(naming(format!("fleet {id}")))?;
    Ok(deleted())
}
