//! Group commit for a process's worker commits on PostgreSQL: concurrent
//! commits queue here and go to the database together, a batch per
//! transaction ([`super::commit::commit_many`]), so one round trip per
//! statement and one WAL flush serve every run in the batch. A commit that
//! finds nothing queued goes at once, alone; under load, batches grow.
//!
//! One batch is written at a time, and the next fills meanwhile. Two at once
//! made each half as large for the same work, and a busy database spends
//! its time per statement more than per row: a burn-down with four worker
//! processes ran 15–20 % slower (docs/benchmarks.md, change 11). With the
//! database 50 ms away the second batch gained nothing either.
//!
//! A batch that fails as a whole (a lost connection, a deadlock, a row that
//! does not encode) is written again one commit per transaction, so each
//! commit gets its own answer and one bad write never fails another.

use std::collections::HashSet;
use std::sync::Arc;

use sqlx::postgres::PgPool;
use tokio::sync::{mpsc, oneshot};

use super::listen::Notifier;
use super::{commit, Pending};
use crate::store::{Commit, Committed, Lease, StoreError, StoreResult};

/// The most commits in one transaction: enough that a worker running
/// hundreds of runs at once writes their commits in a few transactions.
const MAX_BATCH: usize = 256;

/// A commit waiting for its batch, and where its answer goes.
struct Queued {
    lease: Lease,
    commit: Commit,
    answer: oneshot::Sender<StoreResult<Committed>>,
}

/// The queue of commits, served by a task of its own.
pub struct Committer {
    queue: mpsc::UnboundedSender<Queued>,
}

impl Committer {
    /// Starts the task that writes queued commits with connections of `pool`.
    pub fn spawn(pool: PgPool, hints: Arc<Notifier>) -> Committer {
        let (queue, queued) = mpsc::unbounded_channel();
        tokio::spawn(serve(pool, hints, queued));
        Committer { queue }
    }

    /// Writes one commit under its lease, in a batch with whatever other
    /// commits are queued; answers as `Store::commit` does.
    pub async fn commit(&self, lease: &Lease, commit: Commit) -> StoreResult<Committed> {
        let (answer, answered) = oneshot::channel();
        let queued = Queued { lease: lease.clone(), commit, answer };
        self.queue.send(queued).map_err(|_| StoreError::unavailable("the committer has stopped"))?;
        answered.await.map_err(|_| StoreError::unavailable("the committer dropped a commit"))?
    }
}

/// Takes batches off the queue while commits come, each run at most once
/// per batch (a second commit for a run waits for the next batch).
async fn serve(pool: PgPool, hints: Arc<Notifier>, mut queued: mpsc::UnboundedReceiver<Queued>) {
    let mut held_over: Vec<Queued> = Vec::new();
    loop {
        if held_over.is_empty() {
            match queued.recv().await {
                Some(first) => held_over.push(first),
                None => return,
            }
        }
        let mut batch = Batch::default();
        for next in std::mem::take(&mut held_over) {
            batch.place(next, &mut held_over);
        }
        while batch.commits.len() < MAX_BATCH {
            match queued.try_recv() {
                Ok(next) => batch.place(next, &mut held_over),
                Err(_) => break,
            }
        }
        // Counted, so that a claim or a submission meanwhile does not take
        // itself for the only write under way.
        let writing = hints.writing();
        write(&pool, batch.commits).await;
        hints.hint();
        drop(writing);
    }
}

/// The commits of the next transaction, at most one per run.
#[derive(Default)]
struct Batch {
    commits: Vec<Queued>,
    runs: HashSet<String>,
}

impl Batch {
    /// Puts a commit in the batch, or holds it over for the next one if the
    /// batch is full or already has a commit of its run.
    fn place(&mut self, next: Queued, held_over: &mut Vec<Queued>) {
        if self.commits.len() == MAX_BATCH || self.runs.contains(&next.lease.run_id) {
            held_over.push(next);
        } else {
            self.runs.insert(next.lease.run_id.clone());
            self.commits.push(next);
        }
    }
}

/// Writes a batch in one transaction, or each commit alone if that fails.
async fn write(pool: &PgPool, batch: Vec<Queued>) {
    let writes: Vec<(&Lease, &Commit)> = batch.iter().map(|q| (&q.lease, &q.commit)).collect();
    let outcome = in_transaction(pool, &writes).await;
    drop(writes);
    match outcome {
        Ok(outcomes) => {
            for (queued, outcome) in batch.into_iter().zip(outcomes) {
                let _ = queued.answer.send(outcome);
            }
        }
        Err(e) if batch.len() == 1 => {
            let _ = batch.into_iter().next().map(|q| q.answer.send(Err(e)));
        }
        Err(e) => {
            tracing::debug!(error = %e, size = batch.len(), "a commit batch failed; writing its commits one by one");
            for queued in batch {
                let alone = in_transaction(pool, &[(&queued.lease, &queued.commit)]).await;
                let _ = queued.answer.send(alone.and_then(|mut outcomes| outcomes.remove(0)));
            }
        }
    }
}

async fn in_transaction(pool: &PgPool, writes: &[(&Lease, &Commit)]) -> StoreResult<Vec<StoreResult<Committed>>> {
    let mut tx = super::begin(pool).await?;
    let mut pending = Pending::default();
    let written = commit::commit_many(&mut tx, &mut pending, writes).await;
    Ok(super::settle(tx, pending, written).await?.0)
}
