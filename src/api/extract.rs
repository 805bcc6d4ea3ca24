//! Extractors whose rejections are answered in the API's error shape.

use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::request::Parts;
use axum::http::{header, HeaderMap, StatusCode};
use serde::de::DeserializeOwned;

use super::error::ApiError;

/// A JSON body; malformed or mistyped JSON is a 4xx `{"error": …}`.
pub struct JsonBody<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequest<S> for JsonBody<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        let axum::Json(value) = axum::Json::<T>::from_request(req, state).await?;
        Ok(JsonBody(value))
    }
}

/// Query parameters; bad ones are a 400 `{"error": …}`.
pub struct QueryParams<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequestParts<S> for QueryParams<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        let axum::extract::Query(value) = axum::extract::Query::<T>::from_request_parts(parts, state).await?;
        Ok(QueryParams(value))
    }
}

/// Refuses a body that does not say it is JSON, as the JSON extractor does
/// (415), for handlers that parse their body themselves.
pub fn require_json(headers: &HeaderMap) -> Result<(), ApiError> {
    let content_type = headers.get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or("");
    let mime = content_type.split(';').next().unwrap_or("").trim().to_ascii_lowercase();
    let json = mime == "application/json" || (mime.starts_with("application/") && mime.ends_with("+json"));
    if json {
        return Ok(());
    }
    Err(ApiError::Rejected {
        status: StatusCode::UNSUPPORTED_MEDIA_TYPE,
        message: "Expected request with `Content-Type: application/json`".into(),
    })
}
