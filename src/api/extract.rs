//! Extractors whose rejections are answered in the API's error shape.

use axum::body::Bytes;
use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::request::Parts;
use axum::http::{header, HeaderMap, StatusCode};
use serde::de::DeserializeOwned;

use super::error::ApiError;

/// A JSON body; malformed or mistyped JSON is a 4xx `{"error": …}`. An empty
/// body reads as `{}`, as the original Wingman server read it.
pub struct JsonBody<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequest<S> for JsonBody<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        require_json(req.headers())?;
        let bytes = Bytes::from_request(req, state)
            .await
            .map_err(|e| ApiError::Rejected { status: e.status(), message: e.body_text() })?;
        let text: &[u8] = if bytes.iter().all(u8::is_ascii_whitespace) { b"{}" } else { &bytes };
        serde_json::from_slice(text).map(JsonBody).map_err(|e| match e.classify() {
            // Missing fields and wrong types are the client's data, not its syntax.
            serde_json::error::Category::Data => {
                ApiError::Unprocessable(format!("the body does not fit this route: {e}"))
            }
            _ => ApiError::BadRequest(format!("the body is not valid JSON: {e}")),
        })
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

/// Refuses a body that declares a type other than JSON (415).
///
/// A body without a `Content-Type`, or labelled
/// `application/x-www-form-urlencoded` (what `curl -d` sends by default, and
/// what the original Wingman API's curl examples send), is read as JSON, as
/// that server read it. This opens no door to other sites' pages: a browser
/// sends `Origin` with every cross-site request that changes state, and the
/// host guard refuses those before any handler runs.
pub fn require_json(headers: &HeaderMap) -> Result<(), ApiError> {
    let Some(content_type) = headers.get(header::CONTENT_TYPE) else { return Ok(()) };
    let content_type = content_type.to_str().unwrap_or("");
    let mime = content_type.split(';').next().unwrap_or("").trim().to_ascii_lowercase();
    let json = mime == "application/json" || (mime.starts_with("application/") && mime.ends_with("+json"));
    if json || mime == "application/x-www-form-urlencoded" {
        return Ok(());
    }
    Err(ApiError::Rejected {
        status: StatusCode::UNSUPPORTED_MEDIA_TYPE,
        message: format!("the body must be JSON (Content-Type: application/json), not {mime:?}"),
    })
}
