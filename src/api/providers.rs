//! The provider catalogue: `GET /provider`, `GET /provider/{id}`, and the
//! models of each from the catalogue shipped in the binary (never fetched).

use std::collections::BTreeMap;

use axum::extract::{Path, State};
use axum::Json;
use serde::Serialize;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::error::{ApiError, ApiResult, ErrorBody};
use super::AppState;
use crate::provider::{self, models::ModelInfo, ProviderInfo};

/// Each handler is registered with its `#[utoipa::path]` description.
pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::default().routes(routes!(list)).routes(routes!(show)).routes(routes!(models)).routes(routes!(model))
}

/// A provider as the original API showed it (`id`, `name`, `auth_types`),
/// with Wingman's own fields beside them.
#[derive(Debug, Serialize, ToSchema)]
struct ProviderView {
    #[serde(flatten)]
    info: ProviderInfo,
    /// `["api_key"]` for providers that take a key, `[]` for `scripted`.
    auth_types: Vec<&'static str>,
}

fn view(info: ProviderInfo) -> ProviderView {
    let auth_types = if info.env.is_some() { vec!["api_key"] } else { Vec::new() };
    ProviderView { info, auth_types }
}

fn find(id: &str) -> ApiResult<ProviderInfo> {
    provider::catalog().into_iter().find(|p| p.id == id).ok_or_else(|| ApiError::NotFound(format!("provider {id}")))
}

/// Every provider this build knows: a plain array.
#[utoipa::path(
    get,
    path = "/provider",
    tag = "providers",
    operation_id = "list_providers",
    responses((status = 200, description = "Every provider", body = Vec<ProviderView>))
)]
async fn list() -> Json<Vec<ProviderView>> {
    Json(provider::catalog().into_iter().map(view).collect())
}

/// One provider.
#[utoipa::path(
    get,
    path = "/provider/{id}",
    tag = "providers",
    operation_id = "get_provider",
    params(("id" = String, Path, description = "The provider's ID (`anthropic`, `openai`, `ollama`, `scripted`)")),
    responses(
        (status = 200, description = "The provider", body = ProviderView),
        (status = 404, description = "No such provider", body = ErrorBody),
    )
)]
async fn show(Path(id): Path<String>) -> ApiResult<Json<ProviderView>> {
    Ok(Json(view(find(&id)?)))
}

/// `{"<model id>": {model}, …}`: an object keyed by model ID, as the original API answered.
#[utoipa::path(
    get,
    path = "/provider/{id}/models",
    tag = "providers",
    operation_id = "list_models",
    params(("id" = String, Path, description = "The provider's ID")),
    responses(
        (status = 200, description = "The provider's models, keyed by model ID", body = BTreeMap<String, ModelInfo>),
        (status = 404, description = "No such provider", body = ErrorBody),
    )
)]
async fn models(State(state): State<AppState>, Path(id): Path<String>) -> ApiResult<Json<BTreeMap<String, ModelInfo>>> {
    find(&id)?;
    Ok(Json(state.config.models.models(&id).cloned().unwrap_or_default()))
}

/// One model of a provider.
#[utoipa::path(
    get,
    path = "/provider/{id}/models/{model}",
    tag = "providers",
    operation_id = "get_model",
    params(
        ("id" = String, Path, description = "The provider's ID"),
        ("model" = String, Path, description = "The model's ID"),
    ),
    responses(
        (status = 200, description = "The model", body = ModelInfo),
        (status = 404, description = "No such provider or model", body = ErrorBody),
    )
)]
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
