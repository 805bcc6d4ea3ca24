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
