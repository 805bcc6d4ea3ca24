//! Workers: `GET /workers` lists the worker processes the database
//! remembers, their leases and the runs each holds.

use axum::extract::State;
use axum::routing::get;
use axum::{Json, Router};
use serde_json::{json, Value};

use super::error::ApiResult;
use super::AppState;

pub fn routes() -> Router<AppState> {
    Router::new().route("/workers", get(list))
}

/// Live workers first, then those whose lease lapsed, then those that
/// stopped; a worker gone for an hour and holding nothing is forgotten.
async fn list(State(state): State<AppState>) -> ApiResult<Json<Value>> {
    let workers = state.store.list_workers().await?;
    Ok(Json(json!({"workers": workers})))
}
