//! Reading Chat Completions answers: streamed chunks (text deltas, tool-call
//! fragments keyed by `index`, a usage chunk with no choices, `[DONE]`) and
//! the plain JSON of a non-streamed call. Compatible servers (vLLM,
//! DeepSeek, llama.cpp, LM Studio) send the model's thinking as
//! `reasoning_content` (or `reasoning`): it streams as thinking and is kept
//! as a thinking block without a signature.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::domain::model::{Content, ToolCall, Usage};
use crate::provider::{http, new_call_id, parse_arguments, Delta, Deltas, InferenceResponse, ProviderError};

/// A tool call being assembled from its fragments.
#[derive(Debug, Default)]
struct PartialCall {
    id: String,
    name: String,
    arguments: String,
}

/// The answer so far, built chunk by chunk.
#[derive(Debug, Default)]
pub struct StreamState {
    text: String,
    thinking: String,
    calls: BTreeMap<u64, PartialCall>,
    usage: Usage,
    finish_reason: Option<String>,
    done: bool,
}

impl StreamState {
    /// True once `[DONE]` arrived.
    pub fn is_done(&self) -> bool {
        self.done
    }

    /// Applies one `data:` payload, sending text deltas as they come.
    pub fn on_data(&mut self, data: &str, deltas: &Deltas) -> Result<(), ProviderError> {
        if data.trim() == "[DONE]" {
            self.done = true;
            return Ok(());
        }
        let chunk: Value = serde_json::from_str(data)
            .map_err(|e| ProviderError::transient(format!("the stream sent a chunk that is not JSON: {e}")))?;
        if chunk.get("error").is_some() {
            return Err(stream_error(&chunk));
        }
        if let Some(usage) = chunk.get("usage").filter(|u| u.is_object()) {
            self.usage = usage_of(usage);
        }
        let Some(choice) = chunk.get("choices").and_then(Value::as_array).and_then(|c| c.first()) else {
            return Ok(());
        };
        if let Some(thinking) = reasoning_of(choice.get("delta")) {
            self.thinking.push_str(thinking);
            let _ = deltas.send(Delta::Thinking(thinking.to_string()));
        }
        if let Some(text) = choice.pointer("/delta/content").and_then(Value::as_str).filter(|t| !t.is_empty()) {
            self.text.push_str(text);
            let _ = deltas.send(Delta::Text(text.to_string()));
        }
        if let Some(calls) = choice.pointer("/delta/tool_calls").and_then(Value::as_array) {
            for (position, fragment) in calls.iter().enumerate() {
                self.fragment(position as u64, fragment, deltas);
            }
        }
        if let Some(reason) = choice.get("finish_reason").and_then(Value::as_str) {
            self.finish_reason = Some(reason.to_string());
        }
        Ok(())
    }

    /// Adds a tool-call fragment: the first names the call, the others add
    /// to its arguments. A server that leaves `index` out sends one call per
    /// position.
    fn fragment(&mut self, position: u64, fragment: &Value, deltas: &Deltas) {
        let index = fragment.get("index").and_then(Value::as_u64).unwrap_or(position);
        let call = self.calls.entry(index).or_default();
        let field = |path: &str| fragment.pointer(path).and_then(Value::as_str).unwrap_or("");
        if call.id.is_empty() {
            call.id = field("/id").to_string();
        }
        if call.name.is_empty() {
            call.name = field("/function/name").to_string();
        }
        let arguments = field("/function/arguments");
        call.arguments.push_str(arguments);
        if !arguments.is_empty() {
            let _ = deltas.send(Delta::ToolInput(arguments.len()));
        }
    }

    /// The answer, once the stream has ended. A stream cut before both
    /// `finish_reason` and `[DONE]` is incomplete and worth a retry.
    pub fn finish(self) -> Result<InferenceResponse, ProviderError> {
        if !self.done && self.finish_reason.is_none() {
            return Err(ProviderError::transient("the stream ended before it finished"));
        }
        let mut tool_calls = Vec::new();
        for call in self.calls.into_values() {
            let input = parse_arguments(&call.name, &call.arguments)?;
            let id = if call.id.is_empty() { new_call_id() } else { call.id };
            tool_calls.push(ToolCall { id, name: call.name, input });
        }
        let stop_reason = stop_reason(self.finish_reason.as_deref(), !tool_calls.is_empty());
        let thinking = thinking_block(self.thinking);
        Ok(InferenceResponse { text: self.text, tool_calls, usage: self.usage, stop_reason, thinking, heard: None })
    }
}

/// The thinking of a delta or a message: `reasoning_content` (vLLM,
/// DeepSeek, llama.cpp) or `reasoning` (LM Studio, OpenRouter).
fn reasoning_of(message: Option<&Value>) -> Option<&str> {
    let message = message?;
    let field = |name: &str| message.get(name).and_then(Value::as_str).filter(|t| !t.is_empty());
    field("reasoning_content").or_else(|| field("reasoning"))
}

/// The answer's thinking as one block, kept for the record only: Chat
/// Completions takes no thinking back.
fn thinking_block(thinking: String) -> Vec<Content> {
    if thinking.is_empty() {
        return Vec::new();
    }
    vec![Content::Thinking { thinking, signature: None }]
}

/// OpenAI's `finish_reason` in Wingman's words.
pub fn stop_reason(finish_reason: Option<&str>, has_calls: bool) -> String {
    match finish_reason {
        _ if has_calls => "tool_use",
        Some("stop") | None => "end_turn",
        Some("length") => "max_tokens",
        Some("tool_calls") | Some("function_call") => "tool_use",
        Some(other) => other,
    }
    .to_string()
}

/// `prompt_tokens` include the cached ones; Wingman counts them apart.
fn usage_of(usage: &Value) -> Usage {
    let count = |path: &str| usage.pointer(path).and_then(Value::as_u64).unwrap_or(0);
    let cached = count("/prompt_tokens_details/cached_tokens");
    Usage {
        input_tokens: count("/prompt_tokens").saturating_sub(cached),
        output_tokens: count("/completion_tokens"),
        cache_read_input_tokens: cached,
        ..Usage::default()
    }
}

/// An error object inside a stream: a server-side failure unless it says
/// the request itself is wrong.
fn stream_error(chunk: &Value) -> ProviderError {
    let message = http::error_message(chunk).unwrap_or_else(|| "error".into());
    let kind = chunk.pointer("/error/type").and_then(Value::as_str).unwrap_or("");
    let message = format!("{message} (during the stream)");
    if kind == "invalid_request_error" {
        ProviderError::fatal(message)
    } else {
        ProviderError::transient(message)
    }
}

/// Reads a non-streamed completion, sending its text as one delta.
pub fn parse_completion(body: &Value, deltas: &Deltas) -> Result<InferenceResponse, ProviderError> {
    let choice = body
        .get("choices")
        .and_then(Value::as_array)
        .and_then(|c| c.first())
        .ok_or_else(|| ProviderError::transient("the completion has no choices"))?;
    let text = choice.pointer("/message/content").and_then(Value::as_str).unwrap_or("").to_string();
    let mut tool_calls = Vec::new();
    for call in choice.pointer("/message/tool_calls").and_then(Value::as_array).into_iter().flatten() {
        let field = |path: &str| call.pointer(path).and_then(Value::as_str).unwrap_or("").to_string();
        let name = field("/function/name");
        let arguments = field("/function/arguments");
        let _ = deltas.send(Delta::ToolInput(arguments.len()));
        let input = parse_arguments(&name, &arguments)?;
        let id = Some(field("/id")).filter(|id| !id.is_empty()).unwrap_or_else(new_call_id);
        tool_calls.push(ToolCall { id, name, input });
    }
    let thinking = reasoning_of(choice.get("message")).unwrap_or("").to_string();
    if !thinking.is_empty() {
        let _ = deltas.send(Delta::Thinking(thinking.clone()));
    }
    if !text.is_empty() {
        let _ = deltas.send(Delta::Text(text.clone()));
    }
    let usage = body.get("usage").map(usage_of).unwrap_or_default();
    let reason = choice.get("finish_reason").and_then(Value::as_str);
    let stop_reason = stop_reason(reason, !tool_calls.is_empty());
    Ok(InferenceResponse { stop_reason, text, tool_calls, usage, thinking: thinking_block(thinking), heard: None })
}

impl crate::provider::sse::StreamReader for StreamState {
    fn on_data(&mut self, data: &str, deltas: &Deltas) -> Result<(), ProviderError> {
        StreamState::on_data(self, data, deltas)
    }

    fn is_done(&self) -> bool {
        StreamState::is_done(self)
    }
}
