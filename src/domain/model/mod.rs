//! Domain types shared by the store, the API, the worker and the agent loop.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

mod limits;
mod settings;
mod standing;
mod tools;

pub use limits::ProviderLimits;
pub use settings::*;
pub use standing::RunStanding;
pub use tools::*;

/// The default cap on inference steps for an agent that does not set one.
pub const DEFAULT_MAX_STEPS: u32 = 50;
/// The largest `max_steps` an agent may ask for: a loop is never unbounded.
pub const MAX_MAX_STEPS: u32 = 1000;
/// How many bytes of thinking a step may stream before any text or tool
/// call, unless the agent says otherwise: past it the step is a reasoning stall.
pub const DEFAULT_REASONING_BYTE_LIMIT: u64 = 256 * 1024;
/// The range an agent's `reasoning_byte_limit` must fall in.
pub const REASONING_BYTE_LIMITS: std::ops::RangeInclusive<u64> = 1024..=64 * 1024 * 1024;

/// Timestamps in answers: RFC 3339 in UTC, always with three fractional digits.
///
/// chrono's default drops the fraction when it is zero, which makes equal-width
/// timestamps compare wrongly as strings ("…:37Z" sorts after "…:37.069Z").
pub mod timestamp {
    use chrono::{DateTime, SecondsFormat, Utc};
    use serde::{Deserialize, Deserializer, Serializer};

    /// Formats `t` the one way Wingman writes timestamps.
    pub fn format(t: &DateTime<Utc>) -> String {
        t.to_rfc3339_opts(SecondsFormat::Millis, true)
    }

    /// Serializes a timestamp with [`format`].
    pub fn serialize<S: Serializer>(t: &DateTime<Utc>, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&format(t))
    }

    /// Reads any RFC 3339 timestamp.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<DateTime<Utc>, D::Error> {
        DateTime::<Utc>::deserialize(d)
    }

    /// The same for optional timestamps.
    pub mod option {
        use chrono::{DateTime, Utc};
        use serde::{Deserialize, Deserializer, Serializer};

        /// Serializes a present timestamp with [`super::format`], an absent one as null.
        pub fn serialize<S: Serializer>(t: &Option<DateTime<Utc>>, s: S) -> Result<S::Ok, S::Error> {
            match t {
                Some(t) => s.serialize_str(&super::format(t)),
                None => s.serialize_none(),
            }
        }

        /// Reads an optional RFC 3339 timestamp.
        pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<DateTime<Utc>>, D::Error> {
            Option::<DateTime<Utc>>::deserialize(d)
        }
    }
}

/// Text as every store keeps it: NUL, which PostgreSQL refuses in text,
/// becomes U+FFFD, on every backend alike. (Inside JSON a NUL is kept, as
/// the escape `\u0000`.)
pub fn storable_text(text: String) -> String {
    if text.contains('\0') {
        text.replace('\0', "\u{fffd}")
    } else {
        text
    }
}

/// The version of a definition when it is made ([`Agent::version`]).
pub fn first_version() -> u64 {
    1
}

/// Returns a fresh ULID as a string; every Wingman ID is one.
///
/// IDs made by one process increase strictly, even within a millisecond:
/// lists are paged by ID, and rows made one after another must page in the
/// order they were made.
pub fn new_id() -> String {
    static IDS: std::sync::Mutex<ulid::Generator> = std::sync::Mutex::new(ulid::Generator::new());
    let mut ids = IDS.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    // The random part overflows only after 2^80 IDs in one millisecond.
    ids.generate().unwrap_or_else(|_| ulid::Ulid::new()).to_string()
}

/// The owner of the `--auth-token`, of a server's local user when no key
/// exists, and of everything made before owners existed: the first admin.
pub const FIRST_ADMIN: &str = "admin";

/// [`FIRST_ADMIN`], owned: what a stored object that names no owner stands for.
pub fn first_admin() -> String {
    FIRST_ADMIN.to_string()
}

/// Whether `owner` is the first admin's (what a stored input without an
/// owner stands for, so it need not be written).
pub fn is_first_admin(owner: &str) -> bool {
    owner == FIRST_ADMIN
}

/// Something that belongs to an owner: a caller sees it only as
/// `domain::access::Caller::sees` says, and another owner's is answered as
/// if it did not exist.
pub trait Owned {
    /// Whose it is.
    fn owner(&self) -> &str;
    /// Whether every owner may read and use it (agents, fleets, formations).
    fn shared(&self) -> bool {
        false
    }
}

impl Owned for Agent {
    fn owner(&self) -> &str {
        &self.owner
    }
    fn shared(&self) -> bool {
        self.shared
    }
}

impl Owned for Fleet {
    fn owner(&self) -> &str {
        &self.owner
    }
    fn shared(&self) -> bool {
        self.shared
    }
}

impl Owned for Session {
    fn owner(&self) -> &str {
        &self.owner
    }
}

impl Owned for Run {
    fn owner(&self) -> &str {
        &self.owner
    }
}

impl Owned for FleetRun {
    fn owner(&self) -> &str {
        &self.owner
    }
}

/// An agent: a provider, a model, instructions and tools.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
pub struct Agent {
    pub id: String,
    pub name: String,
    pub provider: String,
    pub model: String,
    /// Forwarded to the provider (docs/providers.md lists each provider's keys).
    #[serde(default)]
    #[schema(value_type = Object)]
    pub options: Map<String, Value>,
    #[serde(default)]
    pub instructions: Option<String>,
    #[serde(default)]
    pub tools: Vec<String>,
    #[serde(default)]
    pub output_schema: Option<Value>,
    pub max_steps: u32,
    /// What stops a run that would not stop by itself: output and time per
    /// step, spending, repeated calls (see [`crate::domain::guard`]). Its fields
    /// sit beside `max_steps` in the JSON.
    #[serde(flatten)]
    pub guards: Guards,
    /// Tools whose calls wait for a person's decision before they run
    /// (`["*"]` for every tool).
    #[serde(default)]
    pub approve_tools: Vec<String>,
    /// Tools the worker calls over HTTP (see [`crate::domain::toolset::HttpTool`]).
    #[serde(default)]
    pub http_tools: Vec<HttpTool>,
    /// Tools the client runs while the run waits (see [`crate::domain::toolset::ClientTool`]).
    #[serde(default)]
    pub client_tools: Vec<ClientTool>,
    /// MCP servers whose tools its runs are offered (see [`crate::domain::toolset::McpServer`]).
    #[serde(default)]
    pub mcp_servers: Vec<McpServer>,
    /// How hard the model thinks before it answers (a message may override it).
    #[serde(default)]
    pub reasoning: Reasoning,
    /// Bytes of thinking a step may stream before its first text or tool
    /// call; past them the step is cut as a transient failure.
    #[serde(default = "default_reasoning_byte_limit")]
    pub reasoning_byte_limit: u64,
    /// How its runs keep their prompt inside the model's context window.
    #[serde(default)]
    pub compaction: CompactionSettings,
    /// Agents its model may hand tasks to, as the tools `agent__<name>`
    /// (see [`crate::domain::subagent`]).
    #[serde(default)]
    pub subagents: Vec<Subagent>,
    /// How deep sub-agents may nest below a run of this agent (default 3):
    /// a call that would start a child deeper is refused.
    #[serde(default = "default_max_depth")]
    pub max_depth: u32,
    /// Where the ends of its messages' runs are announced, unless a message
    /// names its own ([`crate::domain::webhook`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub webhook: Option<Webhook>,
    /// The concurrency key and limit of its runs when their submission
    /// names none; the key may hold `{agent}`, `{session}` and `{owner}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub concurrency: Option<Concurrency>,
    /// The provider limits its runs share across every worker, as a budget
    /// of their own (beside their credential's, when that declares some).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limits: Option<ProviderLimits>,
    /// The owner whose key made it; set by the server, never by a client.
    #[serde(default = "crate::domain::model::first_admin")]
    pub owner: String,
    /// Every owner may read and use it; only its owner or an admin may change it.
    #[serde(default)]
    pub shared: bool,
    /// 1 when made, one more with each change: what `If-Match` names to
    /// make a change only over the version read.
    #[serde(default = "crate::domain::model::first_version")]
    pub version: u64,
    #[serde(with = "timestamp")]
    pub created_at: DateTime<Utc>,
    #[serde(with = "timestamp")]
    pub updated_at: DateTime<Utc>,
}

fn default_max_depth() -> u32 {
    DEFAULT_MAX_DEPTH
}

fn default_reasoning_byte_limit() -> u64 {
    DEFAULT_REASONING_BYTE_LIMIT
}

/// How much the model reasons before it answers; docs/providers.md gives
/// what each provider is sent for each level.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq, Eq, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Reasoning {
    /// Nothing is asked of the provider: its own default applies.
    #[default]
    Off,
    Low,
    Medium,
    High,
    /// As much as the provider offers.
    Max,
}

impl Reasoning {
    /// Every level, in order, as clients name them.
    pub const NAMES: &'static [&'static str] = &["off", "low", "medium", "high", "max"];

    /// Reads a level as a client names it.
    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "off" => Reasoning::Off,
            "low" => Reasoning::Low,
            "medium" => Reasoning::Medium,
            "high" => Reasoning::High,
            "max" => Reasoning::Max,
            _ => return None,
        })
    }

    /// Reads a client's level, or says which ones there are.
    pub fn parse_field(field: &str, s: &str) -> Result<Self, String> {
        Reasoning::parse(s).ok_or_else(|| format!("{field} must be one of {} (not {s:?})", Reasoning::NAMES.join(", ")))
    }
}

/// A session: a conversation with its own working directory.
#[derive(Debug, Clone, Serialize, PartialEq, utoipa::ToSchema)]
pub struct Session {
    pub id: String,
    pub agent_id: Option<String>,
    pub title: Option<String>,
    pub work_dir: String,
    #[schema(value_type = Object)]
    pub metadata: Value,
    /// What the session adds to its agent's tools, for its runs only
    /// (`tools`, `http_tools`, `client_tools`).
    #[serde(flatten)]
    pub added_tools: ToolAdditions,
    /// The owner whose key made it (a fleet task's: its fleet run's); its runs are its owner's.
    pub owner: String,
    /// The session and run it was forked from (`POST /sessions/{id}/fork`); `null` otherwise.
    #[serde(default)]
    pub forked_from: Option<ForkedFrom>,
    #[serde(with = "timestamp")]
    pub created_at: DateTime<Utc>,
    #[serde(with = "timestamp")]
    pub updated_at: DateTime<Utc>,
}

/// Where a forked session's history came from: the original session's
/// history up to the end of `run_id`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, utoipa::ToSchema)]
pub struct ForkedFrom {
    pub session_id: String,
    /// The run the history was copied up to the end of (`null`: the
    /// original's history was empty).
    pub run_id: Option<String>,
}

/// A fleet: one agent fanned out over many tasks. The definition only; each
/// `POST /fleets/{id}/run` makes a fleet run whose tasks are runs.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
pub struct Fleet {
    pub id: String,
    pub name: String,
    pub agent_id: String,
    /// How many of a fleet run's tasks may run at once; 0 is no limit.
    pub worker_count: u32,
    /// The default `work_dir` of its tasks; `None` gives each task a directory of its own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub work_dir: Option<String>,
    /// `running` while one of its fleet runs has not ended, else `stopped`:
    /// derived when the fleet is read, never stored.
    #[serde(default)]
    pub status: FleetStatus,
    /// The owner whose key made it; set by the server, never by a client.
    #[serde(default = "crate::domain::model::first_admin")]
    pub owner: String,
    /// Every owner may read and use it; only its owner or an admin may change it.
    #[serde(default)]
    pub shared: bool,
    /// 1 when made, one more with each change: what `If-Match` names to
    /// make a change only over the version read.
    #[serde(default = "crate::domain::model::first_version")]
    pub version: u64,
    #[serde(with = "timestamp")]
    pub created_at: DateTime<Utc>,
    #[serde(with = "timestamp")]
    pub updated_at: DateTime<Utc>,
}

/// Whether a fleet has a fleet run that has not ended, as the original API named it.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq, Eq, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum FleetStatus {
    #[default]
    Stopped,
    Running,
}

/// The life-cycle state of a fleet run.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, Hash, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum FleetRunStatus {
    /// No task has started yet.
    Queued,
    /// Some task has started and some task has not ended.
    Running,
    /// Every task succeeded.
    Succeeded,
    /// Every task ended and at least one failed (the others' results are kept).
    Failed,
    /// The fleet run was cancelled, or tasks were cancelled and none failed.
    Cancelled,
}

impl FleetRunStatus {
    /// The status as stored and shown.
    pub fn as_str(self) -> &'static str {
        match self {
            FleetRunStatus::Queued => "queued",
            FleetRunStatus::Running => "running",
            FleetRunStatus::Succeeded => "succeeded",
            FleetRunStatus::Failed => "failed",
            FleetRunStatus::Cancelled => "cancelled",
        }
    }

    /// Parses a stored status.
    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "queued" => FleetRunStatus::Queued,
            "running" => FleetRunStatus::Running,
            "succeeded" => FleetRunStatus::Succeeded,
            "failed" => FleetRunStatus::Failed,
            "cancelled" => FleetRunStatus::Cancelled,
            _ => return None,
        })
    }

    /// True once every task has ended.
    pub fn is_terminal(self) -> bool {
        matches!(self, FleetRunStatus::Succeeded | FleetRunStatus::Failed | FleetRunStatus::Cancelled)
    }
}

/// How far a fleet run has got: counts kept as its tasks end, so reading
/// them reads one row, whatever the number of tasks.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq, Eq, utoipa::ToSchema)]
pub struct FleetProgress {
    pub total: u64,
    pub queued: u64,
    pub running: u64,
    pub succeeded: u64,
    pub failed: u64,
    pub cancelled: u64,
}

impl FleetProgress {
    /// Tasks that have ended, whichever way.
    pub fn finished(&self) -> u64 {
        self.succeeded + self.failed + self.cancelled
    }
}

/// A fleet run: one submission of tasks to a fleet. Its tasks are runs of
/// kind `fleet_task`, each in a session of its own.
#[derive(Debug, Clone, Serialize, PartialEq, utoipa::ToSchema)]
pub struct FleetRun {
    pub id: String,
    pub fleet_id: String,
    pub agent_id: String,
    pub status: FleetRunStatus,
    /// The fleet's cap when the run was submitted: tasks running at once, 0 for no cap.
    pub worker_count: u32,
    pub progress: FleetProgress,
    /// True once `POST /fleet-runs/{id}/cancel` was accepted.
    pub cancel_requested: bool,
    /// The owner whose key submitted it, and of its tasks.
    pub owner: String,
    #[serde(with = "timestamp")]
    pub created_at: DateTime<Utc>,
    #[serde(with = "timestamp::option")]
    pub started_at: Option<DateTime<Utc>>,
    #[serde(with = "timestamp::option")]
    pub finished_at: Option<DateTime<Utc>>,
    #[serde(with = "timestamp")]
    pub updated_at: DateTime<Utc>,
}

/// The role of a message in a session's history.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    User,
    Assistant,
    /// Results of tool calls requested by the preceding assistant message.
    Tool,
}

/// One block of message content.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Content {
    Text {
        text: String,
    },
    ToolUse {
        id: String,
        name: String,
        input: Value,
    },
    ToolResult {
        tool_use_id: String,
        content: String,
        is_error: bool,
    },
    /// The model's thinking before its answer. `signature` is the
    /// provider's proof of it (Anthropic's), sent back unchanged.
    Thinking {
        thinking: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        signature: Option<String>,
    },
    /// Thinking the provider keeps encrypted: `data` goes back unchanged.
    RedactedThinking {
        data: String,
    },
    /// A compaction marker in a session's history (see [`crate::domain::compaction`]):
    /// never sent to a provider as it is.
    Compaction(Box<Marker>),
}

/// A message of a conversation, in the provider-neutral form Wingman stores.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Message {
    pub role: Role,
    pub content: Vec<Content>,
}

impl Message {
    /// A user message holding one text block.
    pub fn user_text(text: impl Into<String>) -> Self {
        Message { role: Role::User, content: vec![Content::Text { text: text.into() }] }
    }

    /// The concatenated text blocks of the message.
    pub fn text(&self) -> String {
        self.content
            .iter()
            .filter_map(|c| match c {
                Content::Text { text } => Some(text.as_str()),
                _ => None,
            })
            .collect()
    }
}

/// Token counts and cost of one inference or of a whole run.
///
/// `input_tokens` counts the input tokens that were neither read from nor
/// written to a prompt cache; the cache counts are separate, so a price per
/// kind of token applies to each count as it is. Fields that are zero or
/// unknown are left out of the JSON, and read back as zero or unknown.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
pub struct Usage {
    pub input_tokens: u64,
    pub output_tokens: u64,
    /// Input tokens read from the provider's prompt cache.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub cache_read_input_tokens: u64,
    /// Input tokens written to the provider's prompt cache.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub cache_creation_input_tokens: u64,
    /// The cost in US dollars; absent when the model has no known price.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<f64>,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl Usage {
    /// Adds another usage's token counts to this one. The cost stays known
    /// only while both are known: a sum with an unknown part is unknown.
    pub fn add(&mut self, other: Usage) {
        self.input_tokens += other.input_tokens;
        self.output_tokens += other.output_tokens;
        self.cache_read_input_tokens += other.cache_read_input_tokens;
        self.cache_creation_input_tokens += other.cache_creation_input_tokens;
        self.cost_usd = match (self.cost_usd, other.cost_usd) {
            (Some(a), Some(b)) => Some(a + b),
            _ => None,
        };
    }

    /// The total of several usages, e.g. the steps of a run. Its cost is
    /// known when every part's cost is known (and there is at least one part).
    pub fn sum<'a>(parts: impl IntoIterator<Item = &'a Usage>) -> Usage {
        let mut parts = parts.into_iter();
        let Some(first) = parts.next() else { return Usage::default() };
        let mut total = *first;
        for part in parts {
            total.add(*part);
        }
        total
    }
}

/// A tool call requested by the model.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ToolCall {
    pub id: String,
    pub name: String,
    pub input: Value,
}

/// What a new message does to its session's unfinished runs (the names
/// follow LangGraph Server's `multitask_strategy`).
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq, Eq, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum MultitaskStrategy {
    /// Queue behind them.
    #[default]
    Enqueue,
    /// Refuse the message if the session has one (nothing is written).
    Reject,
    /// Stop them at their next step boundary as `interrupted`, keeping what
    /// they finished in the history; then run.
    Interrupt,
    /// Cancel them at once and leave nothing of them in the history; then run.
    Rollback,
}

/// The life-cycle state of a run.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, Hash, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum RunStatus {
    Queued,
    Running,
    Waiting,
    Succeeded,
    Failed,
    Cancelled,
    Interrupted,
}

impl RunStatus {
    /// The status as stored and shown.
    pub fn as_str(self) -> &'static str {
        match self {
            RunStatus::Queued => "queued",
            RunStatus::Running => "running",
            RunStatus::Waiting => "waiting",
            RunStatus::Succeeded => "succeeded",
            RunStatus::Failed => "failed",
            RunStatus::Cancelled => "cancelled",
            RunStatus::Interrupted => "interrupted",
        }
    }

    /// Parses a stored or requested status.
    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "queued" => RunStatus::Queued,
            "running" => RunStatus::Running,
            "waiting" => RunStatus::Waiting,
            "succeeded" => RunStatus::Succeeded,
            "failed" => RunStatus::Failed,
            "cancelled" => RunStatus::Cancelled,
            "interrupted" => RunStatus::Interrupted,
            _ => return None,
        })
    }

    /// True once the run can no longer change.
    pub fn is_terminal(self) -> bool {
        matches!(self, RunStatus::Succeeded | RunStatus::Failed | RunStatus::Cancelled | RunStatus::Interrupted)
    }
}

/// What a run does: answer a session message, or one task of a fleet run.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum RunKind {
    Message,
    FleetTask,
    /// A compaction of its session's history, asked for with `POST /sessions/{id}/compact`.
    Compaction,
    /// A sub-agent's run, started by its parent's call (`input.parent`).
    Subagent,
    /// An agent node of a formation run (`input.node`).
    FormationNode,
}

impl RunKind {
    /// The kind as stored and shown.
    pub fn as_str(self) -> &'static str {
        match self {
            RunKind::Message => "message",
            RunKind::FleetTask => "fleet_task",
            RunKind::Compaction => "compaction",
            RunKind::Subagent => "subagent",
            RunKind::FormationNode => "formation_node",
        }
    }

    /// Reads a stored kind; `None` for one this version does not know.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "message" => Some(RunKind::Message),
            "fleet_task" => Some(RunKind::FleetTask),
            "compaction" => Some(RunKind::Compaction),
            "subagent" => Some(RunKind::Subagent),
            "formation_node" => Some(RunKind::FormationNode),
            _ => None,
        }
    }
}

/// A tool call of a run as `GET /runs/{id}` lists it (`tool_calls`): what the
/// model asked for and, once it ran, its result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct ToolCallRecord {
    /// The inference step that asked for it.
    pub step: u32,
    pub call_id: String,
    /// The tool's name.
    pub name: String,
    #[schema(value_type = Object)]
    pub input: Value,
    /// The tool's output; `null` while the call has no result.
    #[schema(required = true)]
    pub output: Option<String>,
    /// `null` while the call has no result.
    #[schema(required = true)]
    pub is_error: Option<bool>,
}

/// What every run carries, whoever made it: set once where the work came
/// in (the one door, `crate::submit`), and passed unchanged from a run to
/// every run it makes (fleet tasks, formation nodes, sub-agents' runs).
/// A run is made with one ([`RunInput::new`]): there is no run without it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
pub struct Carried {
    /// Whose runs they are: the submitter's (a message's: its session's
    /// owner's). Set by the server, never by a client; not written for the
    /// first admin, which an input that names none stands for.
    #[serde(
        default = "crate::domain::model::first_admin",
        skip_serializing_if = "crate::domain::model::is_first_admin"
    )]
    pub owner: String,
    /// The W3C `traceparent` its spans are made under, the same for every
    /// attempt (`crate::otel`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub traceparent: Option<String>,
    /// From -10 to 10, higher first (0 when not given): claims take the
    /// highest first, then the oldest, among runs at the head of their
    /// session, so it orders sessions, never one session's messages.
    #[serde(default, skip_serializing_if = "is_default_priority")]
    #[schema(minimum = -10, maximum = 10)]
    pub priority: i8,
    /// At most `limit` runs with its `key` run at once, across every worker
    /// and host; the rest stay queued, holding no worker.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub concurrency: Option<Concurrency>,
}

impl Default for Carried {
    /// What a run made before owners existed carries: the first admin's, no
    /// trace, the default priority, no key.
    fn default() -> Carried {
        Carried { owner: crate::domain::model::first_admin(), traceparent: None, priority: 0, concurrency: None }
    }
}

/// A concurrency key and its limit: at most `limit` runs with `key` are
/// running at once, across every worker and host. A run waiting for a
/// person or a client is not running, so it gives its slot back.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Concurrency {
    /// 1 to 200 characters; runs that share it share its limit.
    #[schema(min_length = 1, max_length = 200)]
    pub key: String,
    /// From 1 to 10,000.
    #[schema(minimum = 1, maximum = 10000)]
    pub limit: u32,
}

impl Concurrency {
    /// The longest key.
    pub const MAX_KEY_CHARS: usize = 200;
    /// The highest limit.
    pub const MAX_LIMIT: u32 = 10_000;

    /// Checks a key and limit a client gave.
    pub fn check(&self) -> Result<(), String> {
        let chars = self.key.chars().count();
        if self.key.trim().is_empty() || chars > Self::MAX_KEY_CHARS || self.key.contains('\0') {
            return Err(format!("concurrency.key must be 1 to {} characters, not blank", Self::MAX_KEY_CHARS));
        }
        if !(1..=Self::MAX_LIMIT).contains(&self.limit) {
            return Err(format!("concurrency.limit must be from 1 to {}, not {}", Self::MAX_LIMIT, self.limit));
        }
        Ok(())
    }

    /// An agent's default for one run: `{agent}`, `{session}` and `{owner}`
    /// in its key replaced by the run's agent, session (`none` without one)
    /// and owner.
    pub fn for_run(&self, agent_id: &str, session_id: Option<&str>, owner: &str) -> Concurrency {
        let key = self.key.replace("{agent}", agent_id).replace("{session}", session_id.unwrap_or("none"));
        Concurrency { key: key.replace("{owner}", owner), limit: self.limit }
    }
}

impl Carried {
    /// What a run of `agent` (in `session_id`) carries: these, with the
    /// agent's default concurrency key when they name none.
    pub fn for_run(&self, agent: &Agent, session_id: Option<&str>) -> Carried {
        let mut carried = self.clone();
        if carried.concurrency.is_none() {
            carried.concurrency = agent.concurrency.as_ref().map(|c| c.for_run(&agent.id, session_id, &self.owner));
        }
        carried
    }
}

/// Whether a priority is the one of a submission that gives none (0).
pub fn is_default_priority(priority: &i8) -> bool {
    *priority == 0
}

impl Carried {
    /// What a run made by a run carrying `self` carries: the same.
    pub fn inherited(&self) -> Carried {
        self.clone()
    }
}

/// Where a retry comes from: the run it retries, whose checkpoints of the
/// steps before `from_step` it reuses.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, utoipa::ToSchema)]
pub struct RetryOf {
    pub run_id: String,
    pub from_step: u32,
}

/// What the submitter asked the run to do.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
pub struct RunInput {
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
    /// A budget in US dollars lower than the agent's `max_cost_usd`, for this run only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_cost_usd: Option<f64>,
    /// The message's reasoning level, over its agent's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<Reasoning>,
    /// A token budget lower than the agent's `max_total_tokens`, for this
    /// run only (a sub-agent's share of its parent's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_total_tokens: Option<u64>,
    /// For a sub-agent's run: the call it answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<ParentCall>,
    /// For an agent node's run: the formation run and node it belongs to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node: Option<NodeRef>,
    /// The URL the run's end is announced to (`crate::domain::webhook`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub webhook: Option<String>,
    /// For a retry (`POST /runs/{id}/retry`): the run it retries, and its
    /// first step not taken from that run's checkpoints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry_of: Option<RetryOf>,
    /// What every run carries (stored beside the fields above).
    #[serde(flatten)]
    pub carried: Carried,
}

impl RunInput {
    /// The input of a run asked to answer `message`, carrying `carried`;
    /// the rest is set by whoever makes the run.
    pub fn new(message: impl Into<String>, carried: Carried) -> RunInput {
        RunInput {
            message: message.into(),
            instructions: None,
            data: None,
            max_cost_usd: None,
            reasoning: None,
            max_total_tokens: None,
            parent: None,
            node: None,
            webhook: None,
            retry_of: None,
            carried,
        }
    }

    /// The trace ID of its `traceparent` (`00-<trace id>-<parent id>-<flags>`).
    pub fn trace_id(&self) -> Option<String> {
        let id = self.carried.traceparent.as_deref()?.split('-').nth(1)?;
        (id.len() == 32).then(|| id.to_string())
    }
}

/// A run as stored: the job row.
#[derive(Debug, Clone, Serialize, PartialEq, utoipa::ToSchema)]
pub struct Run {
    pub id: String,
    pub kind: RunKind,
    pub status: RunStatus,
    pub attempt: u32,
    pub session_id: Option<String>,
    pub agent_id: String,
    pub fleet_run_id: Option<String>,
    pub task_index: Option<u32>,
    /// A sub-agent's run (kind `subagent`): the run whose call started it.
    pub parent_run_id: Option<String>,
    /// A sub-agent's run: the parent's call it answers.
    pub parent_call_id: Option<String>,
    /// An agent node's run: its formation run (`input.node` names the node).
    pub formation_run_id: Option<String>,
    pub input: RunInput,
    /// The trace its spans are in (`input.traceparent`'s trace ID).
    pub trace_id: Option<String>,
    pub response: Option<String>,
    pub usage: Usage,
    pub steps: u32,
    /// Every tool call of the run, in order, with its result.
    pub tool_calls: Vec<ToolCallRecord>,
    /// The owner of what made it: a message's session, a fleet run, a
    /// formation run, a parent run or a schedule.
    pub owner: String,
    pub error: Option<String>,
    /// Its sub-agents' runs that have not ended (while it waits for them).
    #[serde(skip)]
    pub children_open: u32,
    #[serde(with = "timestamp")]
    pub created_at: DateTime<Utc>,
    #[serde(with = "timestamp::option")]
    pub started_at: Option<DateTime<Utc>>,
    #[serde(with = "timestamp::option")]
    pub finished_at: Option<DateTime<Utc>>,
    #[serde(with = "timestamp")]
    pub updated_at: DateTime<Utc>,
}

/// A stored event of a log: a run's, or a fleet run's (whose events share
/// the store, the hub and the SSE framing with runs' events).
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    /// The ID of the log: a run's ID, or a fleet run's.
    pub run_id: String,
    pub seq: u64,
    pub kind: String,
    pub data: Map<String, Value>,
    pub at: DateTime<Utc>,
}

impl Event {
    /// The JSON clients see: the data plus `run_id`, `seq`, `type` and `at`.
    pub fn to_json(&self) -> Value {
        self.to_json_as("run_id")
    }

    /// The JSON of an event whose log ID is named `id_key`: `fleet_run_id`
    /// for a fleet run's events, whose `result`s carry their task's `run_id`.
    pub fn to_json_as(&self, id_key: &str) -> Value {
        let mut obj = self.data.clone();
        obj.insert(id_key.into(), Value::String(self.run_id.clone()));
        obj.insert("seq".into(), Value::from(self.seq));
        obj.insert("type".into(), Value::String(self.kind.clone()));
        obj.insert("at".into(), Value::String(timestamp::format(&self.at)));
        Value::Object(obj)
    }

    /// The same JSON as [`Event::to_json_as`], written without copying the
    /// event's data first (an answer of megabytes is copied once less).
    pub fn json_as<'a>(&'a self, id_key: &'a str) -> EventJson<'a> {
        EventJson { event: self, id_key }
    }

    /// True for the run's single terminal event.
    pub fn is_terminal(&self) -> bool {
        self.kind == "done"
    }
}

/// An event's JSON as clients see it ([`Event::json_as`]): its data's
/// fields and the log's ID, `seq`, `type` and `at`, in key order as
/// [`Event::to_json_as`] writes them (the four win over data fields of the
/// same name).
pub struct EventJson<'a> {
    event: &'a Event,
    id_key: &'a str,
}

impl Serialize for EventJson<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let event = self.event;
        let at = timestamp::format(&event.at);
        let mut own: [(&str, EventField); 4] = [
            (self.id_key, EventField::Text(&event.run_id)),
            ("seq", EventField::Number(event.seq)),
            ("type", EventField::Text(&event.kind)),
            ("at", EventField::Text(&at)),
        ];
        own.sort_by(|a, b| a.0.cmp(b.0));
        let mut map = serializer.serialize_map(Some(event.data.len() + own.len()))?;
        let mut own = own.iter().peekable();
        for (key, value) in &event.data {
            while let Some((name, field)) = own.next_if(|(name, _)| *name <= key.as_str()) {
                map.serialize_entry(name, field)?;
            }
            if !self.is_own(key) {
                map.serialize_entry(key, value)?;
            }
        }
        for (name, field) in own {
            map.serialize_entry(name, field)?;
        }
        map.end()
    }
}

impl EventJson<'_> {
    fn is_own(&self, key: &str) -> bool {
        key == self.id_key || key == "seq" || key == "type" || key == "at"
    }
}

/// One of the fields [`EventJson`] adds to an event's data.
enum EventField<'a> {
    Text(&'a str),
    Number(u64),
}

impl Serialize for EventField<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            EventField::Text(text) => serializer.serialize_str(text),
            EventField::Number(number) => serializer.serialize_u64(*number),
        }
    }
}

/// A tool the model may call, as described to the provider.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ToolSpec {
    pub name: String,
    /// What the tool does; left out of the request when empty.
    pub description: String,
    /// A JSON schema of the tool's input object.
    pub input_schema: Value,
}

/// What a worker saw when it listed an MCP server's tools: the tools as the
/// model is offered them, or why it could not list them. Stored by
/// definition, so that any server, an API-only one included, can say what
/// an agent's runs are offered.
#[derive(Debug, Clone, PartialEq)]
pub struct McpListing {
    /// The definition's key ([`crate::domain::toolset::definition_key`]).
    pub definition: String,
    /// The server's name in it.
    pub server: String,
    pub tools: Vec<ToolSpec>,
    /// Why it could not be listed, when it could not.
    pub error: Option<String>,
    pub listed_at: DateTime<Utc>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    #[test]
    fn an_events_json_view_writes_what_its_value_does() {
        let data =
            serde_json::json!({"text": "hi", "step": 2, "zeta": [1], "type": "shadowed", "aa": null, "run_id": "x"});
        let event = Event {
            run_id: "01RUN".into(),
            seq: 7,
            kind: "text_delta".into(),
            data: data.as_object().cloned().unwrap(),
            at: Utc.with_ymd_and_hms(2026, 11, 26, 12, 0, 0).unwrap(),
        };
        for id_key in ["run_id", "fleet_run_id", "formation_run_id"] {
            let view = serde_json::to_string(&event.json_as(id_key)).unwrap();
            assert_eq!(view, event.to_json_as(id_key).to_string(), "{id_key}");
        }
        let plain = Event { data: Map::new(), ..event };
        assert_eq!(serde_json::to_string(&plain.json_as("run_id")).unwrap(), plain.to_json().to_string());
    }

    #[test]
    fn an_agents_default_key_names_the_runs_agent_session_and_owner() {
        let key = Concurrency { key: "{owner}/{agent}/{session}".into(), limit: 2 };
        assert_eq!(key.for_run("A", None, "alpha").key, "alpha/A/none");
        let carried = Carried { owner: "beta".into(), ..Carried::default() };
        let agent = Agent {
            concurrency: Some(key),
            ..serde_json::from_value::<Agent>(serde_json::json!({"id": "A",
            "name": "n", "provider": "scripted", "model": "echo", "max_steps": 5, "created_at": "2026-01-01T00:00:00Z",
            "updated_at": "2026-01-01T00:00:00Z"}))
            .unwrap()
        };
        assert_eq!(carried.for_run(&agent, Some("S")).concurrency.unwrap().key, "beta/A/S");
        assert_eq!(agent.owner, FIRST_ADMIN, "a stored agent that names no owner is the first admin's");
    }

    #[test]
    fn agents_and_inputs_stored_before_reasoning_still_load() {
        let agent: Agent = serde_json::from_value(serde_json::json!({"id": "a", "name": "n", "provider": "scripted",
            "model": "echo", "max_steps": 5, "created_at": "2026-01-01T00:00:00Z", "updated_at": "2026-01-01T00:00:00Z"}))
        .unwrap();
        assert_eq!((agent.reasoning, agent.reasoning_byte_limit), (Reasoning::Off, DEFAULT_REASONING_BYTE_LIMIT));
        let input: RunInput = serde_json::from_value(serde_json::json!({"message": "m"})).unwrap();
        assert_eq!(input.reasoning, None);
        assert_eq!(serde_json::to_value(&input).unwrap(), serde_json::json!({"message": "m"}));
        let high = RunInput { reasoning: Some(Reasoning::High), ..input };
        assert_eq!(serde_json::to_value(&high).unwrap()["reasoning"], "high");
        let levels: Vec<Option<Reasoning>> = Reasoning::NAMES.iter().map(|n| Reasoning::parse(n)).collect();
        assert!(levels.iter().all(Option::is_some) && Reasoning::parse("HIGH").is_none());
    }

    #[test]
    fn timestamps_always_carry_milliseconds_so_they_sort_as_strings() {
        let whole = Utc.timestamp_millis_opt(1_795_000_000_000).unwrap();
        let later = Utc.timestamp_millis_opt(1_795_000_000_069).unwrap();
        let (a, b) = (timestamp::format(&whole), timestamp::format(&later));
        assert!(a.ends_with(":40.000Z"), "{a}");
        assert!(a < b, "{a} sorts before {b}");
        let session = Session {
            id: "s".into(),
            owner: crate::domain::model::first_admin(),
            agent_id: None,
            title: None,
            work_dir: "/tmp".into(),
            metadata: Value::Null,
            added_tools: Default::default(),
            forked_from: None,
            created_at: whole,
            updated_at: later,
        };
        let json = serde_json::to_value(&session).unwrap();
        assert_eq!(json["created_at"], a.as_str());
        assert_eq!(json["updated_at"], b.as_str());
    }
}
