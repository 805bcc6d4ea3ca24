//! A log's event stream asked for while the database cannot be reached, on
//! PostgreSQL. A browser's EventSource gives up for good on an error status,
//! so the server answers an SSE client with a stream that only says when to
//! reconnect, and a JSON client with 503. Once the database is back, the
//! same reconnection (`Last-Event-ID`) gets the rest of the log.

mod common;

use std::time::{Duration, Instant};

use common::{assert_dense, Api, Backend, TestEnv};
use serde_json::{json, Value};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_event_stream_asked_for_during_a_database_outage_is_told_to_reconnect() {
    if common::postgres_url_or_skip().is_none() {
        return;
    }
    let mut env = TestEnv::on(Backend::Postgres);
    // Only the server reaches the database through the relay.
    let (switch, direct) = common::outage::through_relay(&mut env).await;
    let server = env.server(0);
    env.set("WINGMAN_DATABASE_URL", &direct);
    let _worker = env.worker();
    let api = server.api();
    let script = json!([{"text": "an answer long enough to stream in several pieces, one word after another"}]);
    let agent = api.create_agent(json!({"name": "talker", "options": {"script": script}})).await;
    let session = api.create_session(&agent, None).await;
    let run = api.send(&session, "talk").await;
    let (log, done) = api.sse_read(&run, None, None).await;
    assert!(done, "the run ended: {log:?}");
    let half = log[log.len() / 2]["seq"].as_u64().unwrap();

    switch.send_replace(false);
    let (status, content_type, body) = raw_stream(&api, &run, half).await;
    assert_eq!(status, 200, "an SSE client is not answered 503: {body}");
    assert!(content_type.starts_with("text/event-stream"), "{content_type}");
    assert!(body.contains("retry: "), "the stream says when to reconnect: {body}");
    assert!(!body.contains("data:"), "and carries no event: {body}");
    let json = api.http.get(format!("{}/runs/{run}/events", api.base)).send().await.unwrap();
    assert_eq!(json.status().as_u16(), 503, "a JSON client still learns of the outage");
    assert_eq!(json.headers()["retry-after"], "1");
    let refusal: Value = json.json().await.unwrap();
    assert!(refusal["error"].is_string(), "{refusal}");

    switch.send_replace(true);
    // As an EventSource would: reconnect after each hint until events come.
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let (status, _, body) = raw_stream(&api, &run, half).await;
        if status == 200 && body.contains("data:") {
            break;
        }
        assert!(Instant::now() < deadline, "the stream never came back: {status} {body}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let (rest, done) = api.sse_read(&run, Some(half), None).await;
    assert!(done, "the rest of the log ends with done: {rest:?}");
    let whole: Vec<Value> = log.iter().take_while(|e| e["seq"].as_u64() <= Some(half)).cloned().chain(rest).collect();
    assert_dense(&whole);
    assert_eq!(whole, log, "the pieces are the log");
}

/// Asks for a run's events as an SSE client that has them up to `after`,
/// and reads the whole answer (a finished run's stream ends by itself).
async fn raw_stream(api: &Api, run: &str, after: u64) -> (u16, String, String) {
    let request = api
        .http
        .get(format!("{}/runs/{run}/events", api.base))
        .header("Accept", "text/event-stream")
        .header("Last-Event-ID", after.to_string());
    let response = tokio::time::timeout(Duration::from_secs(30), request.send()).await.expect("an answer").unwrap();
    let status = response.status().as_u16();
    let content_type = response.headers().get("content-type").and_then(|v| v.to_str().ok()).unwrap_or("").to_string();
    let body = tokio::time::timeout(Duration::from_secs(30), response.text()).await.expect("the stream ended");
    (status, content_type, body.unwrap_or_default())
}
