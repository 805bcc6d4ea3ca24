//! The Anthropic provider against the recorded captures: request bodies field
//! by field, and answers decoded from the real event streams.

use serde_json::{json, Value};

use super::*;
use crate::model::{Content, Message, Role, Usage};
use crate::provider::fixtures::{self, assert_same, drain, without_caller};
use crate::provider::ToolSpec;
use crate::sse::Decoder;

fn tools_of(capture: &Value) -> Vec<ToolSpec> {
    capture["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|t| ToolSpec {
            name: t["name"].as_str().unwrap().into(),
            description: t["description"].as_str().unwrap_or("").into(),
            input_schema: t["input_schema"].clone(),
        })
        .collect()
}

fn request(capture: &Value, messages: Vec<Message>, options: Value) -> InferenceRequest {
    InferenceRequest {
        model: capture["model"].as_str().unwrap().into(),
        options: options.as_object().cloned().unwrap_or_default(),
        system: None,
        messages,
        tools: tools_of(capture),
        output_schema: None,
        call_index: 0,
        reasoning: Default::default(),
    }
}

fn user(capture: &Value, i: usize) -> Message {
    Message::user_text(capture["messages"][i]["content"].as_str().unwrap())
}

#[test]
fn first_turn_requests_match_the_captures() {
    let capture = fixtures::json("anthropic_nonstream_tool.request.json");
    let req = request(&capture, vec![user(&capture, 0)], json!({"max_tokens": 1024, "stream": false}));
    assert_same(&request_body(&req, false), &capture);

    let capture = fixtures::json("anthropic_stream_tool_padded.request.json");
    let req = request(&capture, vec![user(&capture, 0)], json!({"max_tokens": 1024}));
    assert_same(&request_body(&req, true), &capture);

    let capture = fixtures::json("anthropic_stream_text_tool.request.json");
    let req = request(&capture, vec![user(&capture, 0)], json!({"max_tokens": 1024}));
    assert_same(&request_body(&req, true), &capture);
}

#[test]
fn the_tool_result_turn_matches_the_capture() {
    let capture = fixtures::json("anthropic_stream_text_padded.request.json");
    let call = &capture["messages"][1]["content"][0];
    let result = &capture["messages"][2]["content"][0];
    let messages = vec![
        user(&capture, 0),
        Message {
            role: Role::Assistant,
            content: vec![Content::ToolUse {
                id: call["id"].as_str().unwrap().into(),
                name: call["name"].as_str().unwrap().into(),
                input: call["input"].clone(),
            }],
        },
        Message {
            role: Role::Tool,
            content: vec![Content::ToolResult {
                tool_use_id: result["tool_use_id"].as_str().unwrap().into(),
                content: result["content"].as_str().unwrap().into(),
                is_error: false,
            }],
        },
    ];
    let req = request(&capture, messages, json!({"max_tokens": 1024}));
    assert_same(&request_body(&req, true), &without_caller(capture));
}

#[test]
fn structured_output_uses_output_config_as_captured() {
    let capture = fixtures::json("anthropic_error_429.request.json");
    let mut req = request(&capture, vec![user(&capture, 0)], json!({"max_tokens": 1024}));
    req.output_schema = Some(capture["output_config"]["format"]["schema"].clone());
    assert_same(&request_body(&req, true), &capture);
    // In prompt mode the schema goes into the system prompt instead.
    req.options.insert("structured_output".into(), json!("prompt"));
    let body = request_body(&req, true);
    assert!(body.get("output_config").is_none());
    assert!(body["system"].as_str().unwrap().contains("\"integer\""));
}

#[test]
fn defaults_system_prompt_options_and_extra_body() {
    let options = json!({"temperature": 0.2, "top_k": 5, "stop_sequences": ["END"], "extra_body": {"service_tier": "auto"},
                         "base_url": "http://127.0.0.1:1", "timeout_secs": 3});
    let req = InferenceRequest {
        model: "claude-haiku-4-5".into(),
        options: options.as_object().cloned().unwrap(),
        system: Some("Be brief.".into()),
        messages: vec![Message::user_text("hi")],
        tools: vec![],
        output_schema: None,
        call_index: 0,
        reasoning: Default::default(),
    };
    let expected = json!({"model": "claude-haiku-4-5", "max_tokens": 4096, "system": "Be brief.",
        "messages": [{"role": "user", "content": "hi"}], "stream": true, "temperature": 0.2, "top_k": 5,
        "stop_sequences": ["END"], "service_tier": "auto"});
    assert_same(&request_body(&req, true), &expected);
}

#[test]
fn turns_of_one_role_merge_and_empty_ones_are_dropped() {
    let history = vec![
        Message::user_text("run it"),
        Message {
            role: Role::Assistant,
            content: vec![
                Content::Text { text: "ok".into() },
                Content::ToolUse { id: "toolu_1".into(), name: "bash".into(), input: json!({"command": "ls"}) },
            ],
        },
        Message {
            role: Role::Tool,
            content: vec![Content::ToolResult {
                tool_use_id: "toolu_1".into(),
                content: "tool call not run: the run failed".into(),
                is_error: true,
            }],
        },
        Message::user_text("try again"),
        Message { role: Role::Assistant, content: vec![] },
        Message::user_text("well?"),
    ];
    let expected = json!([
        {"role": "user", "content": "run it"},
        {"role": "assistant", "content": [{"type": "text", "text": "ok"},
            {"type": "tool_use", "id": "toolu_1", "name": "bash", "input": {"command": "ls"}}]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_1", "content": "tool call not run: the run failed", "is_error": true},
            {"type": "text", "text": "try again"}, {"type": "text", "text": "well?"}]},
    ]);
    assert_same(&Value::Array(messages(&history)), &expected);
}

/// Feeds a capture to the decoder in pieces of `size` bytes.
fn replay(name: &str, size: usize) -> (Result<InferenceResponse, ProviderError>, Vec<String>) {
    let (tx, mut rx) = fixtures::deltas();
    let mut state = StreamState::default();
    let mut decoder = Decoder::default();
    let bytes = fixtures::bytes(name);
    let mut failed = None;
    'outer: for chunk in bytes.chunks(size) {
        for event in decoder.push(chunk) {
            if let Err(e) = state.on_event(&event.data, &tx) {
                failed = Some(e);
                break 'outer;
            }
        }
    }
    let result = match failed {
        Some(e) => Err(e),
        None => state.finish(),
    };
    (result, drain(&mut rx))
}

#[test]
fn streamed_text_arrives_as_deltas_with_usage() {
    for size in [1, 7, 4096] {
        let (answer, deltas) = replay("anthropic_stream_text_padded.sse", size);
        let answer = answer.unwrap();
        let text = "The weather in San Francisco, CA is currently:\n- **Temperature:** 68°F\n- **Condition:** Sunny\n\nIt's a nice sunny day!";
        assert_eq!(answer.text, text);
        assert_eq!(deltas.len(), 9);
        assert_eq!(deltas.concat(), text);
        assert!(answer.tool_calls.is_empty());
        assert_eq!(answer.stop_reason, "end_turn");
        assert_eq!(answer.usage, Usage { input_tokens: 770, output_tokens: 38, ..Usage::default() });
    }
}

#[test]
fn streamed_tool_use_is_assembled_from_json_fragments() {
    let (answer, deltas) = replay("anthropic_stream_tool_padded.sse", 5);
    let answer = answer.unwrap();
    assert!(deltas.is_empty());
    assert_eq!(answer.tool_calls.len(), 1);
    assert_eq!(answer.tool_calls[0].id, "toolu_018acGYLtfR52q9yDbWaEdQZ");
    assert_eq!(answer.tool_calls[0].name, "get_weather");
    assert_eq!(answer.tool_calls[0].input, json!({"location": "San Francisco, CA", "units": "f"}));
    assert_eq!(answer.stop_reason, "tool_use");
    assert_eq!((answer.usage.input_tokens, answer.usage.output_tokens), (656, 74));

    let (answer, deltas) = replay("anthropic_stream_text_tool.sse", 3);
    let answer = answer.unwrap();
    assert_eq!(deltas, ["I", "'ll check the current weather in Paris for you."]);
    assert_eq!(answer.tool_calls[0].input, json!({"location": "Paris"}));
    assert_eq!((answer.usage.input_tokens, answer.usage.output_tokens), (377, 65));
}

#[test]
fn errors_inside_the_stream_are_classified() {
    let (answer, deltas) = replay("anthropic_stream_midstream_error.sse", 11);
    let error = answer.unwrap_err();
    assert!(error.transient);
    assert_eq!(error.message, "api_error: Internal server error (during the stream)");
    assert_eq!(deltas.concat(), "d with a replacement character (");

    let (tx, _rx) = fixtures::deltas();
    let overloaded = r#"{"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}"#;
    assert!(StreamState::default().on_event(overloaded, &tx).unwrap_err().transient);
    let invalid = r#"{"type":"error","error":{"type":"invalid_request_error","message":"bad"}}"#;
    assert!(!StreamState::default().on_event(invalid, &tx).unwrap_err().transient);
}

#[test]
fn a_stream_cut_before_message_stop_is_transient() {
    let bytes = fixtures::bytes("anthropic_stream_text_padded.sse");
    let cut = &bytes[..bytes.len() / 2];
    let (tx, _rx) = fixtures::deltas();
    let mut state = StreamState::default();
    for event in Decoder::default().push(cut) {
        state.on_event(&event.data, &tx).unwrap();
    }
    let error = state.finish().unwrap_err();
    assert!(error.transient && error.message.contains("before message_stop"));
}

#[test]
fn a_non_streamed_answer_is_read_whole() {
    let (tx, mut rx) = fixtures::deltas();
    let answer = parse_message(&fixtures::json("anthropic_nonstream_tool.json"), &tx).unwrap();
    assert!(drain(&mut rx).is_empty());
    assert_eq!(answer.tool_calls[0].id, "toolu_01GHndag5wQmbzNihYmV2UBj");
    assert_eq!(answer.tool_calls[0].input, json!({"location": "San Francisco, CA", "units": "c"}));
    assert_eq!(answer.stop_reason, "tool_use");
    assert_eq!((answer.usage.input_tokens, answer.usage.output_tokens), (659, 74));
}
