//! Group commit: one writer thread per process owns the write connection.
//!
//! Callers hand it closures; it runs every closure that is waiting in one
//! `BEGIN IMMEDIATE … COMMIT` and answers each caller only after the COMMIT
//! returned. With `synchronous=FULL` that is one fsync for the whole batch:
//! concurrency turns into throughput instead of queueing on the disk.
//!
//! The connection lives on the writer's own OS thread and is driven through
//! SQLite's C API directly (rusqlite), with cached prepared statements. An
//! async driver hands every statement to a connection thread and back, which
//! measured ~125 µs per statement here; in-thread, a statement costs a few
//! microseconds (docs/benchmarks.md, item 8).
//!
//! **Contract for writes:** each write runs inside a savepoint of the batch's
//! transaction. A write that fails (a refusal, an error, a panic) is rolled
//! back to its savepoint alone, so it never takes the other writes of its
//! batch down with it. Only a failed COMMIT fails the whole batch, and then
//! every caller in it gets [`StoreError::Unavailable`] (retrying may help).

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use rusqlite::{Connection, ErrorCode};
use tokio::sync::{mpsc, oneshot};

use super::watch::OwnWrites;
use crate::store::{StoreError, StoreResult};

/// Called once the batch's fate is known: `Ok` if it committed.
type Finisher = Box<dyn FnOnce(Result<(), Failure>) + Send>;
/// A write: runs against the connection (or, when the batch could not even
/// begin, is told why), says whether it left the transaction clean
/// (succeeded or refused before writing), and returns the finisher that
/// delivers its answer after the commit.
type Job = Box<dyn FnOnce(Result<&Connection, &Failure>) -> (bool, Finisher) + Send>;

/// Why a batch wrote nothing, as every caller in it is told.
#[derive(Debug, Clone)]
struct Failure {
    message: String,
    disk_full: bool,
}

impl Failure {
    fn of(e: &rusqlite::Error) -> Failure {
        Failure { message: e.to_string(), disk_full: e.sqlite_error_code() == Some(ErrorCode::DiskFull) }
    }

    /// The error a caller gets: a full disk says so; anything else may pass.
    fn error(&self) -> StoreError {
        let message = format!("not committed: {}", self.message);
        if self.disk_full {
            StoreError::DiskFull(message.into())
        } else {
            StoreError::unavailable(message)
        }
    }
}

/// The most writes folded into one transaction.
const MAX_BATCH: usize = 1024;

/// How long a write waits for another process to release the write lock.
const LOCK_WAIT: Duration = Duration::from_secs(30);

/// The write connection's own busy timeout (see [`begin_immediate`]).
const WRITE_BUSY_TIMEOUT: Duration = Duration::from_millis(5);

/// A batch slower than this is logged: it delays every heartbeat behind it.
const SLOW_BATCH: Duration = Duration::from_secs(1);

/// A handle to the writer thread.
#[derive(Clone)]
pub struct Writer {
    jobs: mpsc::UnboundedSender<Job>,
    own: Arc<OwnWrites>,
}

impl Writer {
    /// Opens the write connection to an existing, migrated database file and
    /// starts the writer thread on it.
    pub fn spawn(path: &Path, synchronous_full: bool) -> anyhow::Result<Writer> {
        let conn = Connection::open(path)?;
        conn.busy_timeout(WRITE_BUSY_TIMEOUT)?;
        conn.set_prepared_statement_cache_capacity(64);
        let synchronous = if synchronous_full { "FULL" } else { "NORMAL" };
        // An 8 MB page cache holds what the writer touches (the newest pages
        // of each table and the queue's indexes). Not more: every commit walks
        // the cache's hash table to drop pages past the end of the file, and
        // with 32 MB that walk was ~6 % of a worker's CPU in the burn-down.
        conn.execute_batch(&format!(
            "PRAGMA journal_mode = WAL; PRAGMA synchronous = {synchronous};
             PRAGMA cache_size = -8000; PRAGMA temp_store = memory;"
        ))?;
        let (jobs, rx) = mpsc::unbounded_channel();
        let own = Arc::new(OwnWrites::default());
        let held = own.clone();
        std::thread::Builder::new().name("wingman-writer".into()).spawn(move || writer_loop(conn, rx, &held))?;
        Ok(Writer { jobs, own })
    }

    /// When the writer holds the write lock, for the process's watch.
    pub fn own_writes(&self) -> Arc<OwnWrites> {
        self.own.clone()
    }

    /// Runs `write` in the next batch and returns its result once committed.
    /// If `write` fails, its changes are rolled back and the batch goes on;
    /// if the batch does not commit, every write in it gets an error.
    pub async fn write<T, F>(&self, write: F) -> StoreResult<T>
    where
        T: Send + 'static,
        F: FnOnce(&Connection) -> StoreResult<T> + Send + 'static,
    {
        let (tx, rx) = oneshot::channel::<StoreResult<T>>();
        let job: Job = Box::new(move |conn| {
            let (clean, result) = match conn {
                Ok(conn) => in_savepoint(conn, write),
                Err(failure) => (false, Err(failure.error())),
            };
            let finisher: Finisher = Box::new(move |commit| {
                let answer = match (result, commit) {
                    (Err(refused), _) => Err(refused),
                    (Ok(value), Ok(())) => Ok(value),
                    (Ok(_), Err(failure)) => Err(failure.error()),
                };
                let _ = tx.send(answer);
            });
            (clean, finisher)
        });
        self.jobs.send(job).map_err(|_| StoreError::unavailable("the writer has stopped"))?;
        rx.await.map_err(|_| StoreError::unavailable("the writer dropped the write"))?
    }
}

/// Runs one write inside a savepoint, undoing it alone if it fails. Returns
/// whether the transaction is still fit to commit, and the write's result.
fn in_savepoint<T, F>(conn: &Connection, write: F) -> (bool, StoreResult<T>)
where
    F: FnOnce(&Connection) -> StoreResult<T>,
{
    if let Err(e) = run_cached(conn, "SAVEPOINT write") {
        return (false, Err(e.into()));
    }
    // A panicking write must not take the writer thread (and with it every
    // later write of the process) down: it fails and is undone like an error.
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| write(conn)))
        .unwrap_or_else(|_| Err(StoreError::internal("a write panicked")));
    let undone = if result.is_err() { run_cached(conn, "ROLLBACK TO write") } else { Ok(()) };
    match undone.and_then(|()| run_cached(conn, "RELEASE write")) {
        Ok(()) => (true, result),
        Err(e) => (false, result.and(Err(e.into()))),
    }
}

/// Runs a statement that returns nothing, prepared once per connection: a
/// savepoint's three statements run for every write and a transaction's two
/// for every batch, and parsing them each time cost more than running them.
fn run_cached(conn: &Connection, sql: &str) -> rusqlite::Result<()> {
    conn.prepare_cached(sql)?.execute([])?;
    Ok(())
}

/// The writer thread: waits for a write, takes every other one waiting
/// behind it, and runs them as one transaction. Ends when every handle is gone.
fn writer_loop(conn: Connection, mut rx: mpsc::UnboundedReceiver<Job>, own: &OwnWrites) {
    while let Some(first) = rx.blocking_recv() {
        let mut batch = vec![first];
        while batch.len() < MAX_BATCH {
            match rx.try_recv() {
                Ok(job) => batch.push(job),
                Err(_) => break,
            }
        }
        run_batch(&conn, batch, own);
    }
}

fn run_batch(conn: &Connection, batch: Vec<Job>, own: &OwnWrites) {
    let started = Instant::now();
    let size = batch.len();
    if let Err(e) = begin_immediate(conn) {
        // Nothing was written: each caller is told why.
        tracing::error!(error = %e, writes = size, "could not start a write transaction");
        let failure = Failure::of(&e);
        if failure.disk_full {
            crate::store::disk::noticed(false);
        }
        for job in batch {
            job(Err(&failure)).1(Err(failure.clone()));
        }
        return;
    }
    own.took_lock();
    let mut finishers = Vec::with_capacity(size);
    let mut all_clean = true;
    for job in batch {
        let (clean, finish) = job(Ok(conn));
        all_clean &= clean;
        finishers.push(finish);
    }
    let outcome = if all_clean {
        run_cached(conn, "COMMIT").map_err(|e| Failure::of(&e))
    } else {
        let message = "a savepoint of the batch failed; the batch was rolled back".to_string();
        Err(Failure { message, disk_full: false })
    };
    if outcome.is_err() {
        let _ = conn.execute_batch("ROLLBACK");
    }
    own.released_lock();
    if all_clean {
        crate::store::disk::noticed(!matches!(&outcome, Err(failure) if failure.disk_full));
    }
    let took = started.elapsed();
    if took > SLOW_BATCH {
        tracing::warn!(writes = size, millis = took.as_millis() as u64, "slow write batch");
    }
    tracing::debug!(writes = size, micros = took.as_micros() as u64, committed = outcome.is_ok(), "write batch");
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
fn begin_immediate(conn: &Connection) -> rusqlite::Result<()> {
    let deadline = Instant::now() + LOCK_WAIT;
    loop {
        match run_cached(conn, "BEGIN IMMEDIATE") {
            Ok(()) => return Ok(()),
            Err(e) if is_busy(&e) && Instant::now() < deadline => {
                std::thread::sleep(Duration::from_micros(500 + fastrand::u64(0..1500)));
            }
            Err(e) => return Err(e),
        }
    }
}

/// Whether an error is another connection's lock (busy or locked).
pub fn is_busy(e: &rusqlite::Error) -> bool {
    matches!(e.sqlite_error_code(), Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked))
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn writer() -> (Writer, tempfile::TempDir) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("w.db");
        Connection::open(&path).unwrap().execute_batch("CREATE TABLE t (x INTEGER)").unwrap();
        (Writer::spawn(&path, true).unwrap(), dir)
    }

    async fn count(w: &Writer) -> i64 {
        w.write(|c| Ok(c.query_row("SELECT COUNT(*) FROM t", [], |r| r.get(0))?)).await.unwrap()
    }

    #[tokio::test]
    async fn writes_are_durable_by_default_and_relaxed_on_request() {
        let (full, dir) = writer().await;
        let level = |w: Writer| async move {
            w.write(|c| Ok(c.query_row("PRAGMA synchronous", [], |r| r.get::<_, i64>(0))?)).await.unwrap()
        };
        assert_eq!(level(full).await, 2, "FULL: every commit is fsynced");
        let normal = Writer::spawn(&dir.path().join("w.db"), false).unwrap();
        assert_eq!(level(normal.clone()).await, 1, "NORMAL");
        let mode: String = normal.write(|c| Ok(c.query_row("PRAGMA journal_mode", [], |r| r.get(0))?)).await.unwrap();
        assert_eq!(mode, "wal");
    }

    #[tokio::test]
    async fn a_panicking_write_fails_and_the_writer_goes_on() {
        let (w, _dir) = writer().await;
        let panicked = w.write(|_| -> StoreResult<()> { panic!("a bug in a write") }).await;
        assert!(matches!(panicked, Err(StoreError::Internal(_))));
        w.write(|c| Ok(c.execute("INSERT INTO t VALUES (1)", [])?)).await.unwrap();
        assert_eq!(count(&w).await, 1);
    }

    #[tokio::test]
    async fn a_failing_write_is_undone_alone_and_its_batch_commits() {
        let (w, _dir) = writer().await;
        // Queued together, these share one transaction.
        let ok = w.write(|c| Ok(c.execute("INSERT INTO t VALUES (1)", [])?));
        let refused = w.write(|c| -> StoreResult<()> {
            c.execute("INSERT INTO t VALUES (2)", [])?;
            Err(StoreError::Fenced)
        });
        let broken = w.write(|c| {
            c.execute("INSERT INTO t VALUES (3)", [])?;
            Ok(c.execute("INSERT INTO missing VALUES (4)", [])?)
        });
        let kept = w.write(|c| Ok(c.execute("INSERT INTO t VALUES (5)", [])?));
        let (ok, refused, broken, kept) = tokio::join!(ok, refused, broken, kept);
        assert!(ok.is_ok() && kept.is_ok(), "{ok:?} {kept:?}");
        assert!(matches!(refused, Err(StoreError::Fenced)));
        let broken = broken.unwrap_err();
        assert!(matches!(broken, StoreError::Internal(_)) && !broken.is_retryable(), "{broken:?}");
        let rows: Vec<i64> = w
            .write(|c| {
                let mut select = c.prepare("SELECT x FROM t ORDER BY x")?;
                let rows = select.query_map([], |r| r.get(0))?.collect::<Result<_, _>>()?;
                Ok(rows)
            })
            .await
            .unwrap();
        assert_eq!(rows, vec![1, 5], "the failed writes left nothing, the others everything");
    }
}
