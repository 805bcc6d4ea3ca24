//! What both backends share for retention: what a batch of pruning removed,
//! and the batches a run's deletion is made of.
//!
//! A run's or a fleet run's **log** is its events, and for a run also its
//! checkpoints and its inbox. Retention removes logs only of what has ended:
//! a run that has not ended is never touched, and neither is anything a
//! session's history is made of (the history is its own rows, written when
//! each run ends, and never read back from checkpoints).

use std::future::Future;

use super::{StoreError, StoreResult};
use crate::domain::model::RunStatus;

/// The most rows of a log one transaction of [`super::Store::delete_run`]
/// removes: a long run's log goes in several short transactions, so the
/// claims and commits of other runs never wait long behind it.
pub const DELETE_BATCH: u32 = 1000;

/// What one batch of pruning removed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Pruned {
    /// Events removed, of runs' and fleet runs' logs.
    pub events: u64,
    /// Checkpoints removed.
    pub checkpoints: u64,
    /// Logs that are now gone for good (runs and fleet runs marked pruned).
    pub logs: u64,
    /// Ended webhook deliveries removed, with their attempts.
    pub deliveries: u64,
    /// Attempts of those deliveries removed.
    pub attempts: u64,
    /// Schedule ticks removed.
    pub ticks: u64,
    /// Idempotency keys removed.
    pub keys: u64,
    /// The rows removed, which a batch's limit bounds: one per checkpoint
    /// and per write's events (`crate::store::event_rows`).
    /// Of the records, one per delivery (its few attempts go with it), tick
    /// and key.
    pub rows: u64,
}

impl Pruned {
    /// True when the batch found nothing left to prune.
    pub fn is_empty(&self) -> bool {
        self.rows == 0 && self.logs == 0
    }

    /// Adds another batch's counts to these.
    pub fn add(&mut self, other: Pruned) {
        self.events += other.events;
        self.checkpoints += other.checkpoints;
        self.logs += other.logs;
        self.deliveries += other.deliveries;
        self.attempts += other.attempts;
        self.ticks += other.ticks;
        self.keys += other.keys;
        self.rows += other.rows;
    }
}

/// What one deletion of part of a log removed: rows of `run_events` (each
/// a write's events, `crate::store::event_rows`), the events they held,
/// and checkpoints.
#[derive(Debug, Clone, Copy, Default)]
pub struct RemovedLog {
    pub event_rows: u64,
    pub events: u64,
    pub checkpoints: u64,
}

impl RemovedLog {
    /// The rows removed, which a batch's budget bounds.
    pub fn rows(&self) -> u64 {
        self.event_rows + self.checkpoints
    }

    /// Counts this removal in a batch's figures.
    pub fn add_to(&self, pruned: &mut Pruned) {
        pruned.rows += self.rows();
        pruned.events += self.events;
        pruned.checkpoints += self.checkpoints;
    }
}

/// Deletes a run in batches: `batch` is one transaction that checks the run
/// (unknown, or not ended: refused), removes up to [`DELETE_BATCH`] rows of
/// its log, and with the last of them the run itself, answering `true` once
/// the run is gone. A run another caller deleted between two batches is
/// deleted all the same.
pub async fn delete_in_batches<F, Fut>(mut batch: F) -> StoreResult<()>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = StoreResult<bool>>,
{
    let mut first = true;
    loop {
        match batch().await {
            Ok(true) => return Ok(()),
            Ok(false) => first = false,
            Err(StoreError::NotFound(_)) if !first => return Ok(()),
            Err(e) => return Err(e),
        }
        // Let the queue's writes in between two batches.
        tokio::task::yield_now().await;
    }
}

/// Refuses to delete a run that has not ended: called by both backends with
/// the status they read under the run's lock, before deleting anything.
pub fn check_ended(id: &str, status: &str) -> StoreResult<()> {
    match RunStatus::parse(status) {
        Some(status) if status.is_terminal() => Ok(()),
        _ => Err(StoreError::Conflict(format!(
            "run {id} is {status}: only a run that has ended can be deleted (cancel it first)"
        ))),
    }
}
