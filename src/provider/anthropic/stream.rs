//! Reading Anthropic's answers: the event stream (`message_start`,
//! `content_block_start/delta/stop`, `message_delta`, `message_stop`, `ping`,
//! `error`) and the plain JSON message of a non-streamed call. Thinking
//! (`thinking` blocks with `thinking_delta` and `signature_delta`, and
//! `redacted_thinking` blocks) is streamed as thinking and kept whole.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::domain::model::{Content, ToolCall, Usage};
use crate::provider::{parse_arguments, Delta, Deltas, InferenceResponse, ProviderError};

/// One content block being streamed.
#[derive(Debug)]
enum Block {
    Text,
    ToolUse {
        id: String,
        name: String,
        json: String,
    },
    /// Thinking, with the signature that proves it.
    Thinking {
        thinking: String,
        signature: String,
    },
    /// Encrypted thinking, kept as it came.
    Redacted {
        data: String,
    },
    /// Blocks Wingman does not keep.
    Other,
}

/// The answer so far, built event by event.
#[derive(Debug, Default)]
pub struct StreamState {
    text: String,
    blocks: BTreeMap<u64, Block>,
    usage: Usage,
    stop_reason: Option<String>,
    done: bool,
}

impl StreamState {
    /// True once `message_stop` arrived.
    pub fn is_done(&self) -> bool {
        self.done
    }

    /// Applies one event's data, sending text deltas as they come.
    pub fn on_event(&mut self, data: &str, deltas: &Deltas) -> Result<(), ProviderError> {
        let event: Value = serde_json::from_str(data)
            .map_err(|e| ProviderError::transient(format!("the stream sent an event that is not JSON: {e}")))?;
        let index = event.get("index").and_then(Value::as_u64).unwrap_or(0);
        match event.get("type").and_then(Value::as_str).unwrap_or("") {
            "message_start" => apply_usage(&mut self.usage, event.pointer("/message/usage")),
            "content_block_start" => self.start_block(index, event.get("content_block"), deltas),
            "content_block_delta" => self.delta(index, event.get("delta"), deltas),
            "message_delta" => {
                if let Some(reason) = event.pointer("/delta/stop_reason").and_then(Value::as_str) {
                    self.stop_reason = Some(reason.to_string());
                }
                apply_usage(&mut self.usage, event.get("usage"));
            }
            "message_stop" => self.done = true,
            "error" => return Err(stream_error(&event)),
            // `ping`, `content_block_stop` and event types added later carry nothing to keep.
            _ => {}
        }
        Ok(())
    }

    fn start_block(&mut self, index: u64, block: Option<&Value>, deltas: &Deltas) {
        let kind = block.and_then(|b| b.get("type")).and_then(Value::as_str).unwrap_or("");
        let field = |name: &str| block.and_then(|b| b.get(name)).and_then(Value::as_str).unwrap_or("").to_string();
        let state = match kind {
            "text" => {
                self.push_text(&field("text"), deltas);
                Block::Text
            }
            "tool_use" => Block::ToolUse { id: field("id"), name: field("name"), json: String::new() },
            "thinking" => {
                let thinking = field("thinking");
                send_thinking(&thinking, deltas);
                Block::Thinking { thinking, signature: field("signature") }
            }
            "redacted_thinking" => Block::Redacted { data: field("data") },
            _ => Block::Other,
        };
        self.blocks.insert(index, state);
    }

    fn delta(&mut self, index: u64, delta: Option<&Value>, deltas: &Deltas) {
        let field = |name: &str| delta.and_then(|d| d.get(name)).and_then(Value::as_str).unwrap_or("");
        match field("type") {
            "text_delta" => self.push_text(field("text"), deltas),
            "input_json_delta" => {
                if let Some(Block::ToolUse { json, .. }) = self.blocks.get_mut(&index) {
                    let piece = field("partial_json");
                    json.push_str(piece);
                    let _ = deltas.send(Delta::ToolInput(piece.len()));
                }
            }
            "thinking_delta" => {
                if let Some(Block::Thinking { thinking, .. }) = self.blocks.get_mut(&index) {
                    thinking.push_str(field("thinking"));
                    send_thinking(field("thinking"), deltas);
                }
            }
            "signature_delta" => {
                if let Some(Block::Thinking { signature, .. }) = self.blocks.get_mut(&index) {
                    signature.push_str(field("signature"));
                }
            }
            _ => {}
        }
    }

    fn push_text(&mut self, text: &str, deltas: &Deltas) {
        if !text.is_empty() {
            self.text.push_str(text);
            let _ = deltas.send(Delta::Text(text.to_string()));
        }
    }

    /// The answer, once the stream has ended.
    pub fn finish(self) -> Result<InferenceResponse, ProviderError> {
        if !self.done {
            return Err(ProviderError::transient("the stream ended before message_stop"));
        }
        let mut tool_calls = Vec::new();
        let mut thinking = Vec::new();
        for block in self.blocks.into_values() {
            match block {
                Block::ToolUse { id, name, json } => {
                    let input = parse_arguments(&name, &json)?;
                    tool_calls.push(ToolCall { id, name, input });
                }
                Block::Thinking { thinking: text, signature } => {
                    thinking.push(Content::Thinking { thinking: text, signature: Some(signature) })
                }
                Block::Redacted { data } => thinking.push(Content::RedactedThinking { data }),
                Block::Text | Block::Other => {}
            }
        }
        let stop_reason = self.stop_reason.unwrap_or_else(|| "end_turn".into());
        Ok(InferenceResponse { text: self.text, tool_calls, usage: self.usage, stop_reason, thinking, heard: None })
    }
}

fn send_thinking(text: &str, deltas: &Deltas) {
    if !text.is_empty() {
        let _ = deltas.send(Delta::Thinking(text.to_string()));
    }
}

/// Takes every token count the object has; later events repeat and update them.
fn apply_usage(usage: &mut Usage, value: Option<&Value>) {
    let Some(value) = value else { return };
    let count = |name: &str| value.get(name).and_then(Value::as_u64);
    if let Some(n) = count("input_tokens") {
        usage.input_tokens = n;
    }
    if let Some(n) = count("output_tokens") {
        usage.output_tokens = n;
    }
    if let Some(n) = count("cache_read_input_tokens") {
        usage.cache_read_input_tokens = n;
    }
    if let Some(n) = count("cache_creation_input_tokens") {
        usage.cache_creation_input_tokens = n;
    }
}

/// An `event: error` inside a stream: overload and server errors are worth
/// a retry, errors about the request are not.
fn stream_error(event: &Value) -> ProviderError {
    let kind = event.pointer("/error/type").and_then(Value::as_str).unwrap_or("error");
    let message = crate::provider::http::error_message(event).unwrap_or_else(|| kind.to_string());
    let fatal = [
        "invalid_request_error",
        "authentication_error",
        "permission_error",
        "not_found_error",
        "billing_error",
        "request_too_large",
    ];
    let message = format!("{message} (during the stream)");
    if fatal.contains(&kind) {
        ProviderError::fatal(message)
    } else {
        ProviderError::transient(message)
    }
}

/// Reads a non-streamed answer, sending its text as one delta.
pub fn parse_message(body: &Value, deltas: &Deltas) -> Result<InferenceResponse, ProviderError> {
    let blocks = body
        .get("content")
        .and_then(Value::as_array)
        .ok_or_else(|| ProviderError::transient("the answer has no content"))?;
    let mut text = String::new();
    let mut tool_calls = Vec::new();
    let mut thinking = Vec::new();
    for block in blocks {
        let field = |name: &str| block.get(name).and_then(Value::as_str).unwrap_or("").to_string();
        match block.get("type").and_then(Value::as_str) {
            Some("text") => text.push_str(&field("text")),
            Some("tool_use") => {
                let input = block.get("input").cloned().unwrap_or_else(|| Value::Object(Default::default()));
                let _ = deltas.send(Delta::ToolInput(input.to_string().len()));
                tool_calls.push(ToolCall { id: field("id"), name: field("name"), input });
            }
            Some("thinking") => {
                send_thinking(&field("thinking"), deltas);
                thinking.push(Content::Thinking { thinking: field("thinking"), signature: Some(field("signature")) });
            }
            Some("redacted_thinking") => thinking.push(Content::RedactedThinking { data: field("data") }),
            _ => {}
        }
    }
    if !text.is_empty() {
        let _ = deltas.send(Delta::Text(text.clone()));
    }
    let mut usage = Usage::default();
    apply_usage(&mut usage, body.get("usage"));
    let stop_reason = body.get("stop_reason").and_then(Value::as_str).unwrap_or("end_turn").to_string();
    Ok(InferenceResponse { text, tool_calls, usage, stop_reason, thinking, heard: None })
}

impl crate::provider::sse::StreamReader for StreamState {
    fn on_data(&mut self, data: &str, deltas: &Deltas) -> Result<(), ProviderError> {
        StreamState::on_event(self, data, deltas)
    }

    fn is_done(&self) -> bool {
        StreamState::is_done(self)
    }
}
