//! The Anthropic provider over HTTP against a local server replaying the
//! recorded captures: headers and bodies sent, streamed answers, and every
//! recorded error with its classification.

mod providers_support;

use std::time::Duration;

use providers_support::{assert_same, fixture, fixture_json, MockServer, Reply};
use serde_json::{json, Value};
use tokio::sync::mpsc;
use wingman::domain::model::{Content, Message, Role};
use wingman::provider::auth::ApiKey;
use wingman::provider::{self, Delta, InferenceRequest, InferenceResponse, ProviderError, ToolSpec};

const KEY: &str = "sk-ant-test-SENTINEL-4b1d9f0e7c2a";

/// The request the SDK sent for `capture`, rebuilt as Wingman's request.
fn request_like(capture: &Value, server: &MockServer) -> InferenceRequest {
    let mut messages = Vec::new();
    for m in capture["messages"].as_array().unwrap() {
        if let Some(text) = m["content"].as_str() {
            messages.push(Message::user_text(text));
            continue;
        }
        let block = &m["content"][0];
        messages.push(match block["type"].as_str().unwrap() {
            "tool_use" => Message {
                role: Role::Assistant,
                content: vec![Content::ToolUse {
                    id: block["id"].as_str().unwrap().into(),
                    name: block["name"].as_str().unwrap().into(),
                    input: block["input"].clone(),
                }],
            },
            _ => Message {
                role: Role::Tool,
                content: vec![Content::ToolResult {
                    tool_use_id: block["tool_use_id"].as_str().unwrap().into(),
                    content: block["content"].as_str().unwrap().into(),
                    is_error: false,
                }],
            },
        });
    }
    let tools = capture["tools"].as_array().unwrap().iter().map(|t| ToolSpec {
        name: t["name"].as_str().unwrap().into(),
        description: t["description"].as_str().unwrap_or("").into(),
        input_schema: t["input_schema"].clone(),
    });
    let stream = capture["stream"].as_bool().unwrap_or(false);
    let options =
        json!({"base_url": server.url, "max_tokens": capture["max_tokens"], "stream": stream, "timeout_secs": 5});
    InferenceRequest {
        model: capture["model"].as_str().unwrap().into(),
        options: options.as_object().cloned().unwrap(),
        system: None,
        history: Default::default(),
        messages,
        tools: tools.collect(),
        output_schema: None,
        call_index: 0,
        reasoning: Default::default(),
    }
}

async fn call(
    request: &InferenceRequest,
    key: Option<&str>,
) -> (Result<InferenceResponse, ProviderError>, Vec<String>) {
    let provider = provider::build("anthropic", key.map(ApiKey::new)).unwrap();
    let (tx, mut rx) = mpsc::unbounded_channel();
    let result = provider.infer(request, &tx).await;
    let mut deltas = Vec::new();
    while let Ok(d) = rx.try_recv() {
        if let Delta::Text(text) = d {
            deltas.push(text);
        }
    }
    (result, deltas)
}

fn simple_request(server: &MockServer) -> InferenceRequest {
    let capture = fixture_json("anthropic_stream_tool_padded.request.json");
    request_like(&capture, server)
}

#[tokio::test]
async fn streams_the_tool_result_turn_and_its_text_answer() {
    let server = MockServer::start(vec![
        Reply::sse(fixture("anthropic_stream_text_padded.sse")).chunked(16, Duration::from_millis(1))
    ])
    .await;
    let capture = fixture_json("anthropic_stream_text_padded.request.json");
    let (answer, deltas) = call(&request_like(&capture, &server), Some(KEY)).await;
    let answer = answer.unwrap();
    assert!(
        answer.text.starts_with("The weather in San Francisco, CA is currently:")
            && answer.text.ends_with("sunny day!")
    );
    assert_eq!(deltas.concat(), answer.text);
    assert_eq!(
        (answer.usage.input_tokens, answer.usage.output_tokens, answer.stop_reason.as_str()),
        (770, 38, "end_turn")
    );

    let sent = &server.requests()[0];
    assert_eq!((sent.method.as_str(), sent.path.as_str()), ("POST", "/v1/messages"));
    assert_eq!(sent.headers["x-api-key"], KEY);
    assert_eq!(sent.headers["anthropic-version"], "2023-06-01");
    assert_eq!(sent.headers["content-type"], "application/json");
    assert!(!sent.headers.contains_key("authorization"));
    let mut expected = capture.clone();
    expected["messages"][1]["content"][0].as_object_mut().unwrap().remove("caller");
    assert_same(&sent.body, &expected);
}

#[tokio::test]
async fn text_reaches_the_channel_before_the_stream_ends() {
    let reply = Reply::sse(fixture("anthropic_stream_text_padded.sse"))
        .pause_before("\" currently\"", Duration::from_millis(500));
    let server = MockServer::start(vec![reply]).await;
    let provider = provider::build("anthropic", Some(ApiKey::new(KEY))).unwrap();
    let request = simple_request(&server);
    let (tx, mut rx) = mpsc::unbounded_channel();
    let call = tokio::spawn(async move { provider.infer(&request, &tx).await });
    let first =
        tokio::time::timeout(Duration::from_millis(400), rx.recv()).await.expect("a delta while the stream is paused");
    assert_eq!(first, Some(Delta::Text("The weather in San Francisco, CA is".into())));
    assert!(!call.is_finished());
    assert!(call.await.unwrap().is_ok());
}

#[tokio::test]
async fn single_tool_calls_streamed_and_not() {
    let server = MockServer::start(vec![
        Reply::sse(fixture("anthropic_stream_tool_padded.sse")).chunked(7, Duration::ZERO),
        Reply::json(200, fixture("anthropic_nonstream_tool.json")),
    ])
    .await;
    let capture = fixture_json("anthropic_stream_tool_padded.request.json");
    let (answer, _) = call(&request_like(&capture, &server), Some(KEY)).await;
    let answer = answer.unwrap();
    assert_eq!(answer.tool_calls[0].input, json!({"location": "San Francisco, CA", "units": "f"}));
    assert_eq!(answer.stop_reason, "tool_use");
    assert_same(&server.requests()[0].body, &capture);

    let capture = fixture_json("anthropic_nonstream_tool.request.json");
    let (answer, _) = call(&request_like(&capture, &server), Some(KEY)).await;
    let answer = answer.unwrap();
    assert_eq!(answer.tool_calls[0].id, "toolu_01GHndag5wQmbzNihYmV2UBj");
    assert_eq!((answer.usage.input_tokens, answer.usage.output_tokens), (659, 74));
    assert_same(&server.requests()[1].body, &capture);
}

#[tokio::test]
async fn recorded_errors_are_classified_with_the_providers_message() {
    let cases = [
        (Reply::recorded("anthropic_error_400.response_headers.json", "anthropic_error_400.json"), 400, false,
         "invalid_request_error: messages.0.content.1: unexpected `tool_use_id` found in `tool_result` blocks: toolu_01GHndag5wQmbzNihYmV2UBj. Each `tool_result` block must have a corresponding `tool_use` block in the previous message. (request_id req_011CYHyk9NPsBYeGbC9LuDNK)", None),
        (Reply::json(401, fixture("anthropic_error_401.json")).header("x-should-retry", "false"), 401, false,
         "authentication_error: invalid x-api-key", None),
        (Reply::recorded("anthropic_error_429.headers.json", "anthropic_error_429.json"), 429, true,
         "rate_limit_error: This request would exceed your organization's rate limit", Some(Duration::from_secs(17))),
        (Reply::json(500, fixture("anthropic_error_500.json")), 500, true,
         "api_error: Internal server error (request_id req_011CYV8W3KDLgqSvRMTBoVWi)", None),
        (Reply::recorded("anthropic_error_529.headers.json", "anthropic_error_529.json"), 529, true,
         "overloaded_error: Overloaded", None),
    ];
    for (reply, status, transient, message, retry_after) in cases {
        let server = MockServer::start(vec![reply]).await;
        let (answer, _) = call(&simple_request(&server), Some(KEY)).await;
        let error = answer.unwrap_err();
        assert_eq!(error.status, Some(status));
        assert_eq!(error.transient, transient, "{status}");
        assert!(error.message.starts_with(message), "{status}: {}", error.message);
        assert_eq!(error.retry_after, retry_after, "{status}");
        assert_eq!(server.requests().len(), 1, "the provider itself never retries; the engine does");
    }
}

#[tokio::test]
async fn a_mid_stream_error_is_transient_after_partial_text() {
    let server =
        MockServer::start(
            vec![Reply::sse(fixture("anthropic_stream_midstream_error.sse")).chunked(33, Duration::ZERO)],
        )
        .await;
    let (answer, deltas) = call(&simple_request(&server), Some(KEY)).await;
    let error = answer.unwrap_err();
    assert!(error.transient);
    assert_eq!(error.status, None);
    assert_eq!(error.message, "api_error: Internal server error (during the stream)");
    assert_eq!(deltas.concat(), "d with a replacement character (");
}

#[tokio::test]
async fn no_key_no_server_and_no_answer() {
    let server = MockServer::start(vec![]).await;
    let (answer, _) = call(&simple_request(&server), None).await;
    let error = answer.unwrap_err();
    assert!(!error.transient && error.message.contains("no API key for anthropic"));
    assert!(server.requests().is_empty());

    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", closed.local_addr().unwrap());
    drop(closed);
    let mut request = simple_request(&server);
    request.options.insert("base_url".into(), json!(url));
    let error = call(&request, Some(KEY)).await.0.unwrap_err();
    assert!(error.transient && error.status.is_none() && error.message.contains("could not reach"), "{error:?}");
    assert!(!error.message.contains(KEY));

    let silent = MockServer::start(vec![Reply::silence()]).await;
    let mut request = simple_request(&silent);
    request.options.insert("timeout_secs".into(), json!(0.2));
    let error = call(&request, Some(KEY)).await.0.unwrap_err();
    assert!(error.transient && error.message.contains("no response within"), "{error:?}");
}

#[tokio::test]
async fn a_key_echoed_by_the_server_is_scrubbed() {
    let body =
        format!("{{\"type\":\"error\",\"error\":{{\"type\":\"authentication_error\",\"message\":\"bad key {KEY}\"}}}}");
    let server = MockServer::start(vec![Reply::json(401, body.into_bytes())]).await;
    let error = call(&simple_request(&server), Some(KEY)).await.0.unwrap_err();
    assert_eq!(error.message, "authentication_error: bad key [redacted]");
}
