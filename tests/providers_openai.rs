//! The OpenAI-compatible provider over HTTP against a local server replaying
//! the recorded captures.

mod providers_support;

use std::time::Duration;

use providers_support::{assert_same, fixture, fixture_json, MockServer, Reply};
use serde_json::{json, Value};
use tokio::sync::mpsc;
use wingman::domain::model::Message;
use wingman::provider::auth::ApiKey;
use wingman::provider::{self, Delta, InferenceRequest, InferenceResponse, ProviderError, ToolSpec};

const KEY: &str = "sk-proj-test-SENTINEL-77c0ffee1234";

fn request_like(capture: &Value, options: Value) -> InferenceRequest {
    let tools = capture["tools"].as_array().unwrap().iter().map(|t| ToolSpec {
        name: t["function"]["name"].as_str().unwrap().into(),
        description: t["function"]["description"].as_str().unwrap_or("").into(),
        input_schema: t["function"]["parameters"].clone(),
    });
    let messages =
        capture["messages"].as_array().unwrap().iter().map(|m| Message::user_text(m["content"].as_str().unwrap()));
    InferenceRequest {
        model: capture["model"].as_str().unwrap().into(),
        options: options.as_object().cloned().unwrap(),
        system: None,
        history: Default::default(),
        messages: messages.collect(),
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
    let provider = provider::build("openai", key.map(ApiKey::new)).unwrap();
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

#[tokio::test]
async fn a_streamed_tool_call_with_usage_and_the_request_sent() {
    let server = MockServer::start(vec![
        Reply::sse(fixture("openai_stream_tool_calls.sse")).chunked(50, Duration::from_millis(1))
    ])
    .await;
    let mut capture = fixture_json("openai_stream_tool_calls.request.json");
    let request = request_like(&capture, json!({"base_url": format!("{}/v1", server.url), "strict_tools": true}));
    let answer = call(&request, Some(KEY)).await.0.unwrap();
    assert_eq!(answer.tool_calls[0].id, "call_CTf1nWJLqSeRgDqaCG27xZ74");
    assert_eq!(answer.tool_calls[0].input, json!({"city": "San Francisco", "state": "CA"}));
    assert_eq!((answer.usage.input_tokens, answer.usage.output_tokens), (48, 19));
    let sent = &server.requests()[0];
    assert_eq!(sent.path, "/v1/chat/completions");
    assert_eq!(sent.headers["authorization"], format!("Bearer {KEY}"));
    capture["stream_options"] = json!({"include_usage": true});
    assert_same(&sent.body, &capture);
}

#[tokio::test]
async fn parallel_tool_calls_streamed_and_not() {
    let server = MockServer::start(vec![
        Reply::sse(fixture("openai_stream_parallel_tool_calls.sse")).chunked(100, Duration::ZERO),
        Reply::json(200, fixture("openai_nonstream_parallel_tools.json")),
    ])
    .await;
    let mut capture = fixture_json("openai_stream_parallel_tool_calls.request.json");
    let base = json!({"base_url": server.url, "strict_tools": true});
    let answer = call(&request_like(&capture, base.clone()), Some(KEY)).await.0.unwrap();
    let ids: Vec<_> = answer.tool_calls.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(ids, ["call_JMW1whyEaYG438VE1OIflxA2", "call_DNYTawLBoN8fj3KN6qU9N1Ou"]);
    assert_eq!(answer.tool_calls[1].input, json!({"ticker": "AAPL", "exchange": "NASDAQ"}));
    capture["stream_options"] = json!({"include_usage": true});
    assert_same(&server.requests()[0].body, &capture);

    let mut options = base;
    options["stream"] = json!(false);
    let answer = call(&request_like(&capture, options), Some(KEY)).await.0.unwrap();
    assert_eq!(answer.tool_calls.len(), 2);
    assert_eq!((answer.usage.input_tokens, answer.usage.output_tokens), (149, 60));
    assert!(server.requests()[1].body.get("stream").is_none());
}

#[tokio::test]
async fn a_local_server_needs_no_key_but_the_default_one_does() {
    let server = MockServer::start(vec![Reply::json(200, fixture("openai_nonstream_tool.json"))]).await;
    let capture = fixture_json("openai_nonstream_tool.request.json");
    let request = request_like(&capture, json!({"base_url": server.url, "stream": false, "strict_tools": true}));
    assert!(call(&request, None).await.0.is_ok());
    let sent = &server.requests()[0];
    assert!(!sent.headers.contains_key("authorization"));
    assert_same(&sent.body, &capture);

    let request = request_like(&capture, json!({}));
    let error = call(&request, None).await.0.unwrap_err();
    assert!(!error.transient && error.message.contains("no API key for openai"), "{error:?}");
}

#[tokio::test]
async fn recorded_errors_are_classified() {
    let cases = [
        ("openai_error_401.json", 401, false, "invalid_request_error: Incorrect API key provided: sk-svcac****"),
        ("openai_error_429_rate_limit.json", 429, true, "tokens: Rate limit reached for gpt-4.1"),
        ("openai_error_429_insufficient_quota.json", 429, false, "insufficient_quota: You exceeded your current quota"),
        ("openai_error_500.json", 500, true, "server_error: The server had an error processing your request."),
    ];
    for (file, status, transient, message) in cases {
        let server = MockServer::start(vec![Reply::json(status, fixture(file)).header("retry-after-ms", "174")]).await;
        let capture = fixture_json("openai_nonstream_tool.request.json");
        let error = call(&request_like(&capture, json!({"base_url": server.url})), Some(KEY)).await.0.unwrap_err();
        assert_eq!((error.status, error.transient), (Some(status), transient), "{file}");
        assert!(error.message.starts_with(message), "{file}: {}", error.message);
        assert_eq!(error.retry_after, Some(Duration::from_millis(174)));
        assert_eq!(server.requests().len(), 1);
    }
}
