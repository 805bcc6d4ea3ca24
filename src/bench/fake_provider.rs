//! A fake OpenAI-compatible provider on loopback that admits a known number
//! of requests a second and answers the rest `429`, so that what Wingman
//! does about rate limits can be measured (`wingman bench ratelimit`) and
//! tested against a limit known exactly, with no real provider and no key.
//!
//! It serves `POST /v1/chat/completions` in the wire format of OpenAI's
//! captures: a streamed answer is Server-Sent Events of
//! `chat.completion.chunk` objects, a usage chunk with no choices when
//! `stream_options.include_usage` asks for one, then `data: [DONE]`.
//! Admission is a token bucket, the algorithm Anthropic documents for its
//! limiter: `requests_per_second` tokens at most, refilled continuously at
//! `requests_per_second` a second, full at the start.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::Response;
use axum::routing::post;
use axum::Router;
use serde_json::{json, Value};

/// How the fake behaves: its limit, its answer, whether it tells its limit
/// in headers, and how long an admitted call takes, so that one server
/// type covers both a provider that explains itself and one that does not.
#[derive(Debug, Clone)]
pub struct FakeConfig {
    /// Requests admitted a second, and the most admitted in one burst.
    pub requests_per_second: u32,
    /// The text of every admitted answer.
    pub answer: String,
    /// Whether every answer carries OpenAI's `x-ratelimit-*-requests` headers.
    pub send_rate_limit_headers: bool,
    /// How long an admitted call waits before it answers, as a model would.
    pub latency: Duration,
}

impl Default for FakeConfig {
    /// Ten requests a second answered `ok` at once without headers: a small
    /// limit a test reaches quickly.
    fn default() -> Self {
        FakeConfig {
            requests_per_second: 10,
            answer: "ok".into(),
            send_rate_limit_headers: false,
            latency: Duration::ZERO,
        }
    }
}

/// A running fake provider; dropping it stops its listener, so a test
/// cannot leave one behind.
pub struct RateLimited {
    addr: std::net::SocketAddr,
    shared: Arc<Shared>,
    server: tokio::task::JoinHandle<()>,
}

impl RateLimited {
    /// Starts the fake on a free loopback port, served by a task of the
    /// current tokio runtime, so that tests and benches need no fixed port.
    pub async fn start(config: FakeConfig) -> std::io::Result<RateLimited> {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let addr = listener.local_addr()?;
        let shared = Arc::new(Shared {
            bucket: Mutex::new(Bucket::full(f64::from(config.requests_per_second), Instant::now())),
            config,
            calls: AtomicU64::new(0),
            admitted: AtomicU64::new(0),
            rejected: AtomicU64::new(0),
        });
        let app = Router::new().route("/v1/chat/completions", post(completions)).with_state(shared.clone());
        let server = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        Ok(RateLimited { addr, shared, server })
    }

    /// The agent's `options.base_url` for provider `openai`, which appends
    /// `/chat/completions` to it.
    pub fn url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    /// The settings it was started with, so that a report can quote them.
    pub fn config(&self) -> &FakeConfig {
        &self.shared.config
    }

    /// Every request received on the completions route, admitted or not:
    /// what a provider would bill or count against the limit.
    pub fn calls(&self) -> u64 {
        self.shared.calls.load(Ordering::SeqCst)
    }

    /// Requests that took a token (counted at admission, before the
    /// answer's latency), the ones a real provider would have answered.
    pub fn admitted(&self) -> u64 {
        self.shared.admitted.load(Ordering::SeqCst)
    }

    /// Requests answered `429`: the waste a client's pacing should avoid.
    pub fn rejected(&self) -> u64 {
        self.shared.rejected.load(Ordering::SeqCst)
    }

    /// Zeroes the counters (the bucket keeps its tokens), so that one fake
    /// can measure several phases.
    pub fn reset_counters(&self) {
        for counter in [&self.shared.calls, &self.shared.admitted, &self.shared.rejected] {
            counter.store(0, Ordering::SeqCst);
        }
    }
}

impl Drop for RateLimited {
    fn drop(&mut self) {
        self.server.abort();
    }
}

/// What the server's task shares with its handle.
struct Shared {
    config: FakeConfig,
    /// Never held across an await: taken and released within [`Shared::admit`].
    bucket: Mutex<Bucket>,
    calls: AtomicU64,
    admitted: AtomicU64,
    rejected: AtomicU64,
}

impl Shared {
    /// Takes a token if there is a whole one, counting the outcome.
    fn admit(&self) -> Admission {
        let admission = self.bucket.lock().unwrap_or_else(|e| e.into_inner()).take(Instant::now());
        let counter = if admission.admitted { &self.admitted } else { &self.rejected };
        counter.fetch_add(1, Ordering::SeqCst);
        admission
    }
}

/// A token bucket whose capacity is also its refill rate a second.
#[derive(Debug)]
struct Bucket {
    tokens: f64,
    capacity: f64,
    refilled: Instant,
}

/// The bucket's verdict on one request and its state after it, for the headers.
#[derive(Debug, Clone, Copy)]
struct Admission {
    admitted: bool,
    whole_tokens: u64,
    next_token: Duration,
}

impl Bucket {
    fn full(capacity: f64, now: Instant) -> Bucket {
        Bucket { tokens: capacity, capacity, refilled: now }
    }

    fn take(&mut self, now: Instant) -> Admission {
        let elapsed = now.saturating_duration_since(self.refilled).as_secs_f64();
        self.tokens = (self.tokens + elapsed * self.capacity).min(self.capacity);
        self.refilled = now;
        let admitted = self.tokens >= 1.0;
        if admitted {
            self.tokens -= 1.0;
        }
        Admission { admitted, whole_tokens: self.tokens.floor() as u64, next_token: self.until_next_token() }
    }

    /// The time until one more whole token (none when the bucket is full,
    /// a second when it never refills).
    fn until_next_token(&self) -> Duration {
        if self.tokens >= self.capacity {
            return Duration::ZERO;
        }
        if self.capacity <= 0.0 {
            return Duration::from_secs(1);
        }
        Duration::from_secs_f64((self.tokens.floor() + 1.0 - self.tokens) / self.capacity)
    }
}

async fn completions(State(shared): State<Arc<Shared>>, body: Bytes) -> Response {
    let call = shared.calls.fetch_add(1, Ordering::SeqCst) + 1;
    let admission = shared.admit();
    let mut response = if admission.admitted {
        tokio::time::sleep(shared.config.latency).await;
        let request: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
        answer(&request, &shared.config.answer, call)
    } else {
        too_many_requests()
    };
    if shared.config.send_rate_limit_headers {
        rate_limit_headers(response.headers_mut(), shared.config.requests_per_second, &admission);
    }
    response
}

/// OpenAI's request headers. OpenAI states limits a minute, so the limit is
/// `requests_per_second × 60`; the remaining figure is the bucket's whole
/// tokens scaled the same way, so that remaining over limit is how full
/// the bucket is (and a full bucket shows remaining = limit, as a fresh
/// OpenAI window does). The reset is the time until one more token, the
/// soonest another request would be admitted, in OpenAI's `50ms` style.
fn rate_limit_headers(headers: &mut HeaderMap, rps: u32, admission: &Admission) {
    let per_minute = u64::from(rps) * 60;
    let remaining = admission.whole_tokens.saturating_mul(60).min(per_minute);
    let reset = format!("{}ms", admission.next_token.as_millis());
    for (name, value) in [
        ("x-ratelimit-limit-requests", per_minute.to_string()),
        ("x-ratelimit-remaining-requests", remaining.to_string()),
        ("x-ratelimit-reset-requests", reset),
    ] {
        if let Ok(value) = HeaderValue::from_str(&value) {
            headers.insert(name, value);
        }
    }
}

/// `429` as OpenAI words a request-rate refusal, with `retry-after: 1`.
fn too_many_requests() -> Response {
    let body = json!({"error": {"message": "Rate limit reached for requests", "type": "requests",
        "param": null, "code": "rate_limit_exceeded"}});
    Response::builder()
        .status(StatusCode::TOO_MANY_REQUESTS)
        .header(header::CONTENT_TYPE, "application/json")
        .header(header::RETRY_AFTER, "1")
        .body(Body::from(body.to_string()))
        .unwrap_or_default()
}

/// The admitted answer: streamed when the request asks for a stream (as
/// Wingman's provider does), a plain `chat.completion` otherwise.
fn answer(request: &Value, text: &str, call: u64) -> Response {
    let model = request.get("model").and_then(Value::as_str).unwrap_or("gpt-4o-mini");
    let id = format!("chatcmpl-fake{call}");
    let usage = usage(request, text);
    let (content_type, body) = if request.get("stream").and_then(Value::as_bool) == Some(true) {
        let with_usage = request.pointer("/stream_options/include_usage").and_then(Value::as_bool) == Some(true);
        ("text/event-stream", stream(&id, model, text, with_usage.then_some(usage)))
    } else {
        let message = json!({"role": "assistant", "content": text, "refusal": null});
        let choice = json!({"index": 0, "message": message, "logprobs": null, "finish_reason": "stop"});
        let body = json!({"id": id, "object": "chat.completion", "created": now_secs(), "model": model,
            "choices": [choice], "usage": usage});
        ("application/json", body.to_string())
    };
    Response::builder()
        .status(StatusCode::OK)
        .header(header::CONTENT_TYPE, content_type)
        .body(Body::from(body))
        .unwrap_or_default()
}

/// The SSE of a streamed answer: the role, the text a word at a time, the
/// finish reason, the usage (when asked) and `[DONE]`.
fn stream(id: &str, model: &str, text: &str, usage: Option<Value>) -> String {
    let created = now_secs();
    let chunk = |choices: Value, usage: Option<&Value>| {
        let mut chunk = json!({"id": id, "object": "chat.completion.chunk", "created": created, "model": model,
            "system_fingerprint": "fp_fake", "choices": choices});
        if let Some(usage) = usage {
            chunk["usage"] = usage.clone();
        }
        format!("data: {chunk}\n\n")
    };
    let delta = |delta: Value, finish: Value| {
        chunk(json!([{"index": 0, "delta": delta, "logprobs": null, "finish_reason": finish}]), None)
    };
    let mut out = delta(json!({"role": "assistant", "content": "", "refusal": null}), Value::Null);
    for piece in text.split_inclusive(' ') {
        out.push_str(&delta(json!({"content": piece}), Value::Null));
    }
    out.push_str(&delta(json!({}), json!("stop")));
    if let Some(usage) = usage {
        out.push_str(&chunk(json!([]), Some(&usage)));
    }
    out.push_str("data: [DONE]\n\n");
    out
}

/// Small, plausible counts: a word of the prompt or the answer is a token,
/// plus a few for each message's framing.
fn usage(request: &Value, text: &str) -> Value {
    let messages = request.get("messages").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
    let words: usize = messages
        .iter()
        .map(|m| 3 + m.get("content").and_then(Value::as_str).map_or(0, |c| c.split_whitespace().count()))
        .sum();
    let (prompt, completion) = (words.max(1), text.split_whitespace().count().max(1));
    json!({"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion,
        "completion_tokens_details": {"reasoning_tokens": 0}})
}

fn now_secs() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn fake(rps: u32, headers: bool) -> RateLimited {
        let config = FakeConfig {
            requests_per_second: rps,
            answer: "all is well".into(),
            send_rate_limit_headers: headers,
            ..Default::default()
        };
        RateLimited::start(config).await.expect("start the fake provider")
    }

    fn request() -> Value {
        json!({"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "hello there"}],
            "stream": true, "stream_options": {"include_usage": true}})
    }

    /// Sends `n` requests at once and answers their responses.
    async fn burst(fake: &RateLimited, n: usize) -> Vec<reqwest::Response> {
        let http = reqwest::Client::new();
        let url = format!("{}/chat/completions", fake.url());
        let sends = (0..n).map(|_| http.post(&url).json(&request()).send());
        futures_util::future::join_all(sends).await.into_iter().map(|r| r.expect("the fake answers")).collect()
    }

    #[tokio::test]
    async fn a_burst_of_twice_the_rate_gets_the_rate_admitted_and_the_rest_429() {
        let fake = fake(10, true).await;
        let responses = burst(&fake, 20).await;
        let ok = responses.iter().filter(|r| r.status() == StatusCode::OK).count();
        assert!((10..=11).contains(&ok), "{ok} admitted");
        for refused in responses.into_iter().filter(|r| r.status() != StatusCode::OK) {
            assert_eq!(refused.status(), StatusCode::TOO_MANY_REQUESTS);
            assert_eq!(refused.headers()["retry-after"], "1");
            assert_eq!(refused.headers()["x-ratelimit-limit-requests"], "600");
            let body: Value = refused.json().await.unwrap();
            assert_eq!(body["error"]["code"], "rate_limit_exceeded");
        }
        assert_eq!((fake.calls(), fake.admitted() as usize, fake.rejected() as usize), (20, ok, 20 - ok));
        fake.reset_counters();
        assert_eq!((fake.calls(), fake.admitted(), fake.rejected()), (0, 0, 0));
    }

    #[tokio::test]
    async fn after_a_second_requests_are_admitted_again() {
        let fake = fake(5, false).await;
        burst(&fake, 10).await;
        assert!(fake.rejected() >= 4, "the bucket emptied: {}", fake.rejected());
        tokio::time::sleep(Duration::from_secs(1)).await;
        let responses = burst(&fake, 5).await;
        assert!(responses.iter().all(|r| r.status() == StatusCode::OK));
        assert!(responses.iter().all(|r| r.headers().get("x-ratelimit-limit-requests").is_none()));
    }

    #[tokio::test]
    async fn the_answer_is_openai_sse_ending_in_done_that_wingman_reads() {
        let fake = fake(10, false).await;
        let response = burst(&fake, 1).await.remove(0);
        assert_eq!(response.headers()["content-type"], "text/event-stream");
        let body = response.text().await.unwrap();
        let data: Vec<&str> = body.lines().filter_map(|l| l.strip_prefix("data: ")).collect();
        assert_eq!(data.last(), Some(&"[DONE]"), "{body}");
        let (deltas, _rx) = tokio::sync::mpsc::unbounded_channel();
        let mut state = crate::provider::openai::StreamState::default();
        for payload in &data {
            state.on_data(payload, &deltas).unwrap();
        }
        let answer = state.finish().unwrap();
        assert_eq!((answer.text.as_str(), answer.stop_reason.as_str()), ("all is well", "end_turn"));
        assert_eq!((answer.usage.input_tokens, answer.usage.output_tokens), (5, 3));
    }

    #[test]
    fn the_bucket_refills_continuously_up_to_its_capacity() {
        let start = Instant::now();
        let mut bucket = Bucket::full(4.0, start);
        assert!((0..4).all(|_| bucket.take(start).admitted));
        let empty = bucket.take(start);
        assert!(!empty.admitted);
        assert_eq!(empty.next_token, Duration::from_millis(250));
        assert!(bucket.take(start + Duration::from_millis(260)).admitted);
        let later = bucket.take(start + Duration::from_secs(10));
        assert_eq!((later.admitted, later.whole_tokens), (true, 3));
    }
}
