//! Group commit: one writer task per process owns the write connection.
//!
//! Callers hand it closures; it runs every closure that is waiting in one
//! `BEGIN IMMEDIATE … COMMIT` and answers each caller only after the COMMIT
//! returned. With `synchronous=FULL` that is one fsync for the whole batch:
//! concurrency turns into throughput instead of queueing on the disk.
//!
//! **Contract for writes:** a write that refuses (fenced, not found,
//! conflict) does so before it changes anything, so a refusal needs no
//! rollback. Any other error may have left partial changes: the whole batch
//! is rolled back and every caller in it gets an error (callers retry). This
//! saves the two savepoint round trips per write that isolating each write
//! would cost — each statement is a round trip to the connection's thread.

use futures_util::future::BoxFuture;
use sqlx::sqlite::SqliteConnection;
use sqlx::Connection;
use tokio::sync::{mpsc, oneshot};

use crate::store::{StoreError, StoreResult};

/// Called once the batch's fate is known: `Ok` if it committed.
type Finisher = Box<dyn FnOnce(Result<(), String>) + Send>;
/// A write: runs against the connection, says whether it left the
/// transaction clean (succeeded or refused before writing), and returns the
/// finisher that delivers its answer after the commit.
type Job = Box<dyn for<'c> FnOnce(&'c mut SqliteConnection) -> BoxFuture<'c, (bool, Finisher)> + Send>;

/// The most writes folded into one transaction.
const MAX_BATCH: usize = 512;

/// A handle to the writer task.
#[derive(Clone)]
pub struct Writer {
    jobs: mpsc::UnboundedSender<Job>,
}

impl Writer {
    /// Starts the writer task on its own connection.
    pub fn spawn(conn: SqliteConnection) -> Writer {
        let (jobs, rx) = mpsc::unbounded_channel();
        tokio::spawn(writer_loop(conn, rx));
        Writer { jobs }
    }

    /// Runs `write` in the next batch and returns its result once committed.
    /// A refusal ([`StoreError::Fenced`], `NotFound`, `Conflict`) must come
    /// before `write` changes anything; a [`StoreError::Backend`] error rolls
    /// the whole batch back. If the batch does not commit, every write in it
    /// gets an error.
    pub async fn write<T, F>(&self, write: F) -> StoreResult<T>
    where
        T: Send + 'static,
        F: for<'c> FnOnce(&'c mut SqliteConnection) -> BoxFuture<'c, StoreResult<T>> + Send + 'static,
    {
        let (tx, rx) = oneshot::channel::<StoreResult<T>>();
        let job: Job = Box::new(move |conn| {
            Box::pin(async move {
                let result = write(conn).await;
                let clean = !matches!(result, Err(StoreError::Backend(_)));
                let finisher: Finisher = Box::new(move |commit| {
                    let answer = match (result, commit) {
                        (Err(refused), _) => Err(refused),
                        (Ok(value), Ok(())) => Ok(value),
                        (Ok(_), Err(e)) => Err(StoreError::Backend(format!("not committed: {e}"))),
                    };
                    let _ = tx.send(answer);
                });
                (clean, finisher)
            })
        });
        self.jobs.send(job).map_err(|_| StoreError::Backend("the writer has stopped".into()))?;
        rx.await.map_err(|_| StoreError::Backend("the writer dropped the write".into()))?
    }
}

async fn writer_loop(mut conn: SqliteConnection, mut rx: mpsc::UnboundedReceiver<Job>) {
    while let Some(first) = rx.recv().await {
        let mut batch = vec![first];
        while batch.len() < MAX_BATCH {
            match rx.try_recv() {
                Ok(job) => batch.push(job),
                Err(_) => break,
            }
        }
        run_batch(&mut conn, batch).await;
    }
    let _ = conn.close().await;
}

async fn run_batch(conn: &mut SqliteConnection, batch: Vec<Job>) {
    let started = std::time::Instant::now();
    let size = batch.len();
    if let Err(e) = begin_immediate(conn).await {
        // Dropping the jobs unblocks their callers with an error; nothing was written.
        tracing::error!(error = %e, writes = batch.len(), "could not start a write transaction");
        return;
    }
    let mut finishers = Vec::with_capacity(batch.len());
    let mut all_clean = true;
    for job in batch {
        let (clean, finish) = job(conn).await;
        all_clean &= clean;
        finishers.push(finish);
    }
    let outcome = if all_clean {
        exec(conn, "COMMIT").await.map_err(|e| e.to_string())
    } else {
        Err("a write in the same batch failed; the batch was rolled back".to_string())
    };
    if outcome.is_err() {
        let _ = exec(conn, "ROLLBACK").await;
    }
    tracing::debug!(
        writes = size,
        micros = started.elapsed().as_micros() as u64,
        committed = outcome.is_ok(),
        "write batch"
    );
    for finish in finishers {
        finish(outcome.clone());
    }
}

/// Takes the write lock up front. The write connection's own busy timeout
/// is a few milliseconds; past it, this retries every millisecond or so (with
/// jitter) for up to [`LOCK_WAIT`]. SQLite's default busy handler sleeps in
/// growing steps up to 100 ms, and a process that waits that way keeps
/// missing the moments another busy process releases the lock: measured with
/// two worker processes, single waits reached 2.3 s — long enough to delay a
/// heartbeat past a lease.
async fn begin_immediate(conn: &mut SqliteConnection) -> Result<(), sqlx::Error> {
    let deadline = std::time::Instant::now() + LOCK_WAIT;
    loop {
        match exec(conn, "BEGIN IMMEDIATE").await {
            Ok(()) => return Ok(()),
            Err(e) if is_busy(&e) && std::time::Instant::now() < deadline => {
                let pause = 500 + fastrand::u64(0..1500);
                tokio::time::sleep(std::time::Duration::from_micros(pause)).await;
            }
            Err(e) => return Err(e),
        }
    }
}

/// How long a write waits for another process to release the write lock.
const LOCK_WAIT: std::time::Duration = std::time::Duration::from_secs(30);

/// The write connection's own busy timeout, in milliseconds (see [`begin_immediate`]).
pub const WRITE_BUSY_TIMEOUT_MS: u32 = 5;

fn is_busy(e: &sqlx::Error) -> bool {
    matches!(e, sqlx::Error::Database(db) if db.message().contains("locked") || db.message().contains("busy"))
}

async fn exec(conn: &mut SqliteConnection, sql: &str) -> Result<(), sqlx::Error> {
    sqlx::query(sql).execute(&mut *conn).await.map(|_| ())
}
