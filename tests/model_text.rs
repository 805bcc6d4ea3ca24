//! What a model sends is stored and answered alike on every backend, NUL
//! included (PostgreSQL refuses it in text): a real server and worker, an
//! OpenAI-compatible server on 127.0.0.1 answering with NUL in a tool call's
//! ID and input, in its text, and in an error. In text columns (a run's
//! `response`, `error`) a NUL is stored as U+FFFD; inside JSON (events,
//! history, tool calls) it is kept, escaped.

mod common;
mod providers_support;

use std::time::Duration;

use common::{assert_dense, Backend, TestEnv};
use providers_support::{fixture, openai_text, retool, MockServer, Reply};
use serde_json::{json, Value};

const LIMIT: Duration = Duration::from_secs(30);
/// The capture's tool call ID, and the one with a NUL the test puts there.
const CAPTURED_ID: &str = "call_CTf1nWJLqSeRgDqaCG27xZ74";
const NUL_ID: &str = "call_\u{0}nul";

/// A streamed tool call of `read` whose ID and path hold a NUL.
fn nul_tool_call() -> Vec<u8> {
    let input = json!({"path": "no\u{0}such"});
    let stream = retool(&fixture("openai_stream_tool_calls.sse"), "get_weather", "read", "arguments", &input);
    let escaped_id = serde_json::to_string(NUL_ID).unwrap();
    let stream = String::from_utf8(stream).unwrap().replace(&format!("\"{CAPTURED_ID}\""), &escaped_id);
    stream.into_bytes()
}

async fn agent_on(api: &common::Api, url: &str) -> String {
    let credential = json!({"providers": {"openai": {"type": "api_key", "key": "sk-nul"}}});
    assert_eq!(api.put("/provider/auth", credential).await.0, 200);
    api.create_agent(json!({"name": "nul", "provider": "openai", "model": "gpt-4o-2024-08-06",
        "tools": ["read"], "options": {"base_url": format!("{url}/v1")}}))
        .await
}

fn texts(events: &[Value], kind: &str, field: &str) -> String {
    events.iter().filter(|e| e["type"] == kind).filter_map(|e| e[field].as_str()).collect()
}

on_both_backends! {
    async fn a_model_answer_with_nul_characters_is_stored_alike_on_every_backend(backend: Backend) {
        let env = TestEnv::on(backend);
        let server = env.server(0);
        let _worker = env.worker();
        let api = server.api();
        let replay = MockServer::start(vec![
            Reply::sse(nul_tool_call()),
            Reply::sse(openai_text("before\u{0}after", 10, 2)),
            Reply::json(400, json!({"error": {"message": "bad\u{0}request", "type": "invalid_request_error"}})
                .to_string().into_bytes()),
        ])
        .await;
        let session = api.create_session(&agent_on(&api, &replay.url).await, None).await;

        let run_id = api.send(&session, "read it").await;
        let run = api.wait_terminal(&run_id, LIMIT).await;
        assert_eq!((&run["status"], &run["response"]), (&json!("succeeded"), &json!("before\u{fffd}after")), "{run}");
        assert_eq!(run["tool_calls"][0]["call_id"], NUL_ID, "JSON keeps the NUL");
        assert_eq!(run["tool_calls"][0]["input"]["path"], "no\u{0}such");
        let events = api.events(&run_id).await;
        assert_dense(&events);
        assert_eq!(texts(&events, "text_delta", "text"), "before\u{0}after", "an event's JSON keeps it");
        assert_eq!(texts(&events, "tool_result", "call_id"), NUL_ID);
        assert_eq!(texts(&events, "done", "response"), "before\u{fffd}after", "done says what the run says");
        let history = api.get(&format!("/sessions/{session}")).await.1["history"].clone();
        assert_eq!(history.as_array().map(Vec::len), Some(4), "{history}");
        assert_eq!(history[3]["content"][0]["text"], "before\u{0}after", "the history keeps what the model said");
        let second = &replay.requests()[1].body["messages"];
        assert_eq!(second[1]["tool_calls"][0]["id"], NUL_ID, "the call goes back to the model as it came");

        let failed = api.send(&session, "again").await;
        let run = api.wait_terminal(&failed, LIMIT).await;
        assert_eq!(run["status"], "failed", "{run}");
        let error = run["error"].as_str().unwrap_or_default();
        assert!(error.contains("bad\u{fffd}request") && !error.contains('\u{0}'), "{error:?}");
        assert_eq!(texts(&api.events(&failed).await, "done", "error"), error);
    }
}
