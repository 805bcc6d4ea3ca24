//! Ollama's native chat API: `POST {base_url}/api/chat` (default
//! `http://localhost:11434`), streamed as NDJSON, one JSON object per line.
//!
//! Tool calls arrive whole (arguments as an object) and results go back as
//! `tool` messages naming the tool. `max_tokens` maps to the model option
//! `num_predict`; sampling options go in `options`, and `model_options` adds
//! any other model option. A key is optional (for a server behind a proxy or
//! Ollama's hosted service) and sent as a bearer token. An `output_schema` is
//! sent as `format`. A reasoning level is sent as `think` ([`think`]); the
//! stream's `message.thinking` is the model's thinking, which goes back in
//! the assistant message's `thinking` field, for the model's template to use.

use std::collections::HashMap;

use async_trait::async_trait;
use serde_json::{json, Map, Value};

use super::auth::ApiKey;
use super::options::{self, Kind, OptionSpec};
use super::{
    http, new_call_id, Delta, Deltas, InferenceRequest, InferenceResponse, Provider, ProviderError, ProviderInfo,
};
use crate::domain::model::{Content, Message, Reasoning, Role, ToolCall, Usage};

/// Where requests go unless `options.base_url` says otherwise.
pub const DEFAULT_BASE_URL: &str = "http://localhost:11434";

/// Options of this provider beyond the common ones.
pub const OPTIONS: &[OptionSpec] = &[
    OptionSpec { name: "top_k", kind: Kind::Count },
    OptionSpec { name: "seed", kind: Kind::Any },
    OptionSpec { name: "stop", kind: Kind::Strings },
    OptionSpec { name: "num_ctx", kind: Kind::Count },
    OptionSpec { name: "model_options", kind: Kind::Object },
    OptionSpec { name: "keep_alive", kind: Kind::Any },
    OptionSpec { name: "think", kind: Kind::Any },
];

/// Agent options that are Ollama model options: (agent option, model option).
const MODEL_OPTIONS: &[(&str, &str)] = &[
    ("max_tokens", "num_predict"),
    ("temperature", "temperature"),
    ("top_p", "top_p"),
    ("top_k", "top_k"),
    ("seed", "seed"),
    ("stop", "stop"),
    ("num_ctx", "num_ctx"),
];

/// Its entry in the provider catalogue.
pub fn info() -> ProviderInfo {
    ProviderInfo {
        id: "ollama",
        name: "Ollama (native /api/chat)",
        auth: "api_key_optional",
        env: Some("OLLAMA_API_KEY"),
        default_base_url: Some(DEFAULT_BASE_URL),
        models: vec!["llama3.2", "qwen3", "gpt-oss"],
        options: options::names(OPTIONS),
    }
}

/// The Ollama provider, holding the (optional) key for one step.
#[derive(Debug)]
pub struct Ollama {
    key: Option<ApiKey>,
}

impl Ollama {
    /// A provider that sends `key` when it has one.
    pub fn new(key: Option<ApiKey>) -> Self {
        Ollama { key }
    }
}

#[async_trait]
impl Provider for Ollama {
    async fn infer(&self, request: &InferenceRequest, deltas: &Deltas) -> Result<InferenceResponse, ProviderError> {
        let opts = &request.options;
        let streaming = options::streaming(opts);
        let idle = http::timeout(opts);
        let mut builder = http::client()
            .post(http::endpoint(opts, DEFAULT_BASE_URL, "/api/chat"))
            .json(&request_body(request, streaming));
        if let Some(key) = &self.key {
            builder = builder.header("authorization", http::secret_header("Bearer ", key)?);
        }
        let mut response = http::send(builder, idle, self.key.as_ref(), http::error_message).await?;
        let mut state = StreamState::default();
        if !streaming {
            state.on_line(&http::json_body(response, idle).await?.to_string(), deltas)?;
            return state.finish();
        }
        let mut lines = crate::sse::LineBuffer::default();
        while let Some(chunk) = http::next_chunk(&mut response, idle).await? {
            for line in lines.push(&chunk) {
                state.on_line(&line, deltas)?;
            }
            if state.done {
                break;
            }
        }
        if let Some(line) = lines.finish() {
            state.on_line(&line, deltas)?;
        }
        state.finish()
    }
}

/// The request body for `request`.
pub fn request_body(request: &InferenceRequest, streaming: bool) -> Value {
    let opts = &request.options;
    let native = options::native_output(opts);
    let mut turns = Vec::new();
    if let Some(system) = super::system_prompt(request, native).filter(|s| !s.is_empty()) {
        turns.push(json!({"role": "system", "content": system}));
    }
    turns.extend(messages(request.conversation()));
    let mut body = Map::new();
    body.insert("model".into(), json!(request.model));
    body.insert("messages".into(), Value::Array(turns));
    if !request.tools.is_empty() {
        let tools = request.tools.iter().map(|t| {
            let mut function = json!({"name": t.name, "parameters": t.input_schema});
            if !t.description.is_empty() {
                function["description"] = json!(t.description);
            }
            json!({"type": "function", "function": function})
        });
        body.insert("tools".into(), Value::Array(tools.collect()));
    }
    body.insert("stream".into(), json!(streaming));
    let mut model_options = Map::new();
    options::copy(opts, &mut model_options, MODEL_OPTIONS);
    if let Some(Value::Object(extra)) = opts.get("model_options") {
        model_options.extend(extra.clone());
    }
    if !model_options.is_empty() {
        body.insert("options".into(), Value::Object(model_options));
    }
    options::copy(opts, &mut body, &[("keep_alive", "keep_alive"), ("think", "think")]);
    if let Some(think) = think(request.reasoning, &request.model) {
        body.insert("think".into(), think);
    }
    if let (true, Some(schema)) = (native, &request.output_schema) {
        body.insert("format".into(), schema.clone());
    }
    options::merge_extra(opts, &mut body);
    Value::Object(body)
}

/// The `think` of a level: gpt-oss models take the level's name (`max` is
/// `high`), others `true`; `off` sends none (nor replaces `options.think`),
/// so the model's own default applies.
pub fn think(level: Reasoning, model: &str) -> Option<Value> {
    let name = match level {
        Reasoning::Off => return None,
        Reasoning::Low => "low",
        Reasoning::Medium => "medium",
        Reasoning::High | Reasoning::Max => "high",
    };
    Some(if model.starts_with("gpt-oss") { json!(name) } else { json!(true) })
}

/// Wingman's messages as Ollama messages: tool calls with object arguments,
/// an assistant's thinking in `thinking`, and one `tool` message per
/// result, naming its tool and call.
pub fn messages<'a>(messages: impl IntoIterator<Item = &'a Message>) -> Vec<Value> {
    let mut out = Vec::new();
    // The name of each call asked for so far, for the results that follow.
    let mut names: HashMap<&str, &str> = HashMap::new();
    for message in messages {
        for content in &message.content {
            if let Content::ToolUse { id, name, .. } = content {
                names.insert(id, name);
            }
        }
        let text = message.text();
        let calls: Vec<Value> = message
            .content
            .iter()
            .filter_map(|c| match c {
                Content::ToolUse { id, name, input } => {
                    Some(json!({"id": id, "function": {"name": name, "arguments": input}}))
                }
                _ => None,
            })
            .collect();
        match message.role {
            Role::User if !text.is_empty() => out.push(json!({"role": "user", "content": text})),
            Role::Assistant if !text.is_empty() || !calls.is_empty() => {
                let mut turn = json!({"role": "assistant", "content": text});
                let thinking = thinking_of(message);
                if !thinking.is_empty() {
                    turn["thinking"] = json!(thinking);
                }
                if !calls.is_empty() {
                    turn["tool_calls"] = Value::Array(calls);
                }
                out.push(turn);
            }
            _ => {}
        }
        for content in &message.content {
            if let Content::ToolResult { tool_use_id, content, .. } = content {
                let mut turn = json!({"role": "tool", "content": content, "tool_call_id": tool_use_id});
                if let Some(name) = names.get(tool_use_id.as_str()) {
                    turn["tool_name"] = json!(name);
                }
                out.push(turn);
            }
        }
    }
    out
}

/// The thinking blocks of a message, as one text.
fn thinking_of(message: &Message) -> String {
    message
        .content
        .iter()
        .filter_map(|c| match c {
            Content::Thinking { thinking, .. } => Some(thinking.as_str()),
            _ => None,
        })
        .collect()
}

/// The answer so far, built line by line.
#[derive(Debug, Default)]
pub struct StreamState {
    text: String,
    thinking: String,
    tool_calls: Vec<ToolCall>,
    usage: Usage,
    done_reason: Option<String>,
    done: bool,
}

impl StreamState {
    /// Applies one line, sending text deltas as they come.
    pub fn on_line(&mut self, line: &str, deltas: &Deltas) -> Result<(), ProviderError> {
        if line.trim().is_empty() {
            return Ok(());
        }
        let chunk: Value = serde_json::from_str(line)
            .map_err(|e| ProviderError::transient(format!("the stream sent a line that is not JSON: {e}")))?;
        if let Some(message) = http::error_message(&chunk) {
            return Err(ProviderError::transient(format!("{message} (during the stream)")));
        }
        if let Some(thinking) = chunk.pointer("/message/thinking").and_then(Value::as_str).filter(|t| !t.is_empty()) {
            self.thinking.push_str(thinking);
            let _ = deltas.send(Delta::Thinking(thinking.to_string()));
        }
        if let Some(text) = chunk.pointer("/message/content").and_then(Value::as_str).filter(|t| !t.is_empty()) {
            self.text.push_str(text);
            let _ = deltas.send(Delta::Text(text.to_string()));
        }
        for call in chunk.pointer("/message/tool_calls").and_then(Value::as_array).into_iter().flatten() {
            let arguments = call.pointer("/function/arguments").map(Value::to_string).unwrap_or_default();
            let _ = deltas.send(Delta::ToolInput(arguments.len()));
            self.tool_calls.push(tool_call(call)?);
        }
        if chunk.get("done").and_then(Value::as_bool) == Some(true) {
            self.done = true;
            self.done_reason = chunk.get("done_reason").and_then(Value::as_str).map(str::to_string);
            let count = |name: &str| chunk.get(name).and_then(Value::as_u64).unwrap_or(0);
            self.usage.input_tokens = count("prompt_eval_count");
            self.usage.output_tokens = count("eval_count");
        }
        Ok(())
    }

    /// The answer, once the stream has ended with a `done` line.
    pub fn finish(self) -> Result<InferenceResponse, ProviderError> {
        if !self.done {
            return Err(ProviderError::transient("the stream ended before its done line"));
        }
        let stop_reason = match self.done_reason.as_deref() {
            _ if !self.tool_calls.is_empty() => "tool_use",
            Some("stop") | None => "end_turn",
            Some("length") => "max_tokens",
            Some(other) => other,
        }
        .to_string();
        let thinking = match self.thinking.is_empty() {
            true => Vec::new(),
            false => vec![Content::Thinking { thinking: self.thinking, signature: None }],
        };
        Ok(InferenceResponse {
            text: self.text,
            tool_calls: self.tool_calls,
            usage: self.usage,
            stop_reason,
            thinking,
            heard: None,
        })
    }
}

/// One whole tool call; older servers give no ID, and some send the
/// arguments as a JSON string.
fn tool_call(call: &Value) -> Result<ToolCall, ProviderError> {
    let name = call.pointer("/function/name").and_then(Value::as_str).unwrap_or("").to_string();
    let input = match call.pointer("/function/arguments") {
        Some(Value::String(text)) => super::parse_arguments(&name, text)?,
        Some(args @ Value::Object(_)) => args.clone(),
        _ => Value::Object(Map::new()),
    };
    let id = call.get("id").and_then(Value::as_str).filter(|id| !id.is_empty()).map(str::to_string);
    Ok(ToolCall { id: id.unwrap_or_else(new_call_id), name, input })
}

#[cfg(test)]
mod tests;
