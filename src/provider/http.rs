//! What the HTTP providers share: one client, the request they send, and the
//! classification of every way a call can fail.
//!
//! Transient (worth a retry): connection errors, timeouts, 408, 409, 429 and
//! every 5xx (Anthropic's 529 "overloaded" among them), and errors inside a
//! stream that had started. Fatal: every other status (400, 401, 403, 404, …).
//! A provider's `x-should-retry` header, when present, overrides the status;
//! an OpenAI 429 whose code is `insufficient_quota` is fatal (money, not time,
//! fixes it). `retry-after-ms` and `retry-after` (seconds or an HTTP date) are
//! parsed into the delay the provider asks for; the engine caps it.

use std::sync::OnceLock;
use std::time::Duration;

use reqwest::header::HeaderMap;
use reqwest::{RequestBuilder, Response, StatusCode};
use serde_json::{Map, Value};

use super::auth::ApiKey;
use super::ProviderError;

/// How long a call may wait for the response to begin, or for its next
/// piece, unless `options.timeout_secs` says otherwise.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(300);

/// The process's HTTP client: one connection pool for every provider call.
pub fn client() -> &'static reqwest::Client {
    static CLIENT: OnceLock<reqwest::Client> = OnceLock::new();
    CLIENT.get_or_init(|| {
        reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(15))
            .pool_idle_timeout(Duration::from_secs(60))
            .user_agent(concat!("wingman/", env!("CARGO_PKG_VERSION")))
            .build()
            .unwrap_or_else(|_| reqwest::Client::new())
    })
}

/// The idle timeout an agent's options ask for.
pub fn timeout(options: &Map<String, Value>) -> Duration {
    options
        .get("timeout_secs")
        .and_then(Value::as_f64)
        .filter(|s| s.is_finite() && *s > 0.0)
        .map(|s| Duration::from_secs_f64(s.min(86_400.0)))
        .unwrap_or(DEFAULT_TIMEOUT)
}

/// The endpoint for `path` under the agent's `base_url` (or the default).
pub fn endpoint(options: &Map<String, Value>, default_base: &str, path: &str) -> String {
    let base = options.get("base_url").and_then(Value::as_str).unwrap_or(default_base);
    format!("{}{}", base.trim_end_matches('/'), path)
}

/// A header value holding a key, marked sensitive so that no `Debug` of the
/// request prints it.
pub fn secret_header(prefix: &str, key: &ApiKey) -> Result<reqwest::header::HeaderValue, ProviderError> {
    let mut value = reqwest::header::HeaderValue::from_str(&format!("{prefix}{}", key.expose()))
        .map_err(|_| ProviderError::fatal("the stored API key cannot be sent in an HTTP header"))?;
    value.set_sensitive(true);
    Ok(value)
}

/// Sends a request and waits for the response head, classifying failures.
/// A non-2xx response is read and turned into a [`ProviderError`].
pub async fn send(
    request: RequestBuilder,
    idle: Duration,
    key: Option<&ApiKey>,
    message_of: fn(&Value) -> Option<String>,
) -> Result<Response, ProviderError> {
    let response = match tokio::time::timeout(idle, request.send()).await {
        Err(_) => return Err(ProviderError::transient(format!("no response within {}s", idle.as_secs_f64()))),
        Ok(Err(e)) => return Err(scrubbed(transport_error(&e), key)),
        Ok(Ok(response)) => response,
    };
    if response.status().is_success() {
        return Ok(response);
    }
    let status = response.status();
    let headers = response.headers().clone();
    let body = match tokio::time::timeout(idle, response.bytes()).await {
        Ok(Ok(bytes)) => bytes.to_vec(),
        _ => Vec::new(),
    };
    Err(scrubbed(status_error(status, &headers, &body, message_of), key))
}

/// Reads the next piece of a streamed body, or `None` at its end.
pub async fn next_chunk(response: &mut Response, idle: Duration) -> Result<Option<bytes::Bytes>, ProviderError> {
    match tokio::time::timeout(idle, response.chunk()).await {
        Err(_) => Err(ProviderError::transient(format!("the stream stalled for {}s", idle.as_secs_f64()))),
        Ok(Err(e)) => Err(ProviderError::transient(format!("the stream broke: {}", describe(&e)))),
        Ok(Ok(chunk)) => Ok(chunk),
    }
}

/// Reads a whole (non-streamed) JSON body.
pub async fn json_body(response: Response, idle: Duration) -> Result<Value, ProviderError> {
    let bytes = match tokio::time::timeout(idle, response.bytes()).await {
        Err(_) => return Err(ProviderError::transient(format!("the response stalled for {}s", idle.as_secs_f64()))),
        Ok(Err(e)) => return Err(ProviderError::transient(format!("reading the response failed: {}", describe(&e)))),
        Ok(Ok(bytes)) => bytes,
    };
    serde_json::from_slice(&bytes).map_err(|e| ProviderError::transient(format!("the response is not JSON: {e}")))
}

fn scrubbed(mut error: ProviderError, key: Option<&ApiKey>) -> ProviderError {
    if let Some(key) = key {
        error.message = key.scrub(&error.message);
    }
    error
}

/// Classifies a failure to get a response at all.
pub fn transport_error(e: &reqwest::Error) -> ProviderError {
    if e.is_builder() {
        return ProviderError::fatal(format!("invalid request: {}", describe(e)));
    }
    ProviderError::transient(format!("could not reach the provider: {}", describe(e)))
}

/// A reqwest error with its causes, which say what actually went wrong
/// (connection refused, DNS, TLS) where the top level only says "error
/// sending request".
fn describe(e: &reqwest::Error) -> String {
    let mut text = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

/// Classifies an error response from its status, headers and body.
pub fn status_error(
    status: StatusCode,
    headers: &HeaderMap,
    body: &[u8],
    message_of: fn(&Value) -> Option<String>,
) -> ProviderError {
    let parsed: Option<Value> = serde_json::from_slice(body).ok();
    let message = parsed.as_ref().and_then(message_of).unwrap_or_else(|| {
        let text = String::from_utf8_lossy(body);
        let text = text.trim();
        if text.is_empty() {
            status.canonical_reason().unwrap_or("error").to_string()
        } else {
            text.chars().take(500).collect()
        }
    });
    let mut error = ProviderError::from_status(status.as_u16(), message);
    if let Some(retry) = should_retry(headers) {
        error.transient = retry;
    }
    let code = parsed.as_ref().and_then(|v| v.pointer("/error/code")).and_then(Value::as_str);
    if status == StatusCode::TOO_MANY_REQUESTS && code == Some("insufficient_quota") {
        error.transient = false;
    }
    error.retry_after = retry_after(headers);
    error.heard = super::ratelimit::heard(headers).map(Box::new);
    let kind = parsed.as_ref().and_then(|v| v.pointer("/error/type")).and_then(Value::as_str);
    error.overflow = super::overflow::recognise(status.as_u16(), code.or(kind), &error.message);
    if error.overflow.is_some() {
        // The same prompt would be refused again: the run compacts instead.
        error.transient = false;
    }
    error
}

fn should_retry(headers: &HeaderMap) -> Option<bool> {
    match headers.get("x-should-retry")?.to_str().ok()?.trim() {
        "true" => Some(true),
        "false" => Some(false),
        _ => None,
    }
}

/// The delay a response asks for: `retry-after-ms`, else `retry-after` in
/// seconds or as an HTTP date.
pub fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok()).map(str::trim);
    if let Some(ms) = header("retry-after-ms").and_then(|v| v.parse::<f64>().ok()) {
        return finite_secs(ms / 1000.0);
    }
    let value = header("retry-after")?;
    if let Ok(secs) = value.parse::<f64>() {
        return finite_secs(secs);
    }
    let date = chrono::DateTime::parse_from_rfc2822(value).ok()?;
    let wait = date.with_timezone(&chrono::Utc) - chrono::Utc::now();
    Some(wait.to_std().unwrap_or(Duration::ZERO))
}

fn finite_secs(secs: f64) -> Option<Duration> {
    // An absurd value is capped by the engine; this only keeps it finite.
    (secs.is_finite() && secs >= 0.0).then(|| Duration::from_secs_f64(secs.min(86_400.0)))
}

/// `{"error": {"type", "message"}}` (Anthropic, OpenAI) or `{"error": "…"}`
/// (Ollama, many OpenAI-compatible servers) as one line of text.
pub fn error_message(body: &Value) -> Option<String> {
    let error = body.get("error")?;
    if let Some(text) = error.as_str() {
        return Some(text.to_string());
    }
    let message = error.get("message").and_then(Value::as_str)?;
    let kind = error.get("type").and_then(Value::as_str);
    let mut text = match kind {
        Some(kind) if !kind.is_empty() => format!("{kind}: {message}"),
        _ => message.to_string(),
    };
    if let Some(id) = body.get("request_id").and_then(Value::as_str) {
        text.push_str(&format!(" (request_id {id})"));
    }
    Some(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::HeaderValue;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.insert(*name, HeaderValue::from_str(value).unwrap());
        }
        map
    }

    #[test]
    fn retry_after_accepts_milliseconds_seconds_and_dates() {
        assert_eq!(retry_after(&headers(&[("retry-after", "17")])), Some(Duration::from_secs(17)));
        assert_eq!(retry_after(&headers(&[("retry-after", "1.5")])), Some(Duration::from_millis(1500)));
        let both = headers(&[("retry-after", "17"), ("retry-after-ms", "250")]);
        assert_eq!(retry_after(&both), Some(Duration::from_millis(250)));
        let past = headers(&[("retry-after", "Fri, 22 Nov 2024 13:44:10 GMT")]);
        assert_eq!(retry_after(&past), Some(Duration::ZERO));
        let soon = (chrono::Utc::now() + chrono::Duration::seconds(30)).to_rfc2822();
        let wait = retry_after(&headers(&[("retry-after", &soon)])).unwrap();
        assert!(wait > Duration::from_secs(27) && wait <= Duration::from_secs(30), "{wait:?}");
        assert_eq!(retry_after(&headers(&[("retry-after", "soon")])), None);
        assert_eq!(retry_after(&headers(&[("retry-after", "-3")])), None);
        assert_eq!(retry_after(&HeaderMap::new()), None);
    }

    #[test]
    fn statuses_are_classified() {
        for (status, transient) in [
            (400, false),
            (401, false),
            (403, false),
            (404, false),
            (408, true),
            (409, true),
            (413, false),
            (429, true),
            (500, true),
            (503, true),
            (529, true),
        ] {
            let e = status_error(StatusCode::from_u16(status).unwrap(), &HeaderMap::new(), b"", error_message);
            assert_eq!(e.transient, transient, "status {status}");
            assert_eq!(e.status, Some(status));
        }
    }

    #[test]
    fn should_retry_header_overrides_the_status() {
        let no = headers(&[("x-should-retry", "false")]);
        assert!(!status_error(StatusCode::SERVICE_UNAVAILABLE, &no, b"", error_message).transient);
        let yes = headers(&[("x-should-retry", "true")]);
        assert!(status_error(StatusCode::BAD_REQUEST, &yes, b"", error_message).transient);
    }

    #[test]
    fn bodies_that_are_not_json_still_give_a_message() {
        let e = status_error(StatusCode::BAD_GATEWAY, &HeaderMap::new(), b"<html>bad gateway</html>", error_message);
        assert_eq!(e.message, "<html>bad gateway</html>");
        let e = status_error(StatusCode::BAD_GATEWAY, &HeaderMap::new(), b"", error_message);
        assert_eq!(e.message, "Bad Gateway");
    }
}
