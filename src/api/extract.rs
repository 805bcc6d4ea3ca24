//! Extractors whose rejections are answered in the API's error shape.

use axum::body::Bytes;
use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::request::Parts;
use axum::http::{header, HeaderMap, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde::de::DeserializeOwned;
use serde_json::Value;

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
        refuse_nul_in_body(text)?;
        // Every body is an object: serde would also read a struct from an
        // array of its fields in order, which no route's document allows.
        if text.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'[') {
            return Err(ApiError::Unprocessable("the body must be a JSON object, not an array".into()));
        }
        serde_json::from_slice(text).map(JsonBody).map_err(|e| match e.classify() {
            // Missing fields and wrong types are the client's data, not its syntax.
            serde_json::error::Category::Data => {
                ApiError::Unprocessable(format!("the body does not fit this route: {e}"))
            }
            _ => ApiError::BadRequest(format!("the body is not valid JSON: {e}")),
        })
    }
}

/// Reads a JSON body that carries something that must never show (a key, a
/// secret), so that no refusal quotes any part of it: serde's messages may
/// quote a value, so only the error's category and place are given. Like
/// [`JsonBody`], bad syntax is a 400 and the wrong fields a 422, which names
/// the `shape` the route takes.
pub fn sealed_json<T: DeserializeOwned>(headers: &HeaderMap, body: &[u8], shape: &str) -> Result<T, ApiError> {
    require_json(headers)?;
    serde_json::from_slice(body).map_err(|e| {
        let (status, what) = match e.classify() {
            serde_json::error::Category::Data => (StatusCode::UNPROCESSABLE_ENTITY, format!("must be {shape}")),
            _ => (StatusCode::BAD_REQUEST, "is not valid JSON".to_string()),
        };
        ApiError::Rejected { status, message: format!("the body {what} (line {}, column {})", e.line(), e.column()) }
    })
}

/// Refuses a body with a NUL character in a string (`\u0000`, the only way
/// JSON can hold one): PostgreSQL's text cannot store it, so it is refused
/// on every backend alike, as a client's mistake (400) rather than a failed
/// write. The body is searched for the escape first, so a body without one
/// is parsed once.
fn refuse_nul_in_body(text: &[u8]) -> Result<(), ApiError> {
    if !text.windows(6).any(|w| w.eq_ignore_ascii_case(b"\\u0000")) {
        return Ok(());
    }
    match serde_json::from_slice::<Value>(text) {
        Ok(value) if holds_nul(&value) => Err(ApiError::BadRequest("text must not contain NUL characters".into())),
        _ => Ok(()),
    }
}

fn holds_nul(value: &Value) -> bool {
    match value {
        Value::String(s) => s.contains('\0'),
        Value::Array(items) => items.iter().any(holds_nul),
        Value::Object(fields) => fields.iter().any(|(k, v)| k.contains('\0') || holds_nul(v)),
        _ => false,
    }
}

/// The middleware that refuses a path or query with a NUL character
/// (`%00`, the only way a URI can hold one) before any handler reads it, for
/// the reason [`refuse_nul_in_body`] gives.
pub async fn refuse_nul_in_uri(request: Request, next: Next) -> Response {
    let uri = request.uri();
    let encoded = [uri.path(), uri.query().unwrap_or("")];
    if encoded.iter().any(|part| part.as_bytes().windows(3).any(|w| w == b"%00")) {
        return ApiError::BadRequest("the path and query must not contain NUL characters (%00)".into()).into_response();
    }
    next.run(request).await
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
