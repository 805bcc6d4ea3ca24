//! Reasoning through the real server and worker: Anthropic's thinking blocks
//! streamed as `thinking_delta`, kept in the history and sent back unchanged
//! (signature included, before the `tool_use`) by a local server speaking
//! the documented stream shapes; the scripted provider's thinking; and the
//! `reasoning` fields refused with a 400 that writes nothing.

mod common;
mod providers_support;

use std::time::Duration;

use common::{assert_dense, Backend, TestEnv};
use providers_support::{fixture, MockServer, Reply};
use serde_json::{json, Value};

const LIMIT: Duration = Duration::from_secs(30);
const SIGNATURE: &str = "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds+/=";
const REDACTED: &str = "EmwKAhgBEgy3va3pzix/LafPsn4aqGR0kLqlN1/Rw==";
const THINKING: [&str; 3] = ["The user wants ", "a check first, ", "so I run it."];

fn event(data: Value) -> String {
    format!("event: {}\ndata: {data}\n\n", data["type"].as_str().unwrap())
}

fn block_delta(index: u64, delta: Value) -> String {
    event(json!({"type": "content_block_delta", "index": index, "delta": delta}))
}

/// An answer in the documented shapes of extended thinking: a thinking block
/// (thinking deltas, then a signature delta), a redacted_thinking block, and
/// a tool_use of bash.
fn thinking_then_bash() -> Vec<u8> {
    let mut body = event(json!({"type": "message_start", "message": {"id": "msg_1", "type": "message",
        "role": "assistant", "content": [], "model": "claude-sonnet-4-5", "stop_reason": null,
        "usage": {"input_tokens": 20, "output_tokens": 1}}}));
    let start = |index: u64, block: Value| {
        event(json!({"type": "content_block_start", "index": index, "content_block": block}))
    };
    let stop = |index: u64| event(json!({"type": "content_block_stop", "index": index}));
    body += &start(0, json!({"type": "thinking", "thinking": ""}));
    for piece in THINKING {
        body += &block_delta(0, json!({"type": "thinking_delta", "thinking": piece}));
    }
    body += &block_delta(0, json!({"type": "signature_delta", "signature": SIGNATURE}));
    body += &stop(0);
    body += &start(1, json!({"type": "redacted_thinking", "data": REDACTED}));
    body += &stop(1);
    body += &start(2, json!({"type": "tool_use", "id": "toolu_9", "name": "bash", "input": {}}));
    body += &block_delta(2, json!({"type": "input_json_delta", "partial_json": "{\"command\": \"echo ok\"}"}));
    body += &stop(2);
    body +=
        &event(json!({"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 30}}));
    body += &event(json!({"type": "message_stop"}));
    body.into_bytes()
}

fn of_type<'a>(events: &'a [Value], kind: &str) -> Vec<&'a Value> {
    events.iter().filter(|e| e["type"] == kind).collect()
}

/// The thinking blocks as they must go back, before the tool_use.
fn sent_back() -> Value {
    json!([
        {"type": "thinking", "thinking": THINKING.concat(), "signature": SIGNATURE},
        {"type": "redacted_thinking", "data": REDACTED},
        {"type": "tool_use", "id": "toolu_9", "name": "bash", "input": {"command": "echo ok"}}
    ])
}

on_both_backends! {
async fn anthropic_thinking_is_streamed_kept_and_sent_back_unchanged(backend: Backend) {
    let env = TestEnv::on(backend);
    let server = env.server(0);
    let _worker = env.worker();
    let api = server.api();
    let text = || Reply::sse(fixture("anthropic_stream_text_padded.sse"));
    let replay = MockServer::start(vec![Reply::sse(thinking_then_bash()), text(), text()]).await;
    let (status, body) = api.put("/provider/auth", json!({"providers": {"anthropic": {"type": "api_key", "key": "sk-test"}}})).await;
    assert_eq!(status, 200, "{body}");
    let agent = api
        .create_agent(json!({"name": "thinker", "provider": "anthropic", "model": "claude-sonnet-4-5",
            "tools": ["bash"], "reasoning": "high", "options": {"base_url": replay.url}}))
        .await;
    let work = tempfile::tempdir().unwrap();
    let session = api.create_session(&agent, Some(work.path())).await;
    let run_id = api.send(&session, "Run the check.").await;
    let run = api.wait_terminal(&run_id, LIMIT).await;
    assert_eq!(run["status"], "succeeded", "{run}");

    // Thinking streamed as thinking_delta events of step 1, before its tool call.
    let events = api.events(&run_id).await;
    assert_dense(&events);
    let thinking = of_type(&events, "thinking_delta");
    assert!(thinking.iter().all(|e| e["step"] == 1), "{thinking:?}");
    let streamed: String = thinking.iter().map(|e| e["text"].as_str().unwrap()).collect();
    assert_eq!(streamed, THINKING.concat());
    let seq_of = |kind: &str| of_type(&events, kind)[0]["seq"].as_u64().unwrap();
    assert!(seq_of("thinking_delta") < seq_of("tool_call"));

    // The first request asked for thinking; the second sent its blocks back as they came.
    let requests = replay.requests();
    assert_eq!(requests[0].body["thinking"], json!({"type": "enabled", "budget_tokens": 16384}));
    assert_eq!(requests[0].body["max_tokens"], json!(16384 + 4096));
    let turns = requests[1].body["messages"].as_array().unwrap().clone();
    assert_eq!(turns[1]["role"], "assistant");
    assert_eq!(turns[1]["content"], sent_back(), "the assistant turn goes back byte for byte");

    // The history holds them, signature and all.
    let (status, session_view) = api.get(&format!("/sessions/{session}")).await;
    assert_eq!(status, 200, "{session_view}");
    let assistant = &session_view["history"][1];
    assert_eq!(assistant["role"], "assistant");
    assert_eq!(assistant["content"][0], json!({"type": "thinking", "thinking": THINKING.concat(), "signature": SIGNATURE}));
    assert_eq!(assistant["content"][1], json!({"type": "redacted_thinking", "data": REDACTED}));
    assert_eq!(assistant["content"][2]["type"], "tool_use");

    // A second message, at a lower level, still sends the first run's thinking.
    let (status, body) = api
        .post(&format!("/sessions/{session}/message"), json!({"message": "And now?", "reasoning": "low"}))
        .await;
    assert_eq!(status, 202, "{body}");
    let second = api.wait_terminal(body["run_id"].as_str().unwrap(), LIMIT).await;
    assert_eq!(second["status"], "succeeded", "{second}");
    let third = &replay.requests()[2].body;
    assert_eq!(third["thinking"], json!({"type": "enabled", "budget_tokens": 1024}));
    assert_eq!(third["messages"][1]["content"], sent_back());
}

async fn scripted_thinking_streams_and_reasoning_fields_are_checked(backend: Backend) {
    let env = TestEnv::on(backend);
    let server = env.server(0);
    let _worker = env.worker();
    let api = server.api();
    let script = json!([{"thinking": "first this, then that", "text": "Done."}]);
    let agent = api
        .create_agent(json!({"name": "s", "reasoning": "max", "reasoning_byte_limit": 4096,
            "options": {"script": script, "chunk_delay_ms": 5}}))
        .await;
    let (status, shown) = api.get(&format!("/agents/{agent}")).await;
    assert_eq!((status, &shown["reasoning"], &shown["reasoning_byte_limit"]), (200, &json!("max"), &json!(4096)));
    let session = api.create_session(&agent, None).await;
    let run_id = api.send(&session, "go").await;
    assert_eq!(api.wait_terminal(&run_id, LIMIT).await["status"], "succeeded");
    let events = api.events(&run_id).await;
    let streamed: String = of_type(&events, "thinking_delta").iter().map(|e| e["text"].as_str().unwrap()).collect();
    assert_eq!(streamed, "first this, then that");
    let (_, view) = api.get(&format!("/sessions/{session}")).await;
    let block = &view["history"][1]["content"][0];
    assert_eq!(block["type"], "thinking", "{view}");
    assert!(block["signature"].as_str().unwrap().starts_with("scripted-"), "{block}");

    // Refused values write nothing.
    let (_, before) = api.get("/agents").await;
    for bad in [json!({"name": "x", "reasoning": "extreme"}), json!({"name": "x", "reasoning_byte_limit": 10})] {
        let (status, body) = api.post("/agents", bad.clone()).await;
        assert_eq!(status, 400, "{bad}: {body}");
        assert!(body["error"].as_str().unwrap().contains("reasoning"), "{body}");
    }
    let (status, body) = api.put(&format!("/agents/{agent}"), json!({"reasoning": "HIGH"})).await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(api.get("/agents").await.1, before);
    let (status, body) = api.post(&format!("/sessions/{session}/message"), json!({"message": "m", "reasoning": "lots"})).await;
    assert_eq!(status, 400, "{body}");
    assert!(body["error"].as_str().unwrap().contains("off, low, medium, high, max"), "{body}");
    let (_, runs) = api.get(&format!("/runs?session_id={session}")).await;
    assert_eq!(runs["runs"].as_array().map(Vec::len), Some(1), "a refused message writes no run: {runs}");
}
}
