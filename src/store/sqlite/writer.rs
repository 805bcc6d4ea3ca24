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
//! **Contract for writes:** a write that fails (a refusal, an error, a
//! panic) leaves nothing behind and never takes the other writes of its
//! batch down with it. Only a failed COMMIT fails the whole batch, and then
//! every caller in it gets [`StoreError::Unavailable`] (retrying may help).
//!
//! A write given to [`Writer::write`] runs inside a savepoint of the batch's
//! transaction, so that it can be undone alone. A savepoint costs more than
//! its three statements: SQLite copies every page an earlier write of the
//! batch changed into the savepoint's journal before changing it again. A
//! write given to [`Writer::write_repeatable`] promises that it may run twice
//! (it changes nothing but the database); a batch made only of those runs
//! without savepoints, and if one of them fails, the batch is rolled back
//! whole and run again with a savepoint for each (docs/benchmarks.md, item 26).

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use rusqlite::{Connection, ErrorCode};
use tokio::sync::{mpsc, oneshot};

use super::watch::OwnWrites;
use super::write_job::{once, run_cached, Failure, Job, Pending};
use crate::store::{StoreError, StoreResult};

/// A write queued for the writer thread.
type Queued = Box<dyn Job>;

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
    jobs: mpsc::UnboundedSender<Queued>,
    own: Arc<OwnWrites>,
}

impl Writer {
    /// Opens the write connection to an existing, migrated database file and
    /// starts the writer thread on it.
    pub fn spawn(path: &Path, synchronous_full: bool) -> anyhow::Result<Writer> {
        let conn = Connection::open(path)?;
        super::open::keep_wal_files(&conn)?;
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
        let (tx, rx) = oneshot::channel();
        self.queue(Box::new(once(write, tx)), rx).await
    }

    /// [`Writer::write`] for a write that may run twice: it changes nothing
    /// but the database (no caches, no counters, no channels), so that a run
    /// of it that was rolled back left no trace. A batch of such writes alone
    /// runs without a savepoint for each.
    pub async fn write_repeatable<T, F>(&self, write: F) -> StoreResult<T>
    where
        T: Send + 'static,
        F: Fn(&Connection) -> StoreResult<T> + Send + 'static,
    {
        let (tx, rx) = oneshot::channel();
        self.queue(Box::new(Pending::repeatable(write, tx)), rx).await
    }

    async fn queue<T>(&self, job: Queued, answer: oneshot::Receiver<StoreResult<T>>) -> StoreResult<T> {
        self.jobs.send(job).map_err(|_| StoreError::unavailable("the writer has stopped"))?;
        answer.await.map_err(|_| StoreError::unavailable("the writer dropped the write"))?
    }
}

/// The writer thread: waits for a write, takes every other one waiting
/// behind it, and runs them as one transaction. Ends when every handle is gone.
fn writer_loop(conn: Connection, mut rx: mpsc::UnboundedReceiver<Queued>, own: &OwnWrites) {
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

fn run_batch(conn: &Connection, mut batch: Vec<Queued>, own: &OwnWrites) {
    let started = Instant::now();
    let size = batch.len();
    let (outcome, committing) = match run_writes(conn, &mut batch, own) {
        Ok(true) => (run_cached(conn, "COMMIT").map_err(|e| Failure::of(&e)), true),
        Ok(false) => {
            let message = "a savepoint of the batch failed; the batch was rolled back".to_string();
            (Err(Failure { message, disk_full: false }), false)
        }
        Err(failure) => {
            // Nothing was written: each caller is told why.
            tracing::error!(error = %failure.message, writes = size, "could not start a write transaction");
            if failure.disk_full {
                crate::store::disk::noticed(false);
            }
            answer_all(batch, &Err(failure));
            return;
        }
    };
    if outcome.is_err() {
        let _ = conn.execute_batch("ROLLBACK");
    }
    own.released_lock();
    if committing {
        crate::store::disk::noticed(!matches!(&outcome, Err(failure) if failure.disk_full));
    }
    let took = started.elapsed();
    if took > SLOW_BATCH {
        tracing::warn!(writes = size, millis = took.as_millis() as u64, "slow write batch");
    }
    tracing::debug!(writes = size, micros = took.as_micros() as u64, committed = outcome.is_ok(), "write batch");
    answer_all(batch, &outcome);
}

/// Begins the batch's transaction and runs its writes; returns whether the
/// transaction is fit to commit, or why none could begin (then the lock is
/// not held and no write holds a result). A batch of repeatable writes runs first without savepoints;
/// if one of them fails, the batch is rolled back and run again, each write
/// in a savepoint of its own.
fn run_writes(conn: &Connection, batch: &mut [Queued], own: &OwnWrites) -> Result<bool, Failure> {
    begin_immediate(conn).map_err(|e| Failure::of(&e))?;
    own.took_lock();
    if batch.iter().all(|job| job.repeatable()) {
        if batch.iter_mut().all(|job| job.run(conn, false)) {
            return Ok(true);
        }
        let _ = conn.execute_batch("ROLLBACK");
        own.released_lock();
        batch.iter_mut().for_each(|job| job.forget());
        begin_immediate(conn).map_err(|e| Failure::of(&e))?;
        own.took_lock();
    }
    let mut fit = true;
    for job in batch.iter_mut() {
        fit &= job.run(conn, true);
    }
    Ok(fit)
}

fn answer_all(batch: Vec<Queued>, outcome: &Result<(), Failure>) {
    for job in batch {
        job.answer(outcome.clone());
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
    use std::future::Future;
    use std::pin::Pin;
    use std::task::{Context, Waker};

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
        assert_eq!(rows(&w).await, [1, 5], "the failed writes left nothing, the others everything");
    }

    /// Holds the writer thread inside a write of its own until the returned
    /// sender is dropped or sent to, so that writes queued meanwhile make
    /// one batch.
    async fn hold(w: &Writer) -> std::sync::mpsc::Sender<()> {
        let (release, held) = std::sync::mpsc::channel::<()>();
        let (inside, entered) = oneshot::channel();
        let w = w.clone();
        tokio::spawn(async move {
            w.write(move |_| {
                let _ = inside.send(());
                let _ = held.recv();
                Ok(())
            })
            .await
        });
        entered.await.unwrap();
        release
    }

    /// Polls a write once, which queues it, and hands it back to be awaited.
    fn queued<F: Future>(write: F) -> Pin<Box<F>> {
        let mut write = Box::pin(write);
        let polled = write.as_mut().poll(&mut Context::from_waker(Waker::noop()));
        assert!(polled.is_pending(), "a held writer answers nothing");
        write
    }

    /// Whether a write runs inside its own savepoint: rolling back to it
    /// before the write has written anything changes nothing.
    fn guarded(c: &Connection) -> bool {
        c.execute_batch(super::super::write_job::UNDO_WRITE).is_ok()
    }

    /// A repeatable write of `x` that counts its runs and whether each was
    /// guarded, then fails as `fail` says.
    fn insert(
        w: &Writer,
        x: i64,
        fail: Option<fn() -> StoreError>,
    ) -> (impl Future<Output = StoreResult<usize>> + use<'_>, Arc<std::sync::Mutex<Vec<bool>>>) {
        let runs = Arc::new(std::sync::Mutex::new(Vec::new()));
        let seen = runs.clone();
        let write = w.write_repeatable(move |c| {
            seen.lock().unwrap().push(guarded(c));
            let inserted = c.execute("INSERT INTO t VALUES (?1)", [x])?;
            match fail {
                Some(error) => Err(error()),
                None => Ok(inserted),
            }
        });
        (write, runs)
    }

    async fn rows(w: &Writer) -> Vec<i64> {
        w.write(|c| {
            let mut select = c.prepare("SELECT x FROM t ORDER BY x")?;
            let rows = select.query_map([], |r| r.get(0))?.collect::<Result<_, _>>()?;
            Ok(rows)
        })
        .await
        .unwrap()
    }

    #[tokio::test]
    async fn a_batch_of_repeatable_writes_runs_each_once_without_savepoints() {
        let (w, _dir) = writer().await;
        let release = hold(&w).await;
        let writes: Vec<_> = (1..=3).map(|x| insert(&w, x, None)).collect();
        let writes: Vec<_> = writes.into_iter().map(|(write, runs)| (queued(write), runs)).collect();
        drop(release);
        for (write, runs) in writes {
            assert_eq!(write.await.unwrap(), 1);
            assert_eq!(*runs.lock().unwrap(), [false], "one run, unguarded");
        }
        assert_eq!(rows(&w).await, [1, 2, 3]);
    }

    #[tokio::test]
    async fn a_failed_repeatable_write_sends_its_batch_round_again_in_savepoints() {
        let (w, _dir) = writer().await;
        let release = hold(&w).await;
        let (ok, ok_runs) = insert(&w, 1, None);
        let (refused, refused_runs) = insert(&w, 2, Some(|| StoreError::Fenced));
        let (panics, panics_runs) = insert(&w, 3, Some(|| panic!("a bug in a repeatable write")));
        let (kept, kept_runs) = insert(&w, 4, None);
        let (ok, refused, panics, kept) = (queued(ok), queued(refused), queued(panics), queued(kept));
        drop(release);
        assert_eq!(ok.await.unwrap(), 1);
        assert!(matches!(refused.await, Err(StoreError::Fenced)));
        assert!(matches!(panics.await, Err(StoreError::Internal(_))));
        assert_eq!(kept.await.unwrap(), 1);
        // The first round stopped at the first failure; the second guarded each.
        assert_eq!(*ok_runs.lock().unwrap(), [false, true]);
        assert_eq!(*refused_runs.lock().unwrap(), [false, true]);
        assert_eq!(*panics_runs.lock().unwrap(), [true]);
        assert_eq!(*kept_runs.lock().unwrap(), [true]);
        assert_eq!(rows(&w).await, [1, 4], "the failed writes were undone; the others committed");
    }

    #[tokio::test]
    async fn a_write_that_may_not_run_twice_is_guarded_and_runs_once() {
        let (w, _dir) = writer().await;
        let release = hold(&w).await;
        let once_runs = Arc::new(std::sync::Mutex::new(Vec::new()));
        let seen = once_runs.clone();
        let once = queued(w.write(move |c| {
            seen.lock().unwrap().push(guarded(c));
            Ok(c.execute("INSERT INTO t VALUES (1)", [])?)
        }));
        let (refused, refused_runs) = insert(&w, 2, Some(|| StoreError::Fenced));
        let refused = queued(refused);
        drop(release);
        assert_eq!(once.await.unwrap(), 1);
        assert!(matches!(refused.await, Err(StoreError::Fenced)));
        assert_eq!(*once_runs.lock().unwrap(), [true]);
        assert_eq!(*refused_runs.lock().unwrap(), [true], "a batch with such a write is guarded throughout");
        assert_eq!(rows(&w).await, [1]);
    }
}
