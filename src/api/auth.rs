//! Provider credentials: `GET|PUT /provider/auth`, `DELETE /provider/auth/{provider}`.
//!
//! A key goes in and never comes out: answers show the credential name, a
//! hint of the key's last characters and timestamps. The request body is
//! parsed here rather than by the shared JSON extractor so that no parse
//! error can quote any part of it.

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::routing::{delete, get};
use axum::{Json, Router};
use serde::Deserialize;
use serde_json::{json, Value};

use super::error::{ApiError, ApiResult};
use super::extract::require_json;
use super::AppState;
use crate::provider::auth::{self, ApiKey, CredentialInfo};

pub fn routes() -> Router<AppState> {
    Router::new().route("/provider/auth", get(list).put(put)).route("/provider/auth/{provider}", delete(remove))
}

/// The body of `PUT /provider/auth`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PutBody {
    provider: String,
    api_key: String,
}

async fn list(State(state): State<AppState>) -> ApiResult<Json<Value>> {
    Ok(Json(json!({"credentials": state.store.list_credentials().await?})))
}

async fn put(State(state): State<AppState>, headers: HeaderMap, body: Bytes) -> ApiResult<Json<CredentialInfo>> {
    require_json(&headers)?;
    let body: PutBody = serde_json::from_slice(&body).map_err(|e| {
        // serde's message may quote a value; only its category and place are safe to show.
        // Like the shared extractor: bad syntax is a 400, the wrong fields a 422.
        let (status, what) = match e.classify() {
            serde_json::error::Category::Data => (
                StatusCode::UNPROCESSABLE_ENTITY,
                "must be an object with exactly the strings \"provider\" and \"api_key\"",
            ),
            _ => (StatusCode::BAD_REQUEST, "is not valid JSON"),
        };
        ApiError::Rejected { status, message: format!("the body {what} (line {}, column {})", e.line(), e.column()) }
    })?;
    auth::check_name(&body.provider).map_err(ApiError::BadRequest)?;
    auth::check_key(&body.api_key).map_err(ApiError::BadRequest)?;
    let info = state.store.put_credential(&body.provider, &ApiKey::new(body.api_key)).await?;
    tracing::info!(provider = %info.provider, "credential stored");
    Ok(Json(info))
}

async fn remove(State(state): State<AppState>, Path(provider): Path<String>) -> ApiResult<StatusCode> {
    state.store.delete_credential(&provider).await.map_err(|e| match e {
        crate::store::StoreError::NotFound(_) => ApiError::NotFound(format!("credential {provider}")),
        other => other.into(),
    })?;
    tracing::info!(provider, "credential deleted");
    Ok(StatusCode::NO_CONTENT)
}
