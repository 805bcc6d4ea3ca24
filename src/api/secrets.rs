//! Secrets: `PUT /secrets/{name}`, `GET /secrets`, `DELETE /secrets/{name}`.
//!
//! Write-only: a value goes in and never comes out. Answers show a secret's
//! name and when it was set ([`SecretInfo`]); workers read the values, when
//! an MCP server's `env` or `headers` names one as `{"secret": "NAME"}`. The
//! body is read with [`sealed_json`], so that no refusal quotes it, and the
//! log says only which name was stored or deleted.

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::HeaderMap;
use axum::Json;
use serde::Deserialize;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::error::{naming, ApiError, ApiResult, ErrorBody};
use super::extract::sealed_json;
use super::schemas;
use super::{deleted, AppState, Deleted};
use crate::domain::secret::{self, Secret, SecretInfo};

/// Each handler is registered with its `#[utoipa::path]` description.
pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::default().routes(routes!(list)).routes(routes!(put, remove))
}

/// The body of `PUT /secrets/{name}`.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
struct SecretBody {
    /// The value, given to the servers that refer to the secret and shown nowhere.
    #[schema(schema_with = schemas::secret_value)]
    value: String,
}

/// Every stored secret, by name: never a value.
#[utoipa::path(
    get,
    path = "/secrets",
    tag = "secrets",
    operation_id = "list_secrets",
    responses((status = 200, description = "The stored secrets, by name", body = [SecretInfo]))
)]
async fn list(State(state): State<AppState>) -> ApiResult<Json<Vec<SecretInfo>>> {
    Ok(Json(state.store.list_secrets().await?))
}

/// Stores a secret, or replaces its value. The name and the value are both
/// checked before anything is written; the answer has no value in it.
#[utoipa::path(
    put,
    path = "/secrets/{name}",
    tag = "secrets",
    operation_id = "put_secret",
    params(("name" = inline(schemas::SecretName), Path, description = "The secret's name")),
    request_body = SecretBody,
    responses(
        (status = 200, description = "Stored (new, or over the old value)", body = SecretInfo),
        (status = 400, description = "Malformed JSON, a refused name or value", body = ErrorBody),
        (status = 422, description = "Another shape than `{\"value\": \"…\"}`", body = ErrorBody),
    )
)]
async fn put(
    State(state): State<AppState>,
    Path(name): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> ApiResult<Json<SecretInfo>> {
    secret::check_name(&name).map_err(ApiError::BadRequest)?;
    let body: SecretBody = sealed_json(&headers, &body, r#"{"value": "…"}"#)?;
    secret::check_value(&body.value).map_err(ApiError::BadRequest)?;
    let stored = state.store.put_secret(&name, &Secret::new(body.value)).await?;
    tracing::info!(secret = %stored.name, "secret stored");
    Ok(Json(stored))
}

/// Deletes a stored secret.
#[utoipa::path(
    delete,
    path = "/secrets/{name}",
    tag = "secrets",
    operation_id = "delete_secret",
    params(("name" = inline(schemas::SecretName), Path, description = "The secret's name")),
    responses(
        (status = 200, description = "Deleted", body = Deleted),
        (status = 400, description = "Not a secret name", body = ErrorBody),
        (status = 404, description = "No secret of that name is stored", body = ErrorBody),
    )
)]
async fn remove(State(state): State<AppState>, Path(name): Path<String>) -> ApiResult<Json<Deleted>> {
    secret::check_name(&name).map_err(ApiError::BadRequest)?;
    state.store.delete_secret(&name).await.map_err(naming(format!("secret {name}")))?;
    tracing::info!(secret = %name, "secret deleted");
    Ok(deleted())
}
