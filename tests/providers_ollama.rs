//! The Ollama provider over HTTP against a local server replaying the
//! documented exchanges.

mod providers_support;

use std::time::Duration;

use providers_support::{assert_same, fixture, fixture_json, MockServer, Reply};
use serde_json::{json, Value};
use tokio::sync::mpsc;
use wingman::domain::model::Message;
use wingman::provider::{self, Delta, InferenceRequest, InferenceResponse, ProviderError, ToolSpec};

fn request_like(capture: &Value, options: Value) -> InferenceRequest {
    let tool = &capture["tools"][0]["function"];
    InferenceRequest {
        model: capture["model"].as_str().unwrap().into(),
        options: options.as_object().cloned().unwrap(),
        system: None,
        history: Default::default(),
        messages: vec![Message::user_text(capture["messages"][0]["content"].as_str().unwrap())],
        tools: vec![ToolSpec {
            name: tool["name"].as_str().unwrap().into(),
            description: tool["description"].as_str().unwrap().into(),
            input_schema: tool["parameters"].clone(),
        }],
        output_schema: None,
        call_index: 0,
        reasoning: Default::default(),
    }
}

async fn call(request: &InferenceRequest) -> (Result<InferenceResponse, ProviderError>, Vec<String>) {
    let provider = provider::build("ollama", None).unwrap();
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
async fn streamed_and_plain_tool_calls_with_the_requests_sent() {
    let server = MockServer::start(vec![
        Reply::ndjson(fixture("ollama_stream_tool_current_format.ndjson")).chunked(9, Duration::from_millis(1)),
        Reply::json(200, fixture("ollama_nonstream.json")),
    ])
    .await;
    let capture = fixture_json("ollama_stream_tool.request.json");
    let answer = call(&request_like(&capture, json!({"base_url": server.url}))).await.0.unwrap();
    assert_eq!(answer.tool_calls[0].id, "call_k3v9x2qa");
    assert_eq!(answer.tool_calls[0].input, json!({"city": "Tokyo"}));
    assert_eq!(
        (answer.usage.input_tokens, answer.usage.output_tokens, answer.stop_reason.as_str()),
        (169, 15, "tool_use")
    );
    let sent = &server.requests()[0];
    assert_eq!(sent.path, "/api/chat");
    assert!(!sent.headers.contains_key("authorization"));
    assert_same(&sent.body, &capture);

    let capture = fixture_json("ollama_nonstream.request.json");
    let answer = call(&request_like(&capture, json!({"base_url": server.url, "stream": false}))).await.0.unwrap();
    assert_eq!(answer.tool_calls[0].name, "get_weather");
    assert_eq!((answer.usage.input_tokens, answer.usage.output_tokens), (169, 18));
    assert_same(&server.requests()[1].body, &capture);
}

#[tokio::test]
async fn streamed_text_and_max_tokens_as_num_predict() {
    let server =
        MockServer::start(vec![Reply::ndjson(fixture("ollama_stream_text.ndjson")).chunked(20, Duration::ZERO)]).await;
    let capture = fixture_json("ollama_stream_tool.request.json");
    let (answer, deltas) = call(&request_like(&capture, json!({"base_url": server.url, "max_tokens": 64}))).await;
    let answer = answer.unwrap();
    assert_eq!((answer.text.as_str(), answer.stop_reason.as_str()), ("The", "end_turn"));
    assert_eq!(deltas, ["The"]);
    assert_eq!(server.requests()[0].body["options"], json!({"num_predict": 64}));
}

#[tokio::test]
async fn errors_before_and_during_the_stream() {
    let server = MockServer::start(vec![
        Reply::json(500, fixture("ollama_error.json")),
        Reply::json(404, b"{\"error\":\"model \\\"nosuch\\\" not found, try pulling it first\"}".to_vec()),
        Reply::ndjson(fixture("ollama_generate_midstream_error.ndjson")),
    ])
    .await;
    let capture = fixture_json("ollama_stream_tool.request.json");
    let request = request_like(&capture, json!({"base_url": server.url}));
    let error = call(&request).await.0.unwrap_err();
    assert_eq!(
        (error.status, error.transient, error.message.as_str()),
        (Some(500), true, "the model failed to generate a response")
    );
    let error = call(&request).await.0.unwrap_err();
    assert_eq!((error.status, error.transient), (Some(404), false));
    assert_eq!(error.message, "model \"nosuch\" not found, try pulling it first");
    let error = call(&request).await.0.unwrap_err();
    assert!(error.transient && error.message.starts_with("an error was encountered while running the model"));
}
