//! Traces through real processes: a local OTLP/HTTP receiver decodes the
//! spans a worker exports (the `opentelemetry-proto` types): their names,
//! their GenAI attributes, their parent from the submission's
//! `traceparent`, and a run resumed after its worker was SIGKILLed in the
//! same trace. Without an endpoint, nothing is exported.

mod common;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::Bytes;
use axum::extract::State;
use common::{Backend, TestEnv};
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::any_value::Value as AnyValue;
use prost::Message;
use serde_json::json;

const LIMIT: Duration = Duration::from_secs(30);
const TRACE: &str = "4bf92f3577b34da6a3ce929d0e0e4736";
const PARENT: &str = "00f067aa0ba902b7";

/// A span as the receiver decoded it.
#[derive(Debug, Clone)]
struct Received {
    name: String,
    trace_id: String,
    span_id: String,
    parent: String,
    attributes: HashMap<String, String>,
}

type Spans = Arc<Mutex<Vec<Received>>>;

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

async fn receive(State(spans): State<Spans>, body: Bytes) -> &'static str {
    let request = ExportTraceServiceRequest::decode(body).expect("an OTLP/HTTP protobuf body");
    let mut received = spans.lock().unwrap();
    for span in request.resource_spans.iter().flat_map(|r| &r.scope_spans).flat_map(|s| &s.spans) {
        let attributes = span
            .attributes
            .iter()
            .map(|kv| {
                let value = match kv.value.as_ref().and_then(|v| v.value.as_ref()) {
                    Some(AnyValue::StringValue(s)) => s.clone(),
                    Some(AnyValue::IntValue(i)) => i.to_string(),
                    Some(other) => format!("{other:?}"),
                    None => String::new(),
                };
                (kv.key.clone(), value)
            })
            .collect();
        received.push(Received {
            name: span.name.clone(),
            trace_id: hex(&span.trace_id),
            span_id: hex(&span.span_id),
            parent: hex(&span.parent_span_id),
            attributes,
        });
    }
    ""
}

/// Starts the receiver; returns what it decodes and its base URL.
async fn receiver() -> (Spans, String) {
    let spans = Spans::default();
    let app = axum::Router::new().route("/v1/traces", axum::routing::post(receive)).with_state(spans.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (spans, url)
}

async fn wait_for(spans: &Spans, what: &str, found: impl Fn(&[Received]) -> bool) -> Vec<Received> {
    let began = Instant::now();
    loop {
        let now = spans.lock().unwrap().clone();
        if found(&now) {
            return now;
        }
        assert!(began.elapsed() < LIMIT, "{what}: {now:#?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

on_both_backends! {
async fn a_run_resumed_after_a_sigkill_stays_in_its_submission_s_trace(backend: Backend) {
    let (spans, url) = receiver().await;
    let mut env = TestEnv::on(backend);
    env.set("OTEL_EXPORTER_OTLP_ENDPOINT", &url);
    env.set("OTEL_BSP_SCHEDULE_DELAY", "100");
    let server = env.server(0);
    let mut first = env.worker();
    let api = server.api();
    let script = json!([{"tool_calls": [{"name": "bash", "input": {"command": "sleep 4; echo slept"}}]}, {"text": "done"}]);
    let agent = api.create_agent(json!({"name": "sleeper", "model": "script", "tools": ["bash"], "options": {"script": script}})).await;
    let session = api.create_session(&agent, None).await;
    let traceparent = format!("00-{TRACE}-{PARENT}-01");
    let path = format!("/sessions/{session}/message");
    let answer = api.send_with(reqwest::Method::POST, &path, Some(json!({"message": "go"})), &[("traceparent", &traceparent)]).await;
    assert_eq!(answer.status, 202, "{}", answer.body);
    let run = answer.body["run_id"].as_str().unwrap().to_string();
    api.wait_event(&run, LIMIT, |e| e["type"] == "tool_call").await;
    // The first attempt's inference was exported while its tool call runs.
    wait_for(&spans, "the first chat span", |s| s.iter().any(|s| s.name == "chat script")).await;
    first.kill9();
    let _second = env.worker();
    let ended = api.wait_terminal(&run, LIMIT).await;
    assert_eq!((ended["status"].as_str(), ended["trace_id"].as_str()), (Some("succeeded"), Some(TRACE)));

    let spans = wait_for(&spans, "the second attempt's spans", |s| {
        s.iter().any(|s| s.name == "invoke_agent sleeper") && s.iter().filter(|s| s.name == "chat script").count() >= 2
    })
    .await;
    assert!(spans.iter().all(|s| s.trace_id == TRACE), "one trace: {spans:#?}");
    let attempts: Vec<&Received> = spans.iter().filter(|s| s.name == "invoke_agent sleeper").collect();
    assert_eq!(attempts.len(), 1, "the killed attempt's span never ended: {attempts:#?}");
    let attempt = attempts[0];
    assert_eq!(attempt.parent, PARENT, "under the submission's span");
    let attr = |s: &Received, key: &str| s.attributes.get(key).cloned().unwrap_or_default();
    assert_eq!(attr(attempt, "gen_ai.operation.name"), "invoke_agent");
    assert_eq!((attr(attempt, "wingman.run.id"), attr(attempt, "wingman.run.attempt")), (run.clone(), "2".into()));
    assert_eq!(attr(attempt, "gen_ai.agent.name"), "sleeper");
    let tools: Vec<&Received> = spans.iter().filter(|s| s.name == "execute_tool bash").collect();
    assert!(!tools.is_empty(), "{spans:#?}");
    let tool = tools.last().unwrap();
    assert_eq!((attr(tool, "gen_ai.operation.name"), attr(tool, "gen_ai.tool.name")), ("execute_tool".into(), "bash".into()));
    assert!(attr(tool, "gen_ai.tool.call.id").starts_with("call_"), "{tool:?}");
    assert_eq!(tool.parent, attempt.span_id, "a tool call is a child of its attempt");
    let chats: Vec<&Received> = spans.iter().filter(|s| s.name == "chat script").collect();
    for chat in &chats {
        assert_eq!((attr(chat, "gen_ai.operation.name"), attr(chat, "gen_ai.request.model")), ("chat".into(), "script".into()));
        assert!(attr(chat, "gen_ai.usage.output_tokens").parse::<u64>().is_ok(), "{chat:?}");
        assert_eq!(attr(chat, "gen_ai.provider.name"), "scripted");
    }
    assert!(chats.iter().any(|c| c.parent == attempt.span_id), "the second attempt's inference");
    assert!(chats.iter().any(|c| c.parent != attempt.span_id), "the first attempt's, in the same trace");
}
}

#[tokio::test]
async fn a_run_without_a_traceparent_gets_a_trace_of_its_own_and_nothing_is_exported_without_an_endpoint() {
    let env = TestEnv::new();
    let server = env.server(1);
    let api = server.api();
    let agent = api.create_agent(json!({"name": "echo", "provider": "scripted", "model": "echo"})).await;
    let session = api.create_session(&agent, None).await;
    let run = api.send(&session, "hi").await;
    let ended = api.wait_terminal(&run, LIMIT).await;
    let trace = ended["trace_id"].as_str().unwrap();
    assert!(trace.len() == 32 && trace != TRACE, "{ended}");
    let other = api.send(&session, "again").await;
    assert_ne!(api.wait_terminal(&other, LIMIT).await["trace_id"].as_str(), Some(trace), "a trace per submission");
    assert!(!server.process.log_text().contains("exporting traces"), "no exporter without an endpoint");
}

/// Every kind of submission goes through the one door, which sets what
/// every run carries: a compaction asked for by a client joins the client's
/// trace as a message does (it once started a trace of its own).
#[tokio::test]
async fn a_compaction_run_carries_its_submission_s_traceparent() {
    let env = TestEnv::new();
    let server = env.server(1);
    let api = server.api();
    let agent = api.create_agent(json!({"name": "echo", "provider": "scripted", "model": "echo"})).await;
    let session = api.create_session(&agent, None).await;
    let traceparent = format!("00-{TRACE}-{PARENT}-01");
    let header = [("traceparent", traceparent.as_str())];
    let path = format!("/sessions/{session}/compact");
    let answer = api.send_with(reqwest::Method::POST, &path, Some(json!({})), &header).await;
    assert_eq!(answer.status, 202, "{}", answer.body);
    let run = answer.body["run_id"].as_str().unwrap();
    let ended = api.wait_terminal(run, LIMIT).await;
    assert_eq!((ended["kind"].as_str(), ended["trace_id"].as_str()), (Some("compaction"), Some(TRACE)), "{ended}");
}
