//! Where the recorder's entries go: [`AuditLog`], a bounded queue, and
//! [`Appender`], the task that writes what is queued to the store, many
//! entries to a transaction.
//!
//! An answer does not wait for its entry's commit: waiting made every
//! change pay a second commit on its way out, which took a third off the
//! enqueue rate (docs/benchmarks.md). The queue is bounded, so a store that
//! cannot keep up holds answers back instead of dropping entries; a write
//! that fails is tried again; and at shutdown the appender writes what is
//! queued before it ends. What a crash of the process loses is what was
//! queued and not yet written: the last few milliseconds' entries.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{mpsc, Notify};
use tokio_util::sync::CancellationToken;

use crate::domain::audit::AuditEntry;
use crate::store::Store;

/// The most entries queued: past it, answers wait for room.
const QUEUED: usize = 8_192;

/// The most entries written in one transaction.
const BATCH: usize = 512;

/// How long the appender lets entries gather after the first before it
/// writes them: a busy server then writes one batch every few milliseconds
/// instead of one for every request or two, which on PostgreSQL is a commit
/// each (docs/benchmarks.md). A read of the log waits at most this longer.
const LINGER: Duration = Duration::from_millis(10);

/// The first wait after a failed write; it doubles up to [`MAX_BACKOFF`].
const BACKOFF: Duration = Duration::from_millis(100);
const MAX_BACKOFF: Duration = Duration::from_secs(5);

/// The recorder's end of the queue.
#[derive(Clone)]
pub struct AuditLog {
    queue: mpsc::Sender<AuditEntry>,
    counts: Arc<Counts>,
}

/// The writer's end: drains the queue into the store.
pub struct Appender {
    queue: mpsc::Receiver<AuditEntry>,
    store: Arc<dyn Store>,
    counts: Arc<Counts>,
}

/// Entries queued and written so far by this process, so that a read of
/// the log can wait for what this server queued before it.
#[derive(Default)]
struct Counts {
    queued: AtomicU64,
    written: AtomicU64,
    progress: Notify,
}

impl AuditLog {
    /// A queue and the appender that writes it to `store`.
    pub fn new(store: Arc<dyn Store>) -> (AuditLog, Appender) {
        let (queue, rx) = mpsc::channel(QUEUED);
        let counts = Arc::new(Counts::default());
        (AuditLog { queue, counts: counts.clone() }, Appender { queue: rx, store, counts })
    }

    /// Queues `entry`, waiting for room while the queue is full.
    pub async fn append(&self, entry: AuditEntry) {
        match self.queue.send(entry).await {
            Ok(()) => {
                self.counts.queued.fetch_add(1, Ordering::SeqCst);
            }
            Err(lost) => {
                tracing::error!(action = %lost.0.action, "an audit entry was not stored: the audit log has stopped");
            }
        }
    }

    /// Waits, at most `limit`, until every entry this process queued
    /// before now is written: a change is in the log its server reads next.
    pub async fn settled(&self, limit: Duration) {
        let queued = self.counts.queued.load(Ordering::SeqCst);
        let written = async {
            loop {
                let progress = self.counts.progress.notified();
                if self.counts.written.load(Ordering::SeqCst) >= queued {
                    return;
                }
                progress.await;
            }
        };
        let _ = tokio::time::timeout(limit, written).await;
    }
}

impl Appender {
    /// Writes entries as they come until `stop` fires, then what is still
    /// queued, and ends.
    pub async fn run(mut self, stop: CancellationToken) {
        loop {
            let first = tokio::select! {
                entry = self.queue.recv() => match entry {
                    Some(entry) => entry,
                    None => return,
                },
                _ = stop.cancelled() => break,
            };
            let mut batch = vec![first];
            tokio::select! {
                _ = tokio::time::sleep(LINGER) => {}
                _ = stop.cancelled() => {}
            }
            self.take_queued(&mut batch);
            self.write(batch, &stop).await;
        }
        self.queue.close();
        let mut rest = Vec::new();
        self.take_queued(&mut rest);
        while !rest.is_empty() {
            let batch: Vec<AuditEntry> = rest.drain(..rest.len().min(BATCH)).collect();
            self.write(batch, &stop).await;
        }
    }

    /// Moves what is queued now into `batch`, up to [`BATCH`] entries.
    fn take_queued(&mut self, batch: &mut Vec<AuditEntry>) {
        while batch.len() < BATCH {
            match self.queue.try_recv() {
                Ok(entry) => batch.push(entry),
                Err(_) => return,
            }
        }
    }

    /// Writes `batch`, trying again while the store refuses it; after
    /// `stop`, a failed write is tried once more, then reported lost.
    async fn write(&self, batch: Vec<AuditEntry>, stop: &CancellationToken) {
        let mut wait = BACKOFF;
        loop {
            match self.store.record_audit(&batch).await {
                Ok(()) => {
                    self.counts.written.fetch_add(batch.len() as u64, Ordering::SeqCst);
                    self.counts.progress.notify_waiters();
                    return;
                }
                Err(e) if stop.is_cancelled() && wait > BACKOFF => {
                    tracing::error!(error = %e, entries = batch.len(), "audit entries were not stored at shutdown");
                    return;
                }
                Err(e) => {
                    tracing::warn!(error = %e, entries = batch.len(), "audit entries not stored yet; trying again")
                }
            }
            tokio::time::sleep(wait).await;
            wait = (wait * 2).min(MAX_BACKOFF);
        }
    }
}
