//! The pruner: a task of `wingman serve` that deletes the logs (events and
//! checkpoints) of runs and fleet runs that ended more than `--retain-days`
//! ago, then the records that nothing needs any more (ended webhook
//! deliveries and their attempts, schedule ticks, idempotency keys), in
//! small batches, so that the queue's own writes never wait long behind it.
//! Runs, their results and sessions' histories stay.
//!
//! **Invariant:** pruning never touches a run that has not ended. Only logs
//! whose owner has a `finished_at` are candidates ([`Store::prune_logs`]),
//! and a run never leaves a terminal state.

use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio_util::sync::CancellationToken;

use super::ServiceResult;
use crate::store::{Pruned, Store, StoreResult};

/// Settings of the pruner.
#[derive(Debug, Clone)]
pub struct RetentionConfig {
    /// Logs of what ended longer ago than this are deleted.
    pub retain: Duration,
    /// How often a pass looks for them (the first one after this long).
    pub interval: Duration,
    /// The most rows one batch deletes.
    pub batch: u32,
}

impl RetentionConfig {
    /// Keeps logs for `days` days, looking every `interval`.
    pub fn days(days: u32, interval: Duration) -> RetentionConfig {
        RetentionConfig { retain: Duration::from_secs(u64::from(days) * 86_400), interval, batch: BATCH }
    }
}

/// Rows per batch: small enough that a batch holds SQLite's single writer for
/// a few milliseconds, large enough that a pass is not all round trips.
pub const BATCH: u32 = 500;

/// The least pause between two batches. The pause is otherwise as long as
/// the batch took, so pruning takes at most about half of the database's time.
const MIN_PAUSE: Duration = Duration::from_millis(5);

/// What a pass removed, and how long it took.
#[derive(Debug, Clone, Copy, Default)]
pub struct Pass {
    pub pruned: Pruned,
    pub batches: u32,
    pub took: Duration,
}

/// Runs passes every `config.interval` until `shutdown`, logging what each removed.
/// A pass that meets a store error ends the run with it: the supervisor
/// starts the pruner again, and the next pass goes on from where this one stopped.
pub async fn run(store: Arc<dyn Store>, config: RetentionConfig, shutdown: CancellationToken) -> ServiceResult {
    let (retain_days, interval_ms) = (config.retain.as_secs() / 86_400, config.interval.as_millis() as u64);
    tracing::info!(retain_days, interval_ms, "deleting the logs of runs that ended more than retain_days ago");
    let mut tick = tokio::time::interval_at(tokio::time::Instant::now() + config.interval, config.interval);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            _ = shutdown.cancelled() => return Ok(()),
            _ = tick.tick() => {}
        }
        let mut pass = Pass::default();
        let outcome = prune_pass(store.as_ref(), &config, &shutdown, &mut pass).await;
        let pruned = pass.pruned;
        if !pruned.is_empty() {
            tracing::info!(
                events = pruned.events,
                checkpoints = pruned.checkpoints,
                logs = pruned.logs,
                deliveries = pruned.deliveries,
                attempts = pruned.attempts,
                ticks = pruned.ticks,
                keys = pruned.keys,
                batches = pass.batches,
                took_ms = pass.took.as_millis() as u64,
                "pruned old logs and records"
            );
        }
        outcome?;
    }
}

/// Deletes old logs, then old records, batch after batch until none is
/// left (or `shutdown`), pausing between batches so that claims and commits
/// go in between. What it removed is in `pass`, also when a batch failed.
pub async fn prune_pass(
    store: &dyn Store,
    config: &RetentionConfig,
    shutdown: &CancellationToken,
    pass: &mut Pass,
) -> StoreResult<()> {
    let started = Instant::now();
    let outcome = match in_batches(shutdown, pass, || store.prune_logs(config.retain, config.batch)).await {
        Ok(()) if shutdown.is_cancelled() => Ok(()),
        Ok(()) => in_batches(shutdown, pass, || store.prune_records(config.retain, config.batch)).await,
        failed => failed,
    };
    pass.took = started.elapsed();
    outcome
}

/// Runs `batch` until it finds nothing (or `shutdown`), adding what each
/// removed to `pass`.
async fn in_batches<F, Fut>(shutdown: &CancellationToken, pass: &mut Pass, mut batch: F) -> StoreResult<()>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = StoreResult<Pruned>>,
{
    loop {
        let began = Instant::now();
        let removed = batch().await?;
        if removed.is_empty() {
            return Ok(());
        }
        pass.pruned.add(removed);
        pass.batches += 1;
        tokio::select! {
            _ = shutdown.cancelled() => return Ok(()),
            _ = tokio::time::sleep(began.elapsed().max(MIN_PAUSE)) => {}
        }
    }
}
