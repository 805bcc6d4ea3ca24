//! HTTP tools: a call is a signed POST to the user's service.
//!
//! The worker POSTs `{"run_id", "call_id", "tool", "input"}` to the tool's
//! URL with its headers, `Idempotency-Key: <run_id>/<call_id>` and, when the
//! operator set a signing secret, `Wingman-Signature`. A 2xx answer's body
//! is the result; a 4xx, or a 3xx (redirects are never followed: one could
//! lead off the allowed host), an error result. A 5xx, a 408 or 429, a
//! timeout or a failed connection is tried again after a backoff, three
//! tries in all, each with the same key and body and a fresh signature.
//! Every try resolves the host anew and connects only to an address the
//! network policy allows, as webfetch does.

use std::net::SocketAddr;
use std::time::Duration;

use reqwest::header::{HeaderMap, HeaderName, HeaderValue, CONTENT_TYPE};
use reqwest::redirect::Policy;
use reqwest::{Client, StatusCode, Url};
use serde_json::json;

use super::netpolicy::{self, Unreachable};
use super::webfetch::{self, Page};
use super::{output, signature, ToolContext, ToolOutput};
use crate::domain::model::ToolCall;
use crate::domain::toolset::HttpTool;

/// How many times a call is tried before it ends as an error result.
pub const TRIES: u32 = 3;
/// The most bytes of an answer read; the rest is dropped with a note.
pub const MAX_BODY_BYTES: usize = 5 * 1024 * 1024;

/// What one try came to.
enum Try {
    /// The result, whatever it says: the call is over.
    Done(ToolOutput),
    /// A failure that may pass, described for the final error.
    Again(String),
}

/// Calls the HTTP tool `tool` for `call`; stops at once when the run is
/// cancelled.
pub async fn call(tool: &HttpTool, call: &ToolCall, ctx: &ToolContext) -> ToolOutput {
    tokio::select! {
        output = tries(tool, call, ctx) => output,
        _ = ctx.cancel.cancelled() => ToolOutput::error(format!("HTTP tool {}: cancelled", tool.name)),
    }
}

/// Tries the call up to [`TRIES`] times, waiting longer before each retry.
async fn tries(tool: &HttpTool, call: &ToolCall, ctx: &ToolContext) -> ToolOutput {
    let url = match webfetch::parse_url(&tool.url) {
        Ok(url) => url,
        Err(e) => return ToolOutput::error(format!("HTTP tool {}: {e}", tool.name)),
    };
    let body = request_body(tool, call, ctx);
    let timeout = Duration::from_millis(tool.timeout_ms());
    let mut last = String::new();
    for attempt in 0..TRIES {
        if attempt > 0 {
            tokio::time::sleep(backoff(ctx.outside.retry_base, attempt - 1)).await;
        }
        let outcome = match tokio::time::timeout(timeout, try_once(tool, &url, &body, call, ctx)).await {
            Ok(outcome) => outcome,
            Err(_) => Try::Again(format!("timed out after {} ms", tool.timeout_ms())),
        };
        match outcome {
            Try::Done(output) => return output,
            Try::Again(why) => {
                tracing::debug!(tool = %tool.name, call_id = %call.id, attempt = attempt + 1, %why, "HTTP tool try failed");
                last = why;
            }
        }
    }
    ToolOutput::error(format!("HTTP tool {} failed after {TRIES} tries; the last one: {last}", tool.name))
}

/// The JSON the service receives: the same bytes on every try.
fn request_body(tool: &HttpTool, call: &ToolCall, ctx: &ToolContext) -> Vec<u8> {
    let body = json!({"run_id": ctx.run_id, "call_id": call.id, "tool": tool.name, "input": call.input});
    serde_json::to_vec(&body).unwrap_or_default()
}

/// The wait before retry `n` (0 for the first): `base × 2ⁿ`, drawn between
/// half of it and all of it, so that calls failing together spread out.
fn backoff(base: Duration, n: u32) -> Duration {
    let ceiling = base.saturating_mul(1 << n.min(16));
    ceiling / 2 + ceiling.mul_f64(fastrand::f64() * 0.5)
}

/// One try: resolve and check the address, POST, and judge the answer.
async fn try_once(tool: &HttpTool, url: &Url, body: &[u8], call: &ToolCall, ctx: &ToolContext) -> Try {
    let policy = ctx.outside.policy_for(url, ctx.allow_private_network);
    let addr = match netpolicy::resolve(url, &policy, &[]).await {
        Ok(addr) => addr,
        Err(Unreachable::Refused { ip, message }) => {
            let refusal = ctx.outside.refusal(url, ip, &message);
            return Try::Done(ToolOutput::error(format!("HTTP tool {}: {refusal}", tool.name)));
        }
        Err(Unreachable::NoAddress(why)) => return Try::Again(why),
    };
    let headers = match headers(tool, body, &ctx.idempotency_key(&call.id), ctx) {
        Ok(headers) => headers,
        Err(e) => return Try::Done(ToolOutput::error(format!("HTTP tool {}: {e}", tool.name))),
    };
    let client = match pinned_client(url, addr, concat!("wingman-http-tool/", env!("CARGO_PKG_VERSION"))) {
        Ok(client) => client,
        Err(e) => return Try::Done(ToolOutput::error(format!("HTTP tool {}: {e}", tool.name))),
    };
    let response = match client.post(url.clone()).headers(headers).body(body.to_vec()).send().await {
        Ok(response) => response,
        Err(e) => return Try::Again(format!("the request failed: {}", webfetch::error_chain(&e.without_url()))),
    };
    match webfetch::read_page(url.clone(), response, MAX_BODY_BYTES).await {
        Ok(page) => judge(tool, &page),
        Err(e) => Try::Again(e),
    }
}

/// The tool's own headers, then the call's, which replace any of the same
/// name: the key and signature are the worker's to give.
fn headers(tool: &HttpTool, body: &[u8], key: &str, ctx: &ToolContext) -> Result<HeaderMap, String> {
    let mut map = HeaderMap::new();
    for (name, value) in &tool.headers {
        let name = HeaderName::from_bytes(name.as_bytes()).map_err(|_| format!("the header {name:?} is not valid"))?;
        let value = HeaderValue::from_str(value).map_err(|_| format!("the value of the header {name} is not valid"))?;
        map.insert(name, value);
    }
    let value = |text: &str| HeaderValue::from_str(text).map_err(|_| format!("{text:?} cannot be a header value"));
    map.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    map.insert("idempotency-key", value(key)?);
    if let Some(secret) = &ctx.outside.signing_secret {
        // A fresh timestamp on every try, so the receiver's freshness check holds for retries too.
        map.insert(signature::HEADER, value(&secret.sign(chrono::Utc::now().timestamp(), body))?);
    }
    Ok(map)
}

/// A client that connects to `addr` for this URL's host and nowhere else,
/// follows no redirect and uses no proxy (a proxy would connect on the
/// worker's behalf to an address never checked).
pub fn pinned_client(url: &Url, addr: SocketAddr, user_agent: &str) -> Result<Client, String> {
    let mut builder = Client::builder().redirect(Policy::none()).no_proxy().user_agent(user_agent);
    if let Some(url::Host::Domain(name)) = url.host() {
        builder = builder.resolve(name, addr);
    }
    builder.build().map_err(|e| format!("cannot build an HTTP client: {e}"))
}

/// What an answer means: the result, an error result, or a reason to try again.
fn judge(tool: &HttpTool, page: &Page) -> Try {
    let status = StatusCode::from_u16(page.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let name = &tool.name;
    if status.is_success() {
        return Try::Done(ToolOutput::ok(shown_body(page, status)));
    }
    let body = shown_body(page, status);
    if status.is_server_error() || matches!(status.as_u16(), 408 | 429) {
        let excerpt = output::head(&body, 20, 2048).0;
        return Try::Again(format!("the service answered {status}: {excerpt}"));
    }
    if status.is_redirection() {
        return Try::Done(ToolOutput::error(format!(
            "HTTP tool {name}: the service answered {status}, a redirect, which is not followed (it could lead \
             to a host the network policy does not allow); the tool's url must be where it answers"
        )));
    }
    Try::Done(ToolOutput::error(format!("HTTP tool {name}: the service answered {status}: {body}")))
}

/// The body as text within the output cap, with a note for each cut; a note
/// in place of an empty body, so the model never sees nothing.
fn shown_body(page: &Page, status: StatusCode) -> String {
    if page.body.is_empty() {
        return format!("[the service answered {status} with an empty body]");
    }
    let text = String::from_utf8_lossy(&page.body);
    let (shown, cut) = output::head(&text, output::MAX_LINES, output::MAX_BYTES);
    let mut out = shown.to_string();
    let mut notes = Vec::new();
    if page.truncated {
        notes.push(format!("[download stopped at {} bytes; the rest of the answer was not read]", page.body.len()));
    }
    if cut {
        notes.push(format!("[answer cut at {} lines / 50 KB]", output::MAX_LINES));
    }
    for note in notes {
        if !out.ends_with('\n') {
            out.push('\n');
        }
        out.push_str(&note);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_within_its_jitter() {
        let base = Duration::from_millis(100);
        for n in 0..4 {
            let ceiling = base * (1 << n);
            let wait = backoff(base, n);
            assert!(wait >= ceiling / 2 && wait <= ceiling, "{n}: {wait:?}");
        }
    }

    fn page(status: u16, body: &str) -> Page {
        let url = Url::parse("http://tools.example/x").unwrap();
        Page { url, status, content_type: String::new(), body: body.as_bytes().to_vec(), truncated: false }
    }

    fn tool() -> HttpTool {
        serde_json::from_value(
            json!({"name": "t", "input_schema": {"type": "object"}, "url": "http://tools.example/x"}),
        )
        .unwrap()
    }

    #[test]
    fn answers_are_judged_by_their_status() {
        let done = |status, body| match judge(&tool(), &page(status, body)) {
            Try::Done(output) => Some(output),
            Try::Again(_) => None,
        };
        assert_eq!(done(200, "42"), Some(ToolOutput::ok("42")));
        assert!(done(204, "").unwrap().output.contains("204 No Content with an empty body"));
        let missing = done(404, "no such order").unwrap();
        assert!(missing.is_error && missing.output.contains("404 Not Found: no such order"), "{missing:?}");
        assert!(done(302, "").unwrap().output.contains("redirect, which is not followed"));
        for again in [500, 502, 503, 408, 429] {
            assert!(done(again, "busy").is_none(), "{again} is tried again");
        }
    }

    #[test]
    fn a_long_answer_is_cut_with_a_note() {
        let long = "x\n".repeat(output::MAX_LINES + 5);
        let shown = shown_body(&page(200, &long), StatusCode::OK);
        assert!(shown.ends_with("[answer cut at 2000 lines / 50 KB]"), "{}", &shown[shown.len() - 60..]);
        assert_eq!(shown.lines().count(), output::MAX_LINES + 1);
    }
}
