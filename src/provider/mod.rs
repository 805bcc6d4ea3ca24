//! Providers: what the agent loop asks for an inference.
//!
//! A provider turns the conversation so far into the model's next message.
//! Its pieces are streamed through a channel as they arrive: text, which the
//! loop coalesces into `text_delta` events, and the size of each fragment of
//! tool input, which the loop counts against the step's output cap.
//! Failures say whether a retry may help.
//!
//! The HTTP providers (`anthropic`, `openai`, `ollama`) each live in their own
//! module; what they share is in [`http`] (the client, error classification),
//! [`sse`] (reading a stream of events with [`crate::sse`]), [`options`] (recognised agent options),
//! [`auth`] (credentials), [`pricing`] (cost) and [`schema`] (structured
//! output). docs/providers.md describes them for users.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use serde::Serialize;
use serde_json::{Map, Value};
use tokio::sync::mpsc;

use crate::domain::history::History;
use crate::domain::model::{Agent, Content, Message, Reasoning, ToolCall, Usage};

pub mod anthropic;
pub mod auth;
#[cfg(test)]
pub(crate) mod fixtures;
pub mod http;
pub mod models;
pub mod ollama;
pub mod openai;
pub mod options;
pub mod overflow;
pub mod pricing;
pub mod ratelimit;
pub mod schema;
pub mod scripted;
pub mod sse;

use auth::ApiKey;

pub use crate::domain::model::ToolSpec;

/// One inference request.
#[derive(Debug, Clone)]
pub struct InferenceRequest {
    /// The model, as the agent names it.
    pub model: String,
    /// The agent's options, forwarded to the provider.
    pub options: Map<String, Value>,
    /// The system prompt: the agent's instructions (and the task's).
    pub system: Option<String>,
    /// The session's history before the run (shared, not copied).
    pub history: History,
    /// The run's own conversation so far, after the history, in Wingman's
    /// provider-neutral form.
    pub messages: Vec<Message>,
    /// The tools the model may call.
    pub tools: Vec<ToolSpec>,
    /// A JSON schema the final answer must fit.
    pub output_schema: Option<Value>,
    /// How many provider calls of this run ended durably before this one
    /// (answers and recorded failures). Deterministic across crashes.
    pub call_index: u32,
    /// How much the model should reason: the message's level, else the agent's.
    pub reasoning: Reasoning,
}

impl InferenceRequest {
    /// The whole conversation: the history, then the run's own messages.
    pub fn conversation(&self) -> impl DoubleEndedIterator<Item = &Message> + Clone + '_ {
        self.history.iter().chain(self.messages.iter())
    }
}

/// The model's answer.
#[derive(Debug, Clone, PartialEq)]
pub struct InferenceResponse {
    /// The answer's text (all text blocks, concatenated).
    pub text: String,
    /// The tools the model asked to call, in order.
    pub tool_calls: Vec<ToolCall>,
    /// Tokens used; the engine adds the cost.
    pub usage: Usage,
    /// Why the model stopped, in Anthropic's words where one fits:
    /// `end_turn`, `tool_use`, `max_tokens`, `stop_sequence`.
    pub stop_reason: String,
    /// The thinking the model sent before its answer, in its order:
    /// [`Content::Thinking`] and [`Content::RedactedThinking`] blocks.
    pub thinking: Vec<Content>,
    /// What the answer's headers said about the provider's rate limits.
    pub heard: Option<crate::domain::budget::Heard>,
}

/// A failed inference.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{message}")]
pub struct ProviderError {
    /// True when retrying may succeed (rate limits, overload, server errors, timeouts).
    pub transient: bool,
    /// The HTTP status, when there was one.
    pub status: Option<u16>,
    /// What went wrong, in the provider's words where it gave some.
    pub message: String,
    /// How long the provider asked us to wait before retrying.
    pub retry_after: Option<Duration>,
    /// Set when the provider said the prompt is too long for the model.
    pub overflow: Option<Overflow>,
    /// What the answer's headers said about the provider's rate limits
    /// (boxed: most errors have none, and an error is passed around a lot).
    pub heard: Option<Box<crate::domain::budget::Heard>>,
}

/// A provider's answer that the prompt does not fit the model's context
/// window (docs/providers.md lists the answers recognised).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Overflow {
    /// The window the provider named, when it named one.
    pub window: Option<u64>,
}

impl ProviderError {
    /// Classifies an HTTP status the way every provider does.
    pub fn from_status(status: u16, message: impl Into<String>) -> Self {
        let transient = matches!(status, 408 | 409 | 429 | 500..=599);
        let message = message.into();
        let overflow = overflow::recognise(status, None, &message);
        let transient = transient && overflow.is_none();
        ProviderError { transient, status: Some(status), message, retry_after: None, overflow, heard: None }
    }

    /// A failure without a status that a retry may cure (a broken stream).
    pub fn transient(message: impl Into<String>) -> Self {
        ProviderError {
            transient: true,
            status: None,
            message: message.into(),
            retry_after: None,
            overflow: None,
            heard: None,
        }
    }

    /// A failure without a status that no retry will cure (a missing key).
    pub fn fatal(message: impl Into<String>) -> Self {
        ProviderError {
            transient: false,
            status: None,
            message: message.into(),
            retry_after: None,
            overflow: None,
            heard: None,
        }
    }
}

/// A piece of a streamed answer, sent as it arrives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Delta {
    /// Text of the answer.
    Text(String),
    /// The model's thinking before it answers.
    Thinking(String),
    /// So many more bytes of a tool call's input: counted against the
    /// step's output cap, never shown.
    ToolInput(usize),
}

impl Delta {
    /// How many bytes of output the piece adds to its answer.
    pub fn len(&self) -> usize {
        match self {
            Delta::Text(t) | Delta::Thinking(t) => t.len(),
            Delta::ToolInput(n) => *n,
        }
    }

    /// True for a piece that adds nothing.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Where a provider sends the pieces of its answer as they arrive.
pub type Deltas = mpsc::UnboundedSender<Delta>;

/// A model provider.
#[async_trait]
pub trait Provider: Send + Sync {
    /// Runs one inference, sending the pieces of its answer on `deltas` as they arrive.
    async fn infer(&self, request: &InferenceRequest, deltas: &Deltas) -> Result<InferenceResponse, ProviderError>;
}

/// What `GET /provider` shows about a provider.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct ProviderInfo {
    pub id: &'static str,
    pub name: &'static str,
    /// How it authenticates: `api_key`, `api_key_optional` or `none`.
    pub auth: &'static str,
    /// The environment variable read when no key is stored.
    #[schema(required = true)]
    pub env: Option<&'static str>,
    /// Where requests go when `options.base_url` is not set.
    #[schema(required = true)]
    pub default_base_url: Option<&'static str>,
    /// Example models; any model the server knows may be named.
    pub models: Vec<&'static str>,
    /// The recognised `options` keys (docs/providers.md explains each).
    pub options: Vec<&'static str>,
}

/// The providers this build knows.
pub fn catalog() -> Vec<ProviderInfo> {
    vec![anthropic::info(), openai::info(), ollama::info(), scripted::info()]
}

/// True if `id` names a known provider.
pub fn is_known(id: &str) -> bool {
    catalog().iter().any(|p| p.id == id)
}

/// Checks an agent's options for its provider. (`tool_env` is the tools'
/// option, the same for every provider, never sent to one, and checked by
/// [`crate::tools::check_tool_env`].)
pub fn validate_options(provider: &str, opts: &Map<String, Value>) -> Result<(), String> {
    match provider {
        "scripted" => scripted::validate_options(opts),
        "anthropic" => options::validate(provider, anthropic::OPTIONS, opts),
        "openai" => options::validate(provider, openai::OPTIONS, opts),
        "ollama" => options::validate(provider, ollama::OPTIONS, opts),
        other => Err(format!("unknown provider {other:?}")),
    }
}

/// Builds the provider an agent names, with the key it should use.
pub fn build(id: &str, key: Option<ApiKey>) -> Result<Arc<dyn Provider>, ProviderError> {
    match id {
        "scripted" => Ok(Arc::new(scripted::Scripted)),
        "anthropic" => Ok(Arc::new(anthropic::Anthropic::new(key))),
        "openai" => Ok(Arc::new(openai::OpenAi::new(key))),
        "ollama" => Ok(Arc::new(ollama::Ollama::new(key))),
        other => Err(ProviderError::fatal(format!("unknown provider {other:?}"))),
    }
}

/// Builds the provider for one step of an agent's run with `stored`, the
/// key the store holds under the agent's credential name (see
/// [`auth::resolve`] for the environment fallback).
pub fn for_agent(agent: &Agent, stored: Option<ApiKey>) -> Result<Arc<dyn Provider>, ProviderError> {
    let key = match agent.provider.as_str() {
        "scripted" => None,
        provider => auth::resolve(provider, &agent.options, stored),
    };
    build(&agent.provider, key)
}

/// The system prompt, with the output schema spelled out when the provider's
/// own structured-output mechanism is not used.
pub fn system_prompt(request: &InferenceRequest, native_schema: bool) -> Option<String> {
    let schema = request.output_schema.as_ref().filter(|_| !native_schema);
    match (request.system.as_deref(), schema) {
        (system, None) => system.map(str::to_string),
        (system, Some(schema)) => {
            let rule = format!(
                "Your final answer must be a single JSON value, with no other text, that is valid against \
                 this JSON schema:\n{schema}"
            );
            Some(match system {
                Some(s) if !s.is_empty() => format!("{s}\n\n{rule}"),
                _ => rule,
            })
        }
    }
}

/// A fresh ID for a tool call whose provider gave none.
pub fn new_call_id() -> String {
    format!("call_{}", ulid::Ulid::new().to_string().to_lowercase())
}

/// Parses a tool call's streamed or stringified arguments: empty means `{}`,
/// and anything but a JSON object is a failure a retry may cure.
pub fn parse_arguments(name: &str, text: &str) -> Result<Value, ProviderError> {
    if text.trim().is_empty() {
        return Ok(Value::Object(Map::new()));
    }
    match serde_json::from_str::<Value>(text) {
        Ok(value @ Value::Object(_)) => Ok(value),
        _ => Err(ProviderError::transient(format!("the model's arguments for {name:?} are not a JSON object"))),
    }
}
