//! Storage: one trait in domain terms, one implementation per backend.
//!
//! Nothing outside `store` knows which database is behind a [`Store`].
//! **A backend persists decisions; it makes none**: what a command writes
//! (its events, a run's end, a session's turn, a fleet run's counts, a
//! refusal) is decided by the rules of [`crate::domain::lifecycle`], [`crate::domain::attempt`],
//! [`crate::domain::fleet`] and [`crate::domain::checkpoint`], which a backend calls with what
//! it read, in the transaction that writes what they return.
//!
//! The module holds the trait ([`contract`]), its errors ([`error`]), what it
//! answers ([`answers`]), list filters ([`filters`]), the decoding both
//! backends share ([`rows`]), the tables of sealed values ([`sealed`]), and
//! the backends ([`sqlite`], [`postgres`]).
//!
//! # The concurrency contract every backend keeps
//!
//! - **A run is executed by one worker at a time.** A claim sets the run's
//!   worker and raises its lease epoch; every later write for the run
//!   ([`Store::commit`], [`Store::release_run`]) is refused with
//!   [`StoreError::Fenced`], before it changes anything, unless the run is
//!   still running under that worker and epoch *and* the worker's own lease
//!   is live, judged in the same statement that writes. Two claims of one run
//!   never both succeed.
//! - **One run per session at a time, in submission order.** A run enqueued
//!   behind an unfinished run of its session is blocked; ending the run that
//!   holds the turn unblocks the next in the same transaction.
//! - **A fleet run's cap holds across every worker** (see [`crate::domain::fleet`]).
//! - **Event numbers are dense per run** (1, 2, 3, … with no gap), and
//!   [`Store::events_since`] returns events **in commit order**: once a
//!   cursor position has been returned, no event at or below it commits
//!   later. (A sequence that is assigned before commit does not give this on
//!   a database with concurrent writers; each backend says how it does.)
//! - **Each write is all or nothing**, and a refused or failed one changes
//!   nothing. [`StoreError::is_retryable`] says whether trying again can help.
//! - **The store reads the clock itself**, when a write executes (inside its
//!   transaction), never before: a write that waited for a lock must not
//!   judge a lease by the time it was queued. Leases are judged by one clock
//!   for every worker (the database's, where workers run on many hosts).

pub mod agent_snapshots;
pub mod answer_rows;
pub mod answers;
pub mod body;
pub mod contract;
pub mod delivery_rows;
pub mod disk;
pub mod error;
pub mod event_rows;
pub mod filters;
pub mod formation_rows;
pub mod key_rows;
pub mod postgres;
pub mod quota_book;
pub mod retention;
pub mod rows;
pub mod schedule_rows;
pub mod sealed;
pub mod sqlite;

/// The commands a store carries out are the domain's ([`crate::domain::lifecycle`]).
pub use crate::domain::lifecycle::{
    Commit, Effect, Finish, HandBack, IdempotencyKey, InboxItem, InboxKind, Lease, NewChild, NewFleetRun, NewRun,
    NewTask,
};
pub use answers::{
    Claim, Committed, Enqueued, EnqueuedFleetRun, EnqueuedFormationRun, EventCursor, Heartbeat, QueueStats, RunContext,
    WorkerInfo, WorkerStatus,
};
pub use contract::Store;
pub use error::{SourceError, StoreError, StoreResult};
pub use filters::{AuditFilter, FleetRunFilter, FormationRunFilter, Order, RunFilter, SessionFilter};
pub use retention::Pruned;

/// A throw-away PostgreSQL database, for tests and benchmarks.
pub use postgres::scratch::ScratchDatabase;

/// Opens the store named by a database URL: `postgres://…` (or
/// `postgresql://…`) for PostgreSQL, else a `sqlite:` URL or a file path.
pub async fn open(url: &str, options: &StoreOptions) -> anyhow::Result<std::sync::Arc<dyn Store>> {
    if is_postgres(url) {
        let store = postgres::PgStore::open(url).await?;
        return Ok(std::sync::Arc::new(store));
    }
    let store = sqlite::SqliteStore::open(url, options).await?;
    Ok(std::sync::Arc::new(store))
}

/// What SQLite holds in this process's heap now (0 in a process that uses
/// only PostgreSQL), for the memory gauges.
pub fn memory_held_by_sqlite() -> u64 {
    sqlite::memory_used()
}

/// True when a database URL names PostgreSQL.
pub fn is_postgres(url: &str) -> bool {
    url.starts_with("postgres:") || url.starts_with("postgresql:")
}

/// Settings of a store.
#[derive(Debug, Clone)]
pub struct StoreOptions {
    /// `FULL` (default) survives power loss; `NORMAL` may lose the last commits on power loss.
    pub synchronous_full: bool,
}

impl Default for StoreOptions {
    fn default() -> Self {
        StoreOptions { synchronous_full: true }
    }
}

/// Waits until `changes` reports a change; forever if there is no receiver
/// (or its sender is gone), so it can sit in a `select!` beside a timer.
///
/// A backend reports a change once the commit behind it is visible.
pub async fn changed(changes: &mut Option<tokio::sync::watch::Receiver<u64>>) {
    match changes {
        Some(rx) => {
            if rx.changed().await.is_err() {
                *changes = None;
                std::future::pending::<()>().await;
            }
        }
        None => std::future::pending::<()>().await,
    }
}
