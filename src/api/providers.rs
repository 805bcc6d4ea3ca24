//! The provider catalogue: `GET /provider`, `GET /provider/{id}`, and the
//! models of each from the catalogue shipped in the binary (never fetched).

use axum::extract::{Path, State};
use axum::routing::get;
use axum::{Json, Router};
use serde_json::{json, Value};

use super::error::{ApiError, ApiResult};
use super::AppState;
use crate::provider::{self, models::ModelInfo, ProviderInfo};

pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/provider", get(list))
        .route("/provider/{id}", get(show))
        .route("/provider/{id}/models", get(models))
        .route("/provider/{id}/models/{model}", get(model))
}

/// A provider as the original API showed it (`id`, `name`, `auth_types`),
/// with Wingman's own fields beside them.
fn view(info: &ProviderInfo) -> Value {
    let mut body = serde_json::to_value(info).unwrap_or_default();
    let auth_types: &[&str] = if info.env.is_some() { &["api_key"] } else { &[] };
    body["auth_types"] = json!(auth_types);
    body
}

fn find(id: &str) -> ApiResult<ProviderInfo> {
    provider::catalog().into_iter().find(|p| p.id == id).ok_or_else(|| ApiError::NotFound(format!("provider {id}")))
}

async fn list() -> Json<Vec<Value>> {
    Json(provider::catalog().iter().map(view).collect())
}

async fn show(Path(id): Path<String>) -> ApiResult<Json<Value>> {
    Ok(Json(view(&find(&id)?)))
}

/// `{"<model id>": {model}, …}`: an object keyed by model ID, as the original API answered.
async fn models(State(state): State<AppState>, Path(id): Path<String>) -> ApiResult<Json<Value>> {
    find(&id)?;
    let models = state.config.models.models(&id).map(|m| json!(m)).unwrap_or_else(|| json!({}));
    Ok(Json(models))
}

async fn model(State(state): State<AppState>, Path((id, model)): Path<(String, String)>) -> ApiResult<Json<ModelInfo>> {
    find(&id)?;
    state
        .config
        .models
        .model(&id, &model)
        .cloned()
        .map(Json)
        .ok_or_else(|| ApiError::NotFound(format!("model {model} of provider {id}")))
}
