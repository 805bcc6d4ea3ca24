//! OpenAI Chat Completions: `POST {base_url}/chat/completions`, streamed as
//! Server-Sent Events ending in `data: [DONE]`.
//!
//! `base_url` (default `https://api.openai.com/v1`) reaches any server that
//! speaks this API: vLLM, llama.cpp's server, LM Studio, OpenRouter. The key
//! is sent as `Authorization: Bearer` when there is one; a local server needs
//! none, so only the default base URL insists on it. Tool calls stream as
//! fragments keyed by `index` and are assembled here; usage comes in a last
//! chunk requested with `stream_options.include_usage` (`include_usage:
//! false` for servers that refuse the field). An `output_schema` is sent as
//! `response_format` of type `json_schema`. A reasoning level is sent as
//! `reasoning_effort`; the model's thinking is never sent back.

use async_trait::async_trait;
use serde_json::{json, Map, Value};

use super::auth::ApiKey;
use super::options::{self, Kind, OptionSpec};
use super::{http, Deltas, InferenceRequest, InferenceResponse, Provider, ProviderError, ProviderInfo};
use crate::domain::model::{Content, Message, Reasoning, Role};

mod stream;

pub use stream::{parse_completion, StreamState};

/// Where requests go unless `options.base_url` says otherwise.
pub const DEFAULT_BASE_URL: &str = "https://api.openai.com/v1";

/// Options of this provider beyond the common ones.
pub const OPTIONS: &[OptionSpec] = &[
    OptionSpec { name: "max_completion_tokens", kind: Kind::Count },
    OptionSpec { name: "stop", kind: Kind::Strings },
    OptionSpec { name: "seed", kind: Kind::Any },
    OptionSpec { name: "frequency_penalty", kind: Kind::Any },
    OptionSpec { name: "presence_penalty", kind: Kind::Any },
    OptionSpec { name: "reasoning_effort", kind: Kind::Str },
    OptionSpec { name: "parallel_tool_calls", kind: Kind::Bool },
    OptionSpec { name: "tool_choice", kind: Kind::Any },
    OptionSpec { name: "user", kind: Kind::Str },
    OptionSpec { name: "service_tier", kind: Kind::Str },
    OptionSpec { name: "strict_tools", kind: Kind::Bool },
    OptionSpec { name: "include_usage", kind: Kind::Bool },
];

/// Options copied as they are into the request body.
const PASSED: &[(&str, &str)] = &[
    ("max_tokens", "max_tokens"),
    ("max_completion_tokens", "max_completion_tokens"),
    ("temperature", "temperature"),
    ("top_p", "top_p"),
    ("stop", "stop"),
    ("seed", "seed"),
    ("frequency_penalty", "frequency_penalty"),
    ("presence_penalty", "presence_penalty"),
    ("reasoning_effort", "reasoning_effort"),
    ("parallel_tool_calls", "parallel_tool_calls"),
    ("tool_choice", "tool_choice"),
    ("user", "user"),
    ("service_tier", "service_tier"),
];

/// Its entry in the provider catalogue.
pub fn info() -> ProviderInfo {
    ProviderInfo {
        id: "openai",
        name: "OpenAI Chat Completions (and compatible servers)",
        auth: "api_key_optional",
        env: Some("OPENAI_API_KEY"),
        default_base_url: Some(DEFAULT_BASE_URL),
        models: vec!["gpt-4.1", "gpt-4o", "gpt-4o-mini", "gpt-5"],
        options: options::names(OPTIONS),
    }
}

/// The OpenAI-compatible provider, holding the key for one step.
#[derive(Debug)]
pub struct OpenAi {
    key: Option<ApiKey>,
}

impl OpenAi {
    /// A provider that sends `key` when it has one.
    pub fn new(key: Option<ApiKey>) -> Self {
        OpenAi { key }
    }
}

#[async_trait]
impl Provider for OpenAi {
    async fn infer(&self, request: &InferenceRequest, deltas: &Deltas) -> Result<InferenceResponse, ProviderError> {
        let opts = &request.options;
        let custom_server = opts.get("base_url").is_some();
        if self.key.is_none() && !custom_server {
            return Err(ProviderError::fatal(
                "no API key for openai: store one with PUT /provider/auth or set OPENAI_API_KEY \
                 (a local server set with options.base_url needs none)",
            ));
        }
        let streaming = options::streaming(opts);
        let idle = http::timeout(opts);
        let mut builder = http::client()
            .post(http::endpoint(opts, DEFAULT_BASE_URL, "/chat/completions"))
            .json(&request_body(request, streaming));
        if let Some(key) = &self.key {
            builder = builder.header("authorization", http::secret_header("Bearer ", key)?);
        }
        let mut response = http::send(builder, idle, self.key.as_ref(), http::error_message).await?;
        let heard = super::ratelimit::heard(response.headers());
        let mut answer = if !streaming {
            parse_completion(&http::json_body(response, idle).await?, deltas)?
        } else {
            let mut state = StreamState::default();
            super::sse::read_stream(&mut response, idle, &mut state, deltas).await?;
            state.finish()?
        };
        answer.heard = heard;
        Ok(answer)
    }
}

/// The request body for `request`.
pub fn request_body(request: &InferenceRequest, streaming: bool) -> Value {
    let opts = &request.options;
    let native = options::native_output(opts);
    let mut body = Map::new();
    body.insert("model".into(), json!(request.model));
    let mut turns = Vec::new();
    if let Some(system) = super::system_prompt(request, native).filter(|s| !s.is_empty()) {
        turns.push(json!({"role": "system", "content": system}));
    }
    turns.extend(messages(request.conversation()));
    body.insert("messages".into(), Value::Array(turns));
    if !request.tools.is_empty() {
        let strict = opts.get("strict_tools").and_then(Value::as_bool).unwrap_or(false);
        let tools = request.tools.iter().map(|t| {
            let mut function = json!({"name": t.name, "parameters": t.input_schema});
            if !t.description.is_empty() {
                function["description"] = json!(t.description);
            }
            if strict {
                function["strict"] = json!(true);
            }
            json!({"type": "function", "function": function})
        });
        body.insert("tools".into(), Value::Array(tools.collect()));
    }
    if streaming {
        body.insert("stream".into(), json!(true));
        if opts.get("include_usage").and_then(Value::as_bool).unwrap_or(true) {
            body.insert("stream_options".into(), json!({"include_usage": true}));
        }
    }
    options::copy(opts, &mut body, PASSED);
    if let Some(effort) = reasoning_effort(request.reasoning) {
        body.insert("reasoning_effort".into(), json!(effort));
    }
    if let (true, Some(schema)) = (native, &request.output_schema) {
        let format = json!({"name": "output", "schema": schema, "strict": true});
        body.insert("response_format".into(), json!({"type": "json_schema", "json_schema": format}));
    }
    options::merge_extra(opts, &mut body);
    Value::Object(body)
}

/// The `reasoning_effort` of a level: `max` is `high`, the most the API
/// names; `off` sends none (nor replaces `options.reasoning_effort`).
pub fn reasoning_effort(level: Reasoning) -> Option<&'static str> {
    match level {
        Reasoning::Off => None,
        Reasoning::Low => Some("low"),
        Reasoning::Medium => Some("medium"),
        Reasoning::High | Reasoning::Max => Some("high"),
    }
}

/// Wingman's messages as chat messages: an assistant message carries its
/// tool calls (arguments as a JSON string), and each tool result is a message
/// of its own with role `tool`.
pub fn messages<'a>(messages: impl IntoIterator<Item = &'a Message>) -> Vec<Value> {
    let mut out = Vec::new();
    for message in messages {
        let text = message.text();
        match message.role {
            Role::User if !text.is_empty() => out.push(json!({"role": "user", "content": text})),
            Role::User | Role::Tool => {}
            Role::Assistant => {
                let calls: Vec<Value> = message
                    .content
                    .iter()
                    .filter_map(|c| match c {
                        Content::ToolUse { id, name, input } => Some(json!({"id": id, "type": "function",
                        "function": {"name": name, "arguments": input.to_string()}})),
                        _ => None,
                    })
                    .collect();
                if text.is_empty() && calls.is_empty() {
                    continue;
                }
                let mut turn =
                    json!({"role": "assistant", "content": if text.is_empty() { Value::Null } else { json!(text) }});
                if !calls.is_empty() {
                    turn["tool_calls"] = Value::Array(calls);
                }
                out.push(turn);
            }
        }
        for content in &message.content {
            if let Content::ToolResult { tool_use_id, content, .. } = content {
                out.push(json!({"role": "tool", "tool_call_id": tool_use_id, "content": content}));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests;
