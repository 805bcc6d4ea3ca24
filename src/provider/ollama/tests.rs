//! The Ollama provider against the documented exchanges (re-encoded the way
//! its server writes them; see SOURCES.md).

use serde_json::{json, Value};

use super::*;
use crate::domain::model::{Content, Message, Role, Usage};
use crate::provider::fixtures::{self, assert_same, drain};
use crate::provider::ToolSpec;
use crate::sse::LineBuffer;

fn request(capture: &Value, options: Value) -> InferenceRequest {
    let tool = &capture["tools"][0]["function"];
    InferenceRequest {
        model: capture["model"].as_str().unwrap().into(),
        options: options.as_object().cloned().unwrap_or_default(),
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

#[test]
fn requests_match_the_documented_ones() {
    let capture = fixtures::json("ollama_stream_tool.request.json");
    assert_same(&request_body(&request(&capture, json!({})), true), &capture);
    let capture = fixtures::json("ollama_nonstream.request.json");
    assert_same(&request_body(&request(&capture, json!({"stream": false})), false), &capture);
}

#[test]
fn options_and_the_tool_result_turn() {
    let history = vec![
        Message::user_text("what is the weather in tokyo?"),
        Message {
            role: Role::Assistant,
            content: vec![Content::ToolUse {
                id: "call_k3v9x2qa".into(),
                name: "get_weather".into(),
                input: json!({"city": "Tokyo"}),
            }],
        },
        Message {
            role: Role::Tool,
            content: vec![Content::ToolResult {
                tool_use_id: "call_k3v9x2qa".into(),
                content: "11 degrees celsius".into(),
                is_error: false,
            }],
        },
    ];
    let options = json!({"max_tokens": 256, "temperature": 0, "num_ctx": 8192, "model_options": {"repeat_penalty": 1.1},
                         "keep_alive": "10m"});
    let req = InferenceRequest {
        model: "llama3.2".into(),
        options: options.as_object().cloned().unwrap(),
        system: Some("Be brief.".into()),
        history: Default::default(),
        messages: history,
        tools: vec![],
        output_schema: Some(json!({"type": "object"})),
        call_index: 0,
        reasoning: Default::default(),
    };
    let expected = json!({"model": "llama3.2", "stream": true, "keep_alive": "10m", "format": {"type": "object"},
        "options": {"num_predict": 256, "temperature": 0, "num_ctx": 8192, "repeat_penalty": 1.1},
        "messages": [
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": "what is the weather in tokyo?"},
            {"role": "assistant", "content": "", "tool_calls": [{"id": "call_k3v9x2qa",
                "function": {"name": "get_weather", "arguments": {"city": "Tokyo"}}}]},
            {"role": "tool", "content": "11 degrees celsius", "tool_call_id": "call_k3v9x2qa", "tool_name": "get_weather"}]});
    assert_same(&request_body(&req, true), &expected);
}

fn replay(name: &str, size: usize) -> (Result<InferenceResponse, ProviderError>, Vec<String>) {
    let (tx, mut rx) = fixtures::deltas();
    let mut state = StreamState::default();
    let mut lines = LineBuffer::default();
    for chunk in fixtures::bytes(name).chunks(size) {
        for line in lines.push(chunk) {
            if let Err(e) = state.on_line(&line, &tx) {
                return (Err(e), drain(&mut rx));
            }
        }
    }
    if let Some(line) = lines.finish() {
        if let Err(e) = state.on_line(&line, &tx) {
            return (Err(e), drain(&mut rx));
        }
    }
    (state.finish(), drain(&mut rx))
}

#[test]
fn streamed_tool_calls_with_and_without_ids() {
    let (answer, _) = replay("ollama_stream_tool.ndjson", 17);
    let answer = answer.unwrap();
    assert_eq!(answer.tool_calls[0].name, "get_weather");
    assert_eq!(answer.tool_calls[0].input, json!({"city": "Tokyo"}));
    assert!(answer.tool_calls[0].id.starts_with("call_"), "an ID is made up when none is sent");
    assert_eq!(answer.stop_reason, "tool_use");
    assert_eq!(answer.usage, Usage { input_tokens: 169, output_tokens: 15, ..Usage::default() });

    let (answer, _) = replay("ollama_stream_tool_current_format.ndjson", 3);
    assert_eq!(answer.unwrap().tool_calls[0].id, "call_k3v9x2qa");
}

#[test]
fn streamed_text_and_non_streamed_answers() {
    let (answer, deltas) = replay("ollama_stream_text.ndjson", 5);
    let answer = answer.unwrap();
    assert_eq!(deltas, ["The"]);
    assert_eq!(answer.stop_reason, "end_turn");
    assert_eq!((answer.usage.input_tokens, answer.usage.output_tokens), (26, 282));

    let (answer, deltas) = replay("ollama_nonstream_text.json", 1000);
    assert_eq!(deltas, ["Hello! How are you today?"]);
    assert_eq!(answer.unwrap().usage.output_tokens, 298);
    let (answer, _) = replay("ollama_nonstream.json", 1000);
    assert_eq!(answer.unwrap().tool_calls[0].input, json!({"city": "Tokyo"}));
}

#[test]
fn an_error_line_fails_transiently_and_a_stream_without_done_too() {
    let (answer, _) = replay("ollama_generate_midstream_error.ndjson", 50);
    let error = answer.unwrap_err();
    assert!(error.transient);
    assert_eq!(error.message, "an error was encountered while running the model (during the stream)");

    let (tx, _rx) = fixtures::deltas();
    let mut state = StreamState::default();
    state.on_line(r#"{"model":"llama3.2","message":{"role":"assistant","content":"The"},"done":false}"#, &tx).unwrap();
    assert!(state.finish().unwrap_err().transient);
}

#[test]
fn tool_calls_are_counted_as_output_when_their_line_arrives() {
    let bytes = fixtures::bytes("ollama_stream_tool.ndjson");
    let mut state = StreamState::default();
    let counted = fixtures::tool_input(|tx| {
        for line in LineBuffer::default().push(&bytes) {
            state.on_line(&line, tx).unwrap();
        }
    });
    let answer = state.finish().unwrap();
    assert_eq!(counted, answer.tool_calls[0].input.to_string().len());
}

#[test]
fn reasoning_levels_are_sent_as_think() {
    let capture = fixtures::json("ollama_stream_tool.request.json");
    for (level, qwen, gpt_oss) in [
        (Reasoning::Off, None, None),
        (Reasoning::Low, Some(json!(true)), Some(json!("low"))),
        (Reasoning::Medium, Some(json!(true)), Some(json!("medium"))),
        (Reasoning::High, Some(json!(true)), Some(json!("high"))),
        (Reasoning::Max, Some(json!(true)), Some(json!("high"))),
    ] {
        for (model, expected) in [("qwen3", qwen), ("gpt-oss:20b", gpt_oss)] {
            let mut req = request(&capture, json!({}));
            (req.reasoning, req.model) = (level, model.into());
            assert_eq!(request_body(&req, true).get("think").cloned(), expected, "{level:?} {model}");
        }
    }
    let req = request(&capture, json!({"think": false}));
    assert_eq!(request_body(&req, true)["think"], json!(false));
}

#[test]
fn thinking_streams_as_thinking_and_goes_back_with_the_message() {
    let (tx, mut rx) = fixtures::deltas();
    let mut state = StreamState::default();
    for line in [
        r#"{"model":"qwen3","message":{"role":"assistant","content":"","thinking":"Hmm, "},"done":false}"#,
        r#"{"model":"qwen3","message":{"role":"assistant","content":"","thinking":"sunny."},"done":false}"#,
        r#"{"model":"qwen3","message":{"role":"assistant","content":"Sunny."},"done":false}"#,
        r#"{"model":"qwen3","message":{"role":"assistant","content":""},"done":true,"done_reason":"stop"}"#,
    ] {
        state.on_line(line, &tx).unwrap();
    }
    let answer = state.finish().unwrap();
    let mut thinking = Vec::new();
    while let Ok(delta) = rx.try_recv() {
        if let crate::provider::Delta::Thinking(text) = delta {
            thinking.push(text);
        }
    }
    assert_eq!(thinking, ["Hmm, ", "sunny."]);
    let kept = Content::Thinking { thinking: "Hmm, sunny.".into(), signature: None };
    assert_eq!(answer.thinking, std::slice::from_ref(&kept));
    let assistant = Message { role: Role::Assistant, content: vec![kept, Content::Text { text: "Sunny.".into() }] };
    assert_eq!(messages(&[assistant]), [json!({"role": "assistant", "content": "Sunny.", "thinking": "Hmm, sunny."})]);
}
