//! Secrets: `PUT /secrets/{name}`, `GET /secrets`, `DELETE /secrets/{name}`.
//!
//! Write-only: a value goes in and never comes out. Answers show a secret's
//! name and when it was set ([`SecretInfo`]); workers read the values, when
//! an MCP server's `env` or `headers` names one as `{"secret": "NAME"}`. The
//! body is read with [`sealed_json`], so that no refusal quotes it, and the
//! log says only which name was stored or deleted.
//!
//! Each secret is its caller's owner's: a run uses its owner's value of a
//! name, else the first admin's, which every owner shares. A list shows what
//! the caller's runs use; a change touches the caller's own values only.

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
use crate::domain::access::Caller;
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
    responses((status = 200, description = "The secrets the caller's runs use, by name: its owner's own, and the first admin's shared ones it has none of", body = [SecretInfo]))
)]
async fn list(State(state): State<AppState>, caller: Caller) -> ApiResult<Json<Vec<SecretInfo>>> {
    Ok(Json(state.store.list_secrets(&caller.owner).await?))
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
    caller: Caller,
    Path(name): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> ApiResult<Json<SecretInfo>> {
    secret::check_name(&name).map_err(ApiError::BadRequest)?;
    let body: SecretBody = sealed_json(&headers, &body, r#"{"value": "…"}"#)?;
    secret::check_value(&body.value).map_err(ApiError::BadRequest)?;
    let stored = state.store.put_secret(&caller.owner, &name, &Secret::new(body.value)).await?;
    tracing::info!(secret = %stored.name, owner = %stored.owner, "secret stored");
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
        (status = 404, description = "The caller's owner has no secret of that name", body = ErrorBody),
    )
)]
async fn remove(State(state): State<AppState>, caller: Caller, Path(name): Path<String>) -> ApiResult<Json<Deleted>> {
    secret::check_name(&name).map_err(ApiError::BadRequest)?;
    state.store.delete_secret(&caller.owner, &name).await.map_err(naming(format!("secret {name}")))?;
    tracing::info!(secret = %name, owner = %caller.owner, "secret deleted");
    Ok(deleted())
}
