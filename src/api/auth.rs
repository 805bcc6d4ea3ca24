//! Provider credentials: `GET|PUT /provider/auth`, `DELETE /provider/auth/{provider}`,
//! in the original Wingman API's shapes.
//!
//! A key goes in and never comes out: answers show, per credential name, its
//! type, `configured`, a hint of the key's last characters and timestamps.
//! The request body is parsed with [`sealed_json`] rather than the shared
//! JSON extractor, so that no parse error can quote any part of it.
//!
//! Each key is its caller's owner's: a run uses its owner's key of a name,
//! else the first admin's, which every owner shares. A list shows what the
//! caller's runs use; a change touches the caller's own keys only.

use std::collections::BTreeMap;

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::HeaderMap;
use axum::Json;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::error::{naming, ApiError, ApiResult, ErrorBody};
use super::extract::sealed_json;
use super::schemas;
use super::{deleted, AppState, Deleted};
use crate::domain::access::Caller;
use crate::domain::credential::CredentialInfo;
use crate::domain::model::timestamp;
use crate::provider::auth::{self, ApiKey};

/// Each handler is registered with its `#[utoipa::path]` description.
pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::default().routes(routes!(list, put)).routes(routes!(remove))
}

/// The body of `PUT /provider/auth`: `{"providers": {"<name>": {"type": "api_key", "key": "…"}}}`.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
struct PutBody {
    /// Keyed by credential name: a provider ID, or `provider:label`; at least one.
    #[schema(schema_with = credentials)]
    providers: BTreeMap<String, Credential>,
}

/// One key.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
struct Credential {
    /// Always `api_key`.
    #[serde(rename = "type")]
    #[schema(pattern = "^api_key$")]
    kind: String,
    #[schema(schema_with = schemas::api_key)]
    key: String,
}

/// The `providers` of `PUT /provider/auth`, each credential inline.
fn credentials() -> utoipa::openapi::schema::Schema {
    schemas::credentials(<Credential as utoipa::PartialSchema>::schema())
}

/// `{"providers": {…}, "updated_at"?}`: never a key.
#[derive(Debug, Serialize, ToSchema)]
struct CredentialList {
    /// Keyed by credential name.
    providers: BTreeMap<String, CredentialView>,
    /// The newest change; absent while no key is stored.
    #[serde(skip_serializing_if = "Option::is_none", with = "timestamp::option")]
    updated_at: Option<DateTime<Utc>>,
}

/// A stored credential as answers show it: never the key.
#[derive(Debug, Serialize, ToSchema)]
struct CredentialView {
    /// Always `api_key`.
    #[serde(rename = "type")]
    #[schema(value_type = String, pattern = "^api_key$")]
    kind: &'static str,
    /// Always `true`.
    configured: bool,
    /// Whose key it is: the caller's own, or the first admin's (`admin`),
    /// shared with every owner that has none of its own.
    owner: String,
    /// The key's last four characters, for keys of 20 characters or more.
    #[serde(skip_serializing_if = "Option::is_none")]
    hint: Option<String>,
    #[serde(with = "timestamp")]
    created_at: DateTime<Utc>,
    #[serde(with = "timestamp")]
    updated_at: DateTime<Utc>,
}

impl From<CredentialInfo> for CredentialView {
    fn from(info: CredentialInfo) -> Self {
        let CredentialInfo { owner, hint, created_at, updated_at, .. } = info;
        CredentialView { kind: "api_key", configured: true, owner, hint, created_at, updated_at }
    }
}

/// Every stored credential, by name: never the key.
#[utoipa::path(
    get,
    path = "/provider/auth",
    tag = "providers",
    operation_id = "list_credentials",
    responses((status = 200, description = "The credentials the caller's runs use: its owner's own, and the first admin's shared ones it has none of", body = CredentialList))
)]
async fn list(State(state): State<AppState>, caller: Caller) -> ApiResult<Json<CredentialList>> {
    let stored = state.store.list_credentials(&caller.owner).await?;
    let updated_at = stored.iter().map(|c| c.updated_at).max();
    let providers = stored.into_iter().map(|info| (info.provider.clone(), info.into())).collect();
    Ok(Json(CredentialList { providers, updated_at }))
}

/// `{"status": "ok"}`.
#[derive(Debug, Serialize, ToSchema)]
struct Stored {
    /// Always `ok`.
    #[schema(value_type = String, pattern = "^ok$")]
    status: &'static str,
}

/// Stores every credential of the body in one transaction, or none: each
/// name and key is checked before anything is written.
#[utoipa::path(
    put,
    path = "/provider/auth",
    tag = "providers",
    operation_id = "put_credentials",
    request_body = PutBody,
    responses(
        (status = 200, description = "Every credential was stored", body = Stored),
        (status = 400, description = "Malformed JSON, a refused name or key", body = ErrorBody),
        (status = 422, description = "Another shape, no provider, a `type` other than `api_key`", body = ErrorBody),
    )
)]
async fn put(
    State(state): State<AppState>,
    caller: Caller,
    headers: HeaderMap,
    body: Bytes,
) -> ApiResult<Json<Stored>> {
    let shape = r#"{"providers": {"<provider>": {"type": "api_key", "key": "…"}}}"#;
    let body: PutBody = sealed_json(&headers, &body, shape)?;
    if body.providers.is_empty() {
        return Err(ApiError::Unprocessable("providers must name at least one provider".into()));
    }
    let mut keys = Vec::with_capacity(body.providers.len());
    for (name, credential) in body.providers {
        auth::check_name(&name).map_err(|e| ApiError::BadRequest(format!("{name}: {e}")))?;
        if credential.kind != "api_key" {
            return Err(ApiError::Unprocessable(format!(
                "{name}: credentials of type {:?} are not supported (only \"api_key\")",
                credential.kind
            )));
        }
        auth::check_key(&credential.key).map_err(|e| ApiError::BadRequest(format!("{name}: {e}")))?;
        keys.push((name, ApiKey::new(credential.key)));
    }
    let stored = state.store.put_credentials(&caller.owner, keys).await?;
    for info in &stored {
        tracing::info!(provider = %info.provider, owner = %info.owner, "credential stored");
    }
    Ok(Json(Stored { status: "ok" }))
}

/// Deletes a stored credential.
#[utoipa::path(
    delete,
    path = "/provider/auth/{provider}",
    tag = "providers",
    operation_id = "delete_credential",
    params(("provider" = inline(schemas::CredentialName), Path, description = "The credential name: a provider ID, or `provider:label`")),
    responses(
        (status = 200, description = "Deleted", body = Deleted),
        (status = 400, description = "Not a credential name", body = ErrorBody),
        (status = 404, description = "The caller's owner has no credential of that name", body = ErrorBody),
    )
)]
async fn remove(
    State(state): State<AppState>,
    caller: Caller,
    Path(provider): Path<String>,
) -> ApiResult<Json<Deleted>> {
    auth::check_name(&provider).map_err(ApiError::BadRequest)?;
    let forgotten = state.store.delete_credential(&caller.owner, &provider).await;
    forgotten.map_err(naming(format!("credential {provider}")))?;
    tracing::info!(provider, owner = %caller.owner, "credential deleted");
    Ok(deleted())
}
