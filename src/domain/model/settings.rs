//! What an agent or a run carries for the domain's rules, as it is stored:
//! an agent's guards, compaction settings, sub-agents and webhook; a
//! compaction's marker in a history; where a run came from (its parent's
//! call, its formation node). The rules over them live in the modules
//! named after them (`crate::domain::guard`, `compaction`, `subagent`,
//! `webhook`, `formation`), which stand on these types.

use serde::{Deserialize, Serialize};

use super::{Content, Message, Role};

/// The default cap on one answer's output: 1 MiB of text, thinking and tool input.
pub const DEFAULT_MAX_STEP_OUTPUT_BYTES: u64 = 1 << 20;

/// The default time an inference step may take: 15 minutes.
pub const DEFAULT_STEP_TIMEOUT_SECS: u64 = 900;

/// The default number of identical calls in a row that the loop guard stops.
pub const DEFAULT_LOOP_GUARD: u32 = 3;

/// An agent's guards, each with its default (see docs/api.md).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Guards {
    /// Bytes of text, thinking and tool input one answer may stream before
    /// the run fails with `step_output_exceeded` (default 1048576).
    #[serde(default = "default_max_step_output_bytes")]
    pub max_step_output_bytes: u64,
    /// Seconds an inference step may take before it is abandoned as a
    /// transient provider failure, retried, then fatal (default 900).
    #[serde(default = "default_step_timeout_secs")]
    pub step_timeout_secs: u64,
    /// US dollars the run may spend (its steps' priced cost); the step that
    /// reaches it fails the run with `budget_exhausted`. No limit when null.
    #[serde(default)]
    pub max_cost_usd: Option<f64>,
    /// Tokens (input, output and cache) the run may use, whatever the
    /// model's price; the step that reaches it fails the run with
    /// `budget_exhausted`. No limit when null.
    #[serde(default)]
    pub max_total_tokens: Option<u64>,
    /// Identical tool calls (same tool, same input) in a row that are not
    /// run again (default 3; 0 turns the guard off).
    #[serde(default = "default_loop_guard")]
    pub loop_guard: u32,
}

fn default_max_step_output_bytes() -> u64 {
    DEFAULT_MAX_STEP_OUTPUT_BYTES
}

fn default_step_timeout_secs() -> u64 {
    DEFAULT_STEP_TIMEOUT_SECS
}

fn default_loop_guard() -> u32 {
    DEFAULT_LOOP_GUARD
}

impl Default for Guards {
    fn default() -> Self {
        Guards {
            max_step_output_bytes: DEFAULT_MAX_STEP_OUTPUT_BYTES,
            step_timeout_secs: DEFAULT_STEP_TIMEOUT_SECS,
            max_cost_usd: None,
            max_total_tokens: None,
            loop_guard: DEFAULT_LOOP_GUARD,
        }
    }
}

/// The agent's `compaction` settings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CompactionSettings {
    /// Tokens of the window kept free for the answer: a prompt past the
    /// window less these is compacted first (default 16384).
    #[serde(default = "default_reserve")]
    #[schema(minimum = 0, maximum = 10000000)]
    pub reserve_tokens: u64,
    /// Tokens of the newest conversation sent as they are, neither pruned
    /// nor summarized (default 20000; at most half of what fits).
    #[serde(default = "default_keep_recent")]
    #[schema(minimum = 0, maximum = 10000000)]
    pub keep_recent_tokens: u64,
    /// The model that writes summaries, of the agent's provider; the agent's
    /// own model when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(min_length = 1, max_length = 200, pattern = r"^[^\u0000]*\S[^\u0000]*$")]
    pub model: Option<String>,
    /// Whether runs compact by themselves (default true). A compaction asked
    /// for with `POST /sessions/{id}/compact` runs either way.
    #[serde(default = "yes")]
    pub enabled: bool,
}

/// The window tokens kept free for the answer, by default.
pub const DEFAULT_RESERVE_TOKENS: u64 = 16_384;

/// The tokens of newest conversation kept as they are, by default.
pub const DEFAULT_KEEP_RECENT_TOKENS: u64 = 20_000;

fn default_reserve() -> u64 {
    DEFAULT_RESERVE_TOKENS
}

fn default_keep_recent() -> u64 {
    DEFAULT_KEEP_RECENT_TOKENS
}

fn yes() -> bool {
    true
}

impl Default for CompactionSettings {
    fn default() -> Self {
        CompactionSettings {
            reserve_tokens: DEFAULT_RESERVE_TOKENS,
            keep_recent_tokens: DEFAULT_KEEP_RECENT_TOKENS,
            model: None,
            enabled: true,
        }
    }
}

/// A compaction, as its session's history keeps it: a message holding one
/// [`Content::Compaction`] block, appended where the compaction happened.
/// Positions count the session's messages from 0, markers left out.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Marker {
    /// What the messages before `first_kept` said (earlier summaries
    /// included); absent when this compaction only pruned, and the summary
    /// before it, if any, still stands.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
    /// The position of the oldest message still sent: those before it are
    /// sent as the summary.
    pub first_kept: u64,
    /// Tool results of messages before this position are sent as a stub.
    pub pruned_before: u64,
    /// The prompt's estimated size before the compaction, in tokens.
    pub tokens_before: u64,
    /// And after it.
    pub tokens_after: u64,
    /// How many tool results this compaction replaced by a stub.
    pub pruned_results: u32,
    /// How many messages this compaction summarized.
    pub summarized_messages: u32,
}

impl Marker {
    /// The history message that holds the marker.
    pub fn message(self) -> Message {
        Message { role: Role::User, content: vec![Content::Compaction(Box::new(self))] }
    }
}

/// How deep sub-agents nest when the root's agent does not say.
pub const DEFAULT_MAX_DEPTH: u32 = 3;

/// A sub-agent an agent may call: `{"agent_id", "name"?, "description"?}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Subagent {
    /// The agent whose runs answer the calls.
    pub agent_id: String,
    /// The tool is `agent__<name>`: `[A-Za-z0-9_-]`, without `__`, at most
    /// 57 characters. Defaults to the agent's own name when that is one.
    #[serde(default)]
    pub name: String,
    /// What the model is told the sub-agent does.
    #[serde(default)]
    pub description: String,
}

/// Where a child run came from: its parent's call, and how deep it nests.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct ParentCall {
    /// The run whose call started this one.
    pub run_id: String,
    /// The call this run answers.
    pub call_id: String,
    /// The parent's step that made the call.
    pub step: u32,
    /// The tool the parent called (`agent__<name>`).
    pub tool: String,
    /// 1 for a child of a run submitted by a client, 2 for its child, …
    pub depth: u32,
    /// The deepest nesting the tree allows (its root agent's `max_depth`).
    pub max_depth: u32,
}

/// Where an end is announced: `"webhook": {"url"}` on a submission, or an
/// agent's default for the runs of its messages.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Webhook {
    /// An `http` or `https` URL that takes a POST; at most 2,048 bytes. Its
    /// host must be public unless the operator allows it
    /// (`--allow-webhook-host`).
    #[schema(max_length = 2048, example = "https://example.com/hooks/wingman")]
    pub url: String,
}

/// Where a node's run belongs: written into its input, read when it ends.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct NodeRef {
    pub formation_run_id: String,
    pub node: String,
}
