//! API keys: `POST /keys`, `GET /keys`, `DELETE /keys/{id}`, an admin's
//! alone ([`crate::domain::access::refusal`]).
//!
//! A key is shown once, in the answer that made it; lists show its owner,
//! role, name, last four characters and times. `DELETE` revokes a key
//! (its row stays, with the time): every server refuses it within
//! [`super::key_ring::FRESH`], this one at once.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::Json;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::error::{naming, ApiError, ApiResult, ErrorBody};
use super::extract::JsonBody;
use super::schemas::Id;
use super::AppState;
use crate::domain::access::{self, ApiKeyInfo, Role};

/// Each handler is registered with its `#[utoipa::path]` description.
pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::default().routes(routes!(create, list)).routes(routes!(revoke))
}

/// The body of `POST /keys`.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
struct NewKey {
    /// Whose work the key opens: 1 to 64 letters, digits, `.`, `_`, `-` or `@`.
    #[schema(pattern = "^[A-Za-z0-9._@-]{1,64}$")]
    owner: String,
    role: Role,
    /// A name to tell the key by: 1 to 100 characters, none a control character.
    #[schema(
        min_length = 1,
        max_length = 100,
        pattern = r"^[^\u0000-\u001f\u007f]*[^\s\u0000-\u001f\u007f][^\u0000-\u001f\u007f]*$"
    )]
    name: Option<String>,
    /// When the key stops working by itself; in the future.
    #[schema(value_type = Option<String>, format = DateTime)]
    expires_at: Option<DateTime<Utc>>,
}

/// A key just made: the only answer that holds the key itself.
#[derive(Serialize, ToSchema)]
struct CreatedKey {
    /// The key: send it as `Authorization: Bearer <key>`. It is shown only here.
    key: String,
    /// The key's ID (not the key), to revoke it by.
    id: String,
    owner: String,
    role: Role,
    #[serde(skip_serializing_if = "Option::is_none")]
    name: Option<String>,
    /// `…` and the key's last four characters.
    hint: String,
    #[serde(with = "crate::domain::model::timestamp")]
    #[schema(value_type = String, format = DateTime)]
    created_at: DateTime<Utc>,
    #[serde(skip_serializing_if = "Option::is_none", with = "crate::domain::model::timestamp::option")]
    #[schema(value_type = Option<String>, format = DateTime)]
    expires_at: Option<DateTime<Utc>>,
}

/// Makes a key for an owner, with a role. On a server without
/// `--auth-token`, the first live key must be an admin's: a member's or a
/// reader's alone would shut everyone out of keys.
#[utoipa::path(
    post,
    path = "/keys",
    tag = "keys",
    operation_id = "create_key",
    request_body = NewKey,
    responses(
        (status = 201, description = "The key, shown this once", body = CreatedKey),
        (status = 400, description = "A refused owner or name, or an `expires_at` not in the future", body = ErrorBody),
        (status = 409, description = "A member's or reader's key while no admin key is live and the server has no --auth-token", body = ErrorBody),
        (status = 422, description = "A missing, mistyped or unknown field", body = ErrorBody),
    )
)]
async fn create(
    State(state): State<AppState>,
    JsonBody(body): JsonBody<NewKey>,
) -> ApiResult<(StatusCode, Json<CreatedKey>)> {
    access::check_owner(&body.owner).map_err(ApiError::BadRequest)?;
    if let Some(name) = &body.name {
        access::check_name(name).map_err(ApiError::BadRequest)?;
    }
    if body.expires_at.is_some_and(|at| at <= Utc::now()) {
        return Err(ApiError::BadRequest("expires_at must be in the future".into()));
    }
    if body.role != Role::Admin && state.config.auth_token.is_none() {
        let keys = state.store.list_api_keys().await?;
        if let Some(why) = access::first_key_refusal(body.role, &keys, Utc::now()) {
            return Err(ApiError::Conflict(why.into()));
        }
    }
    let minted = access::mint(body.owner, body.role, body.name, body.expires_at).map_err(ApiError::Internal)?;
    let stored = state.store.insert_api_key(&minted.record).await?;
    state.keys.forget();
    tracing::info!(key = %stored.id, owner = %stored.owner, role = stored.role.as_str(), "API key made");
    let ApiKeyInfo { id, owner, role, name, hint, created_at, expires_at, .. } = stored;
    let created = CreatedKey { key: minted.secret, id, owner, role, name, hint, created_at, expires_at };
    Ok((StatusCode::CREATED, Json(created)))
}

/// Every key, the newest first, revoked and expired ones included: never a key itself.
#[utoipa::path(
    get,
    path = "/keys",
    tag = "keys",
    operation_id = "list_keys",
    responses((status = 200, description = "The keys", body = [ApiKeyInfo]))
)]
async fn list(State(state): State<AppState>) -> ApiResult<Json<Vec<ApiKeyInfo>>> {
    Ok(Json(state.store.list_api_keys().await?))
}

/// Revokes a key: refused by this server from now on, by every server
/// within a second. Revoking a revoked key changes nothing. The last live
/// admin key of a server without `--auth-token` stays while other keys
/// are live.
#[utoipa::path(
    delete,
    path = "/keys/{id}",
    tag = "keys",
    operation_id = "revoke_key",
    params(("id" = Id, Path, description = "The key's ID")),
    responses(
        (status = 200, description = "The key, with `revoked_at`", body = ApiKeyInfo),
        (status = 404, description = "No such key", body = ErrorBody),
        (status = 409, description = "The last live admin key, while other keys are live and the server has no --auth-token", body = ErrorBody),
    )
)]
async fn revoke(State(state): State<AppState>, Path(id): Path<String>) -> ApiResult<Json<ApiKeyInfo>> {
    if state.config.auth_token.is_none() {
        let keys = state.store.list_api_keys().await?;
        if let Some(why) = access::revocation_refusal(&id, &keys, Utc::now()) {
            return Err(ApiError::Conflict(why.into()));
        }
    }
    let revoked = state.store.revoke_api_key(&id).await.map_err(naming(format!("key {id}")))?;
    state.keys.forget();
    tracing::info!(key = %revoked.id, owner = %revoked.owner, "API key revoked");
    Ok(Json(revoked))
}
