//! The queue seen whole (`GET /queue`): what waits and why, by priority
//! and by concurrency key, and what a claim would take next. The store
//! reads it; the API shows it as it is.

/// The queue as `GET /queue` shows it: what waits and why, by priority and
/// by concurrency key, and what a claim would take next.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, utoipa::ToSchema)]
pub struct QueueView {
    /// Queued runs, by why they are not running yet.
    pub queued: QueuedWhy,
    /// Runs a worker holds now.
    pub running: u64,
    /// Runs that wait for a person, their client or their sub-agents (none
    /// holds a worker or a slot of its key).
    pub waiting: u64,
    /// Queued and running runs by priority, highest first.
    pub by_priority: Vec<PriorityCount>,
    /// Concurrency keys with queued or running runs, the most queued first
    /// (at most 100).
    pub keys: Vec<KeyCount>,
    /// The ready runs a claim would take next, in order.
    pub next: Vec<NextRun>,
    /// Provider budgets (a credential's, or an agent's `agent:<id>`):
    /// limits in force, a pause, and the inferences waiting for their share
    /// (a run that waits a second or more is handed back meanwhile and
    /// counted under `queued.rate_limited`; a shorter wait keeps its worker).
    pub budgets: Vec<BudgetView>,
}

/// A provider budget as the queue shows it.
#[derive(Debug, Clone, PartialEq, serde::Serialize, utoipa::ToSchema)]
pub struct BudgetView {
    /// A credential's name (`openai`, `openai:label`) or `agent:<id>`.
    pub name: String,
    /// What was declared for it, if anything.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub declared: Option<crate::domain::model::ProviderLimits>,
    /// Requests a minute learned from the provider's headers or found by its 429s.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub learned_requests_per_minute: Option<u64>,
    /// Tokens a minute learned from the provider's headers.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub learned_tokens_per_minute: Option<u64>,
    /// The limits in force: the tighter of declared and learned.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub requests_per_minute: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tokens_per_minute: Option<u64>,
    /// When a pause (a 429 or 529) ends, while it lasts.
    #[serde(skip_serializing_if = "Option::is_none", with = "crate::domain::model::timestamp::option")]
    #[schema(value_type = Option<String>, format = DateTime)]
    pub paused_until: Option<chrono::DateTime<chrono::Utc>>,
    /// Inferences waiting for their share now.
    pub waiting: u64,
    /// Calls in flight now.
    pub in_flight: u64,
}

/// Queued runs by why they are not running yet.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, utoipa::ToSchema)]
pub struct QueuedWhy {
    /// Ready: each waits for a worker with room.
    pub ready: u64,
    /// Behind an unfinished run of their session, which runs its messages one at a time.
    pub session_busy: u64,
    /// Fleet tasks behind their fleet's `worker_count`.
    pub fleet_at_cap: u64,
    /// Held: their concurrency key has as many runs running as its limit.
    pub key_at_limit: u64,
    /// Handed back until their next inference's share of a provider budget
    /// comes within reach (each holds no worker meanwhile; see `budgets`).
    pub rate_limited: u64,
}

/// The queued and running runs of one priority.
#[derive(Debug, Clone, PartialEq, serde::Serialize, utoipa::ToSchema)]
pub struct PriorityCount {
    pub priority: i64,
    pub queued: u64,
    pub running: u64,
}

/// The queued and running runs of one concurrency key.
#[derive(Debug, Clone, PartialEq, serde::Serialize, utoipa::ToSchema)]
pub struct KeyCount {
    pub key: String,
    /// The highest limit its runs carry.
    pub limit: u64,
    pub running: u64,
    pub queued: u64,
    /// Of the queued, those held for a free slot.
    pub held: u64,
}

impl BudgetView {
    /// Whether it says anything: limits declared or learned, a pause, or
    /// calls waiting or in flight (a credential whose limits were removed
    /// and that taught nothing is left out).
    pub fn worth_showing(&self) -> bool {
        self.declared.is_some()
            || self.requests_per_minute.is_some()
            || self.tokens_per_minute.is_some()
            || self.paused_until.is_some()
            || self.waiting + self.in_flight > 0
    }
}

/// A ready run, as a claim would take it.
#[derive(Debug, Clone, PartialEq, serde::Serialize, utoipa::ToSchema)]
pub struct NextRun {
    pub run_id: String,
    pub priority: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub concurrency_key: Option<String>,
    /// When it was queued.
    #[serde(with = "crate::domain::model::timestamp")]
    #[schema(value_type = String, format = DateTime)]
    pub queued_at: chrono::DateTime<chrono::Utc>,
}
