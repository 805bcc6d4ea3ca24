//! Anthropic's Messages API: `POST {base_url}/v1/messages` with `x-api-key`
//! and `anthropic-version: 2023-06-01`, streamed as Server-Sent Events.
//!
//! The agent's instructions become the `system` prompt; `max_tokens` defaults
//! to 4096. Tool results (Wingman's `tool` role) go back as a `user` turn of
//! `tool_result` blocks, and consecutive turns of one role are merged, as the
//! API wants roles to alternate. An `output_schema` is sent as
//! `output_config.format` (structured outputs), unless `structured_output` is
//! `prompt`. A reasoning level turns on extended thinking (see [`thinking`]);
//! the thinking blocks an answer held go back unchanged, signature included,
//! as the API requires inside a tool loop.

use async_trait::async_trait;
use serde_json::{json, Map, Value};

use super::auth::ApiKey;
use super::options::{self, Kind, OptionSpec};
use super::{http, Deltas, InferenceRequest, InferenceResponse, Provider, ProviderError, ProviderInfo};
use crate::domain::model::{Content, Message, Reasoning, Role};

mod stream;

pub use stream::{parse_message, StreamState};

/// Where requests go unless `options.base_url` says otherwise.
pub const DEFAULT_BASE_URL: &str = "https://api.anthropic.com";
/// The API version every request names.
pub const API_VERSION: &str = "2023-06-01";
/// `max_tokens` when the agent does not set it: the API requires one.
pub const DEFAULT_MAX_TOKENS: u64 = 4096;
/// The smallest thinking budget the API accepts.
pub const MIN_THINKING_BUDGET: u64 = 1024;

/// Options of this provider beyond the common ones.
pub const OPTIONS: &[OptionSpec] = &[
    OptionSpec { name: "top_k", kind: Kind::Count },
    OptionSpec { name: "stop_sequences", kind: Kind::Strings },
    OptionSpec { name: "metadata", kind: Kind::Object },
    OptionSpec { name: "tool_choice", kind: Kind::Object },
    OptionSpec { name: "service_tier", kind: Kind::Str },
];

/// Its entry in the provider catalogue.
pub fn info() -> ProviderInfo {
    ProviderInfo {
        id: "anthropic",
        name: "Anthropic Messages API",
        auth: "api_key",
        env: Some("ANTHROPIC_API_KEY"),
        default_base_url: Some(DEFAULT_BASE_URL),
        models: vec!["claude-sonnet-4-5", "claude-haiku-4-5", "claude-opus-4-1"],
        options: options::names(OPTIONS),
    }
}

/// The Anthropic provider, holding the key for one step.
#[derive(Debug)]
pub struct Anthropic {
    key: Option<ApiKey>,
}

impl Anthropic {
    /// A provider that sends `key` (a call without one fails at once).
    pub fn new(key: Option<ApiKey>) -> Self {
        Anthropic { key }
    }
}

#[async_trait]
impl Provider for Anthropic {
    async fn infer(&self, request: &InferenceRequest, deltas: &Deltas) -> Result<InferenceResponse, ProviderError> {
        let key = self.key.as_ref().ok_or_else(|| {
            ProviderError::fatal("no API key for anthropic: store one with PUT /provider/auth or set ANTHROPIC_API_KEY")
        })?;
        let streaming = options::streaming(&request.options);
        let idle = http::timeout(&request.options);
        let builder = http::client()
            .post(http::endpoint(&request.options, DEFAULT_BASE_URL, "/v1/messages"))
            .header("x-api-key", http::secret_header("", key)?)
            .header("anthropic-version", API_VERSION)
            .json(&request_body(request, streaming));
        let mut response = http::send(builder, idle, Some(key), http::error_message).await?;
        let heard = super::ratelimit::heard(response.headers());
        let mut answer = if !streaming {
            parse_message(&http::json_body(response, idle).await?, deltas)?
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
    let answer = opts.get("max_tokens").and_then(Value::as_u64).unwrap_or(DEFAULT_MAX_TOKENS);
    let thinking = thinking(request.reasoning, answer, output_limit(&request.model));
    body.insert("max_tokens".into(), json!(thinking.map_or(answer, |t| t.max_tokens)));
    if let Some(system) = super::system_prompt(request, native).filter(|s| !s.is_empty()) {
        body.insert("system".into(), json!(system));
    }
    body.insert("messages".into(), Value::Array(messages(request.conversation())));
    if !request.tools.is_empty() {
        let tools = request.tools.iter().map(|t| {
            let mut tool = json!({"name": t.name, "input_schema": t.input_schema});
            if !t.description.is_empty() {
                tool["description"] = json!(t.description);
            }
            tool
        });
        body.insert("tools".into(), Value::Array(tools.collect()));
    }
    if streaming {
        body.insert("stream".into(), json!(true));
    }
    options::copy(
        opts,
        &mut body,
        &[
            ("temperature", "temperature"),
            ("top_p", "top_p"),
            ("top_k", "top_k"),
            ("stop_sequences", "stop_sequences"),
            ("metadata", "metadata"),
            ("tool_choice", "tool_choice"),
            ("service_tier", "service_tier"),
        ],
    );
    if let Some(thinking) = thinking {
        body.insert("thinking".into(), json!({"type": "enabled", "budget_tokens": thinking.budget_tokens}));
        // The API refuses these with thinking on: they are left out rather
        // than fail every step (docs/providers.md says so).
        body.remove("temperature");
        body.remove("top_k");
        if body.get("top_p").and_then(Value::as_f64).is_some_and(|p| p < 0.95) {
            body.remove("top_p");
        }
    }
    if let (true, Some(schema)) = (native, &request.output_schema) {
        body.insert("output_config".into(), json!({"format": {"type": "json_schema", "schema": schema}}));
    }
    options::merge_extra(opts, &mut body);
    Value::Object(body)
}

/// What extended thinking asks for: the budget, and the `max_tokens` that
/// holds it and the answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Thinking {
    pub budget_tokens: u64,
    pub max_tokens: u64,
}

/// The thinking budget of a reasoning level, before any model's limit.
pub fn budget_tokens(level: Reasoning) -> Option<u64> {
    match level {
        Reasoning::Off => None,
        Reasoning::Low => Some(MIN_THINKING_BUDGET),
        Reasoning::Medium => Some(4096),
        Reasoning::High => Some(16384),
        Reasoning::Max => Some(32000),
    }
}

/// Extended thinking for `level`: `max_tokens` is the budget plus `answer`
/// (the agent's `max_tokens`, which stays the answer's allowance), since the
/// API wants `max_tokens` above the budget. A model whose output limit the
/// catalogue knows gets at most that limit, the budget shrinking to fit (never
/// below the API's minimum).
pub fn thinking(level: Reasoning, answer: u64, limit: Option<u64>) -> Option<Thinking> {
    let budget = budget_tokens(level)?;
    let mut max_tokens = budget + answer;
    let mut budget_tokens = budget;
    if let Some(limit) = limit.filter(|&l| l > MIN_THINKING_BUDGET && l < max_tokens) {
        max_tokens = limit;
        budget_tokens = budget.min(limit.saturating_sub(answer)).max(MIN_THINKING_BUDGET).min(limit - 1);
    }
    Some(Thinking { budget_tokens, max_tokens })
}

/// The model's output limit in the shipped catalogue, when it has one.
fn output_limit(model: &str) -> Option<u64> {
    super::models::ModelCatalog::shipped_ref().model("anthropic", model).map(|m| m.limit.output).filter(|&l| l > 0)
}

/// Wingman's messages as Anthropic turns: tool results become `user` turns,
/// consecutive turns of one role merge, empty ones are left out, and a turn
/// that is one text block is sent as a plain string.
pub fn messages<'a>(messages: impl IntoIterator<Item = &'a Message>) -> Vec<Value> {
    let mut turns: Vec<(&'static str, Vec<Value>)> = Vec::new();
    for message in messages {
        let role = match message.role {
            Role::Assistant => "assistant",
            Role::User | Role::Tool => "user",
        };
        let blocks: Vec<Value> = message.content.iter().filter_map(block).collect();
        if blocks.is_empty() {
            continue;
        }
        match turns.last_mut() {
            Some((last, content)) if *last == role => content.extend(blocks),
            _ => turns.push((role, blocks)),
        }
    }
    turns
        .into_iter()
        .map(|(role, mut blocks)| {
            let content = if blocks.len() == 1 && blocks[0]["type"] == "text" {
                blocks[0]["text"].take()
            } else {
                Value::Array(blocks)
            };
            json!({"role": role, "content": content})
        })
        .collect()
}

fn block(content: &Content) -> Option<Value> {
    Some(match content {
        Content::Text { text } if text.is_empty() => return None,
        Content::Text { text } => json!({"type": "text", "text": text}),
        Content::ToolUse { id, name, input } => json!({"type": "tool_use", "id": id, "name": name, "input": input}),
        Content::ToolResult { tool_use_id, content, is_error } => {
            let mut block = json!({"type": "tool_result", "tool_use_id": tool_use_id, "content": content});
            if *is_error {
                block["is_error"] = json!(true);
            }
            block
        }
        // Thinking without a signature came from another provider: the API
        // would refuse it, so it stays in the record only.
        Content::Thinking { signature: None, .. } => return None,
        Content::Thinking { thinking, signature: Some(signature) } => {
            json!({"type": "thinking", "thinking": thinking, "signature": signature})
        }
        Content::RedactedThinking { data } => json!({"type": "redacted_thinking", "data": data}),
        // A history applies its markers before anything is sent.
        Content::Compaction(_) => return None,
    })
}

#[cfg(test)]
mod tests;
