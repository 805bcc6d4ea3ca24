//! Provider credentials: `GET|PUT /provider/auth`, `DELETE /provider/auth/{provider}`,
//! in the original Wingman API's shapes.
//!
//! A key goes in and never comes out: answers show, per credential name, its
//! type, `configured`, a hint of the key's last characters and timestamps.
//! The request body is parsed here rather than by the shared JSON extractor
//! so that no parse error can quote any part of it.

use std::collections::BTreeMap;

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::routing::{delete, get};
use axum::{Json, Router};
use serde::Deserialize;
use serde_json::{json, Map, Value};

use super::error::{naming, ApiError, ApiResult};
use super::extract::require_json;
use super::{deleted, AppState};
use crate::provider::auth::{self, ApiKey};

pub fn routes() -> Router<AppState> {
    Router::new().route("/provider/auth", get(list).put(put)).route("/provider/auth/{provider}", delete(remove))
}

/// The body of `PUT /provider/auth`: `{"providers": {"<name>": {"type": "api_key", "key": "…"}}}`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PutBody {
    providers: BTreeMap<String, Credential>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Credential {
    #[serde(rename = "type")]
    kind: String,
    key: String,
}

/// `{"providers": {"<name>": {"type", "configured", "hint"?, "created_at", "updated_at"}}, "updated_at"?}`:
/// `updated_at` is the newest change, absent while nothing is stored.
async fn list(State(state): State<AppState>) -> ApiResult<Json<Value>> {
    let stored = state.store.list_credentials().await?;
    let mut providers = Map::new();
    for info in &stored {
        let mut entry = json!({"type": "api_key", "configured": true});
        let Value::Object(fields) = serde_json::to_value(info).unwrap_or_default() else { continue };
        for (k, v) in fields.into_iter().filter(|(k, _)| k != "provider") {
            entry[k] = v;
        }
        providers.insert(info.provider.clone(), entry);
    }
    let mut body = json!({"providers": providers});
    if let Some(newest) = stored.iter().map(|c| c.updated_at).max() {
        body["updated_at"] = json!(crate::model::timestamp::format(&newest));
    }
    Ok(Json(body))
}

/// Stores every credential of the body in one transaction, or none: each
/// name and key is checked before anything is written.
async fn put(State(state): State<AppState>, headers: HeaderMap, body: Bytes) -> ApiResult<Json<Value>> {
    require_json(&headers)?;
    let body: PutBody = serde_json::from_slice(&body).map_err(|e| {
        // serde's message may quote a value; only its category and place are safe to show.
        // Like the shared extractor: bad syntax is a 400, the wrong fields a 422.
        let (status, what) = match e.classify() {
            serde_json::error::Category::Data => (
                StatusCode::UNPROCESSABLE_ENTITY,
                "must be {\"providers\": {\"<provider>\": {\"type\": \"api_key\", \"key\": \"…\"}}}",
            ),
            _ => (StatusCode::BAD_REQUEST, "is not valid JSON"),
        };
        ApiError::Rejected { status, message: format!("the body {what} (line {}, column {})", e.line(), e.column()) }
    })?;
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
    let stored = state.store.put_credentials(keys).await?;
    for info in &stored {
        tracing::info!(provider = %info.provider, "credential stored");
    }
    Ok(Json(json!({"status": "ok"})))
}

async fn remove(State(state): State<AppState>, Path(provider): Path<String>) -> ApiResult<Json<Value>> {
    auth::check_name(&provider).map_err(ApiError::BadRequest)?;
    state.store.delete_credential(&provider).await.map_err(naming(format!("credential {provider}")))?;
    tracing::info!(provider, "credential deleted");
    Ok(deleted())
}
