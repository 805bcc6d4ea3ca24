//! One error type for every handler: each variant is a status and a message;
//! internal errors are logged and hidden.

use axum::extract::rejection::{JsonRejection, QueryRejection};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Serialize;
use serde_json::json;

use crate::store::StoreError;
use crate::submit::{unavailable_message, SubmitError, DISK_FULL_MESSAGE};

/// The body of every error answer: `{"error": "…"}`.
#[derive(Debug, Serialize, utoipa::ToSchema)]
#[schema(example = json!({"error": "run 01JABC… not found"}))]
pub struct ErrorBody {
    /// What went wrong, for people.
    pub error: String,
}

/// An error answered as `{"error": "…"}`.
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    #[error("{0}")]
    BadRequest(String),
    #[error("{0} not found")]
    NotFound(String),
    /// A 404 whose message says in full what is missing and what to do.
    #[error("{0}")]
    Gone(String),
    #[error("{0}")]
    Conflict(String),
    /// A change was made over a version of a definition that is no longer
    /// the stored one ([`super::versions`]): a 409, which a change that
    /// named no version makes again over the newer one.
    #[error("{0}")]
    Stale(String),
    #[error("{0}")]
    Unprocessable(String),
    #[error("{message}")]
    Rejected { status: StatusCode, message: String },
    /// The caller's owner is over a quota (a 429): the same request may
    /// succeed after `Retry-After` seconds.
    #[error("{message}")]
    TooMany { message: String, retry_after_secs: u64 },
    /// The database could not be reached, or was too busy to answer in
    /// time (`busy`: every connection in use): the client may retry.
    #[error("{}", unavailable_message(*busy))]
    Unavailable { detail: String, busy: bool },
    /// The database's disk is full: nothing was written, and no retry
    /// succeeds until an operator frees space (a 507, without `Retry-After`).
    #[error("{DISK_FULL_MESSAGE}")]
    DiskFull(String),
    #[error("internal error")]
    Internal(String),
}

impl ApiError {
    fn status(&self) -> StatusCode {
        match self {
            ApiError::BadRequest(_) => StatusCode::BAD_REQUEST,
            ApiError::NotFound(_) | ApiError::Gone(_) => StatusCode::NOT_FOUND,
            ApiError::Conflict(_) | ApiError::Stale(_) => StatusCode::CONFLICT,
            ApiError::Unprocessable(_) => StatusCode::UNPROCESSABLE_ENTITY,
            ApiError::Rejected { status, .. } => *status,
            ApiError::TooMany { .. } => StatusCode::TOO_MANY_REQUESTS,
            ApiError::Unavailable { .. } => StatusCode::SERVICE_UNAVAILABLE,
            ApiError::DiskFull(_) => StatusCode::INSUFFICIENT_STORAGE,
            ApiError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        match &self {
            ApiError::Internal(detail) => tracing::error!(error = %detail, "internal error"),
            ApiError::Unavailable { detail, busy: true } => tracing::warn!(error = %detail, "database busy"),
            ApiError::Unavailable { detail, busy: false } => tracing::warn!(error = %detail, "database unavailable"),
            ApiError::DiskFull(detail) => tracing::error!(error = %detail, "the database's disk is full"),
            _ => {}
        }
        let mut response = (self.status(), Json(ErrorBody { error: self.to_string() })).into_response();
        let retry_after = match &self {
            ApiError::Unavailable { .. } => Some(HeaderValue::from_static("1")),
            ApiError::TooMany { retry_after_secs, .. } => Some(HeaderValue::from(*retry_after_secs)),
            _ => None,
        };
        if let Some(seconds) = retry_after {
            response.headers_mut().insert(header::RETRY_AFTER, seconds);
        }
        response
    }
}

impl From<StoreError> for ApiError {
    fn from(e: StoreError) -> Self {
        match e {
            StoreError::NotFound(what) => ApiError::NotFound(what.to_string()),
            StoreError::Stale { .. } => ApiError::Stale(e.to_string()),
            StoreError::Conflict(message) | StoreError::Busy(message) => ApiError::Conflict(message),
            StoreError::DiskFull(_) => ApiError::DiskFull(e.to_string()),
            other if other.is_retryable() => {
                let busy = matches!(other, StoreError::Overloaded(_));
                ApiError::Unavailable { detail: other.to_string(), busy }
            }
            other => ApiError::Internal(other.to_string()),
        }
    }
}

impl From<SubmitError> for ApiError {
    fn from(e: SubmitError) -> Self {
        match e {
            SubmitError::Invalid(message) => ApiError::BadRequest(message),
            SubmitError::Refused(message) => ApiError::Unprocessable(message),
            SubmitError::NotFound(what) => ApiError::NotFound(what),
            SubmitError::Gone(message) => ApiError::Gone(message),
            SubmitError::Conflict(message) => ApiError::Conflict(message),
            SubmitError::OverQuota(message) => {
                ApiError::TooMany { message, retry_after_secs: crate::domain::quota::QUEUED_RETRY_AFTER_SECS }
            }
            SubmitError::Unavailable { detail, busy } => ApiError::Unavailable { detail, busy },
            SubmitError::DiskFull(detail) => ApiError::DiskFull(detail),
            SubmitError::Internal(detail) => ApiError::Internal(detail),
        }
    }
}

impl From<JsonRejection> for ApiError {
    fn from(rejection: JsonRejection) -> Self {
        let status = match &rejection {
            // Missing fields and wrong types are the client's data, not its syntax.
            JsonRejection::JsonDataError(_) => StatusCode::UNPROCESSABLE_ENTITY,
            other => other.status(),
        };
        ApiError::Rejected { status, message: rejection.body_text() }
    }
}

impl From<QueryRejection> for ApiError {
    fn from(rejection: QueryRejection) -> Self {
        ApiError::BadRequest(rejection.body_text())
    }
}

/// Maps a store error of a call on one named thing: "not found" names it
/// (`"fleet 01…"`), every other error keeps its usual answer.
pub fn naming(what: String) -> impl FnOnce(StoreError) -> ApiError {
    move |e| match e {
        StoreError::NotFound(_) => ApiError::NotFound(what),
        other => other.into(),
    }
}

/// Shorthand for handler results.
pub type ApiResult<T> = Result<T, ApiError>;

/// Rewrites an error answer that is not JSON into `{"error": "…"}`: the
/// framework's own refusals (a body over the limit, a path parameter that is
/// not UTF-8) are plain text otherwise. Other headers are kept.
pub async fn json_errors(response: Response) -> Response {
    let status = response.status();
    let is_json = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    if !(status.is_client_error() || status.is_server_error()) || is_json {
        return response;
    }
    let (mut parts, body) = response.into_parts();
    let text = axum::body::to_bytes(body, 16 * 1024).await.map(|b| String::from_utf8_lossy(&b).trim().to_string());
    let message = match text {
        Ok(text) if !text.is_empty() => text,
        _ => status.canonical_reason().unwrap_or("error").to_lowercase(),
    };
    let body = serde_json::to_vec(&json!({"error": message})).unwrap_or_default();
    parts.headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    parts.headers.remove(header::CONTENT_LENGTH);
    Response::from_parts(parts, axum::body::Body::from(body))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_busy_database_is_a_503_that_says_busy() {
        let busy = ApiError::from(StoreError::Overloaded("every connection in use".into()));
        let down = ApiError::from(StoreError::unavailable("connection refused"));
        assert_eq!((busy.status(), down.status()), (StatusCode::SERVICE_UNAVAILABLE, StatusCode::SERVICE_UNAVAILABLE));
        assert!(busy.to_string().contains("busy") && !down.to_string().contains("busy"), "{busy} / {down}");
        let response = busy.into_response();
        assert_eq!(response.headers().get(header::RETRY_AFTER).unwrap(), "1");
    }

    #[test]
    fn a_full_disk_is_a_507_that_says_so_and_asks_for_no_retry() {
        let full = ApiError::from(StoreError::DiskFull("database or disk is full".into()));
        assert_eq!(full.status(), StatusCode::INSUFFICIENT_STORAGE);
        assert!(full.to_string().contains("disk is full"), "{full}");
        assert!(full.into_response().headers().get(header::RETRY_AFTER).is_none());
        let submitted = ApiError::from(SubmitError::from(StoreError::DiskFull("full".into())));
        assert_eq!(submitted.status(), StatusCode::INSUFFICIENT_STORAGE);
    }
}
