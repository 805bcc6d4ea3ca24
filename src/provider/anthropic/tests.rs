//! The Anthropic provider against the recorded captures: request bodies field
//! by field, and answers decoded from the real event streams.

use serde_json::{json, Value};

use super::*;
use crate::domain::model::{Content, Message, Role, Usage};
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
        history: Default::default(),
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
        history: Default::default(),
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

#[test]
fn tool_input_fragments_are_counted_as_they_arrive() {
    let bytes = fixtures::bytes("anthropic_stream_tool_padded.sse");
    let mut state = StreamState::default();
    let counted = fixtures::tool_input(|tx| {
        for event in Decoder::default().push(&bytes) {
            state.on_event(&event.data, tx).unwrap();
        }
    });
    let fragments: usize = Decoder::default()
        .push(&bytes)
        .iter()
        .filter_map(|e| serde_json::from_str::<Value>(&e.data).ok())
        .filter_map(|event| event.pointer("/delta/partial_json").and_then(Value::as_str).map(str::len))
        .sum();
    assert!(fragments > 0);
    assert_eq!(counted, fragments, "every byte of partial_json, as it arrived");
}

/// A stream in the documented shapes of extended thinking: a thinking block
/// (thinking and signature deltas), a redacted_thinking block, then a tool_use.
const THINKING_STREAM: &str = concat!(
    "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[],\"model\":\"claude-sonnet-4-5\",\"stop_reason\":null,\"usage\":{\"input_tokens\":12,\"output_tokens\":1}}}\n\n",
    "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"thinking\",\"thinking\":\"\"}}\n\n",
    "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"thinking_delta\",\"thinking\":\"Let me check \"}}\n\n",
    "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"thinking_delta\",\"thinking\":\"the weather.\"}}\n\n",
    "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"signature_delta\",\"signature\":\"EqQBCgIYAhIM1gbcDa9GJwZA2b3h+/=\"}}\n\n",
    "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n",
    "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"redacted_thinking\",\"data\":\"EmwKAhgBEgy3va3pzix/LafPsn4a\"}}\n\n",
    "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":1}\n\n",
    "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":2,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_1\",\"name\":\"get_weather\",\"input\":{}}}\n\n",
    "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":2,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"location\\\": \\\"Paris\\\"}\"}}\n\n",
    "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":2}\n\n",
    "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\",\"stop_sequence\":null},\"usage\":{\"output_tokens\":40}}\n\n",
    "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n",
);

fn signed(thinking: &str, signature: &str) -> Content {
    Content::Thinking { thinking: thinking.into(), signature: Some(signature.into()) }
}

#[test]
fn streamed_thinking_arrives_as_thinking_and_is_kept_with_its_signature() {
    let (tx, mut rx) = fixtures::deltas();
    let mut state = StreamState::default();
    for event in Decoder::default().push(THINKING_STREAM.as_bytes()) {
        state.on_event(&event.data, &tx).unwrap();
    }
    let answer = state.finish().unwrap();
    let mut thinking = Vec::new();
    while let Ok(delta) = rx.try_recv() {
        if let crate::provider::Delta::Thinking(text) = delta {
            thinking.push(text);
        }
    }
    assert_eq!(thinking, ["Let me check ", "the weather."]);
    let redacted = Content::RedactedThinking { data: "EmwKAhgBEgy3va3pzix/LafPsn4a".into() };
    assert_eq!(answer.thinking, [signed("Let me check the weather.", "EqQBCgIYAhIM1gbcDa9GJwZA2b3h+/="), redacted]);
    assert_eq!(answer.tool_calls[0].input, json!({"location": "Paris"}));
    assert_eq!((answer.text.as_str(), answer.stop_reason.as_str()), ("", "tool_use"));
}

#[test]
fn a_non_streamed_answer_keeps_its_thinking_blocks() {
    let body = json!({"content": [
        {"type": "thinking", "thinking": "Hmm.", "signature": "sig=="},
        {"type": "redacted_thinking", "data": "opaque"},
        {"type": "text", "text": "Hello"}
    ], "stop_reason": "end_turn", "usage": {"input_tokens": 3, "output_tokens": 5}});
    let (tx, _rx) = fixtures::deltas();
    let answer = parse_message(&body, &tx).unwrap();
    assert_eq!(answer.thinking, [signed("Hmm.", "sig=="), Content::RedactedThinking { data: "opaque".into() }]);
    assert_eq!(answer.text, "Hello");
}

#[test]
fn thinking_goes_back_unchanged_before_the_tool_use_and_unsigned_thinking_does_not() {
    let assistant = Message {
        role: Role::Assistant,
        content: vec![
            signed("Let me check.", "EqQB+/="),
            Content::RedactedThinking { data: "opaque".into() },
            Content::Thinking { thinking: "from another provider".into(), signature: None },
            Content::ToolUse { id: "toolu_1".into(), name: "get_weather".into(), input: json!({}) },
        ],
    };
    let turns = messages(&[Message::user_text("weather?"), assistant]);
    assert_eq!(
        turns[1]["content"],
        json!([
            {"type": "thinking", "thinking": "Let me check.", "signature": "EqQB+/="},
            {"type": "redacted_thinking", "data": "opaque"},
            {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {}}
        ])
    );
}

#[test]
fn reasoning_levels_set_the_thinking_budget_and_room_for_the_answer() {
    let capture = fixtures::json("anthropic_stream_text_tool.request.json");
    let body = |level: Reasoning, model: &str, options: Value| {
        let mut req = request(&capture, vec![user(&capture, 0)], options);
        (req.reasoning, req.model) = (level, model.into());
        request_body(&req, true)
    };
    let off = body(Reasoning::Off, "claude-sonnet-4-5", json!({"temperature": 0.2}));
    assert!(off.get("thinking").is_none());
    assert_eq!((off["max_tokens"].clone(), off["temperature"].clone()), (json!(4096), json!(0.2)));
    for (level, budget) in
        [(Reasoning::Low, 1024), (Reasoning::Medium, 4096), (Reasoning::High, 16384), (Reasoning::Max, 32000)]
    {
        let sent = body(level, "claude-sonnet-4-5", json!({"max_tokens": 2000, "temperature": 0.2, "top_k": 5}));
        assert_eq!(sent["thinking"], json!({"type": "enabled", "budget_tokens": budget}), "{level:?}");
        assert_eq!(sent["max_tokens"], json!(budget + 2000), "{level:?}");
        assert!(sent.get("temperature").is_none() && sent.get("top_k").is_none(), "{sent}");
    }
    // Claude Opus 4.1 writes at most 32000 tokens: the budget makes room for the answer.
    let capped = body(Reasoning::Max, "claude-opus-4-1", json!({}));
    assert_eq!(
        (capped["max_tokens"].clone(), capped["thinking"]["budget_tokens"].clone()),
        (json!(32000), json!(27904))
    );
}
