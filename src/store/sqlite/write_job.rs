//! One write waiting for the writer thread: the closure, what it answered,
//! and where its answer goes once its batch's fate is known.

use rusqlite::{Connection, ErrorCode};
use tokio::sync::oneshot;

use crate::store::{StoreError, StoreResult};

/// A write as the writer thread drives it.
pub(super) trait Job: Send {
    /// Whether the write may run a second time: it changes nothing but the
    /// database, so a run of it that was rolled back left no trace.
    fn repeatable(&self) -> bool;

    /// Runs the write, in a savepoint of its own when `guarded`, and keeps
    /// its result. Returns whether the transaction is fit to commit: a
    /// guarded write that failed was undone; an unguarded one was not.
    fn run(&mut self, conn: &Connection, guarded: bool) -> bool;

    /// Forgets the result of a run that was rolled back.
    fn forget(&mut self);

    /// Delivers the answer: the write's refusal, or its value if the batch
    /// committed, or why the batch did not.
    fn answer(self: Box<Self>, batch: Result<(), Failure>);
}

/// Why a batch wrote nothing, as every caller in it is told.
#[derive(Debug, Clone)]
pub(super) struct Failure {
    pub message: String,
    pub disk_full: bool,
}

impl Failure {
    pub fn of(e: &rusqlite::Error) -> Failure {
        Failure { message: e.to_string(), disk_full: e.sqlite_error_code() == Some(ErrorCode::DiskFull) }
    }

    /// The error a caller gets: a full disk says so; anything else may pass.
    pub fn error(&self) -> StoreError {
        let message = format!("not committed: {}", self.message);
        if self.disk_full {
            StoreError::DiskFull(message.into())
        } else {
            StoreError::unavailable(message)
        }
    }
}

/// A write and its caller. A write that may not run twice is wrapped so
/// that it is called at most once ([`once`]).
pub(super) struct Pending<T, F> {
    write: F,
    repeatable: bool,
    result: Option<StoreResult<T>>,
    answer: oneshot::Sender<StoreResult<T>>,
}

impl<T, F> Pending<T, F>
where
    F: FnMut(&Connection) -> StoreResult<T>,
{
    /// A write that may run twice.
    pub fn repeatable(write: F, answer: oneshot::Sender<StoreResult<T>>) -> Pending<T, F> {
        Pending { write, repeatable: true, result: None, answer }
    }
}

/// A write that runs at most once: it consumes what it writes.
pub(super) fn once<T, W>(
    write: W,
    answer: oneshot::Sender<StoreResult<T>>,
) -> Pending<T, impl FnMut(&Connection) -> StoreResult<T>>
where
    W: FnOnce(&Connection) -> StoreResult<T>,
{
    let mut write = Some(write);
    let call = move |conn: &Connection| match write.take() {
        Some(write) => write(conn),
        None => Err(StoreError::internal("a write that runs once was run again")),
    };
    Pending { write: call, repeatable: false, result: None, answer }
}

impl<T, F> Job for Pending<T, F>
where
    T: Send,
    F: FnMut(&Connection) -> StoreResult<T> + Send,
{
    fn repeatable(&self) -> bool {
        self.repeatable
    }

    fn run(&mut self, conn: &Connection, guarded: bool) -> bool {
        let (fit, result) = if guarded {
            in_savepoint(conn, &mut self.write)
        } else {
            let result = caught(conn, &mut self.write);
            (result.is_ok(), result)
        };
        self.result = Some(result);
        fit
    }

    fn forget(&mut self) {
        self.result = None;
    }

    fn answer(self: Box<Self>, batch: Result<(), Failure>) {
        let answer = match (self.result, batch) {
            (Some(Err(refused)), _) => Err(refused),
            (Some(Ok(value)), Ok(())) => Ok(value),
            (_, Err(failure)) => Err(failure.error()),
            (None, Ok(())) => Err(StoreError::internal("a write of a committed batch never ran")),
        };
        let _ = self.answer.send(answer);
    }
}

/// Undoes a write to its savepoint, which stays open.
pub(super) const UNDO_WRITE: &str = "ROLLBACK TO write";

/// Runs one write inside a savepoint, undoing it alone if it fails. Returns
/// whether the transaction is still fit to commit, and the write's result.
fn in_savepoint<T>(conn: &Connection, write: impl FnMut(&Connection) -> StoreResult<T>) -> (bool, StoreResult<T>) {
    if let Err(e) = run_cached(conn, "SAVEPOINT write") {
        return (false, Err(e.into()));
    }
    let result = caught(conn, write);
    let undone = if result.is_err() { run_cached(conn, UNDO_WRITE) } else { Ok(()) };
    match undone.and_then(|()| run_cached(conn, "RELEASE write")) {
        Ok(()) => (true, result),
        Err(e) => (false, result.and(Err(e.into()))),
    }
}

/// Runs one write. A panicking write must not take the writer thread (and
/// with it every later write of the process) down: it fails like an error.
fn caught<T>(conn: &Connection, mut write: impl FnMut(&Connection) -> StoreResult<T>) -> StoreResult<T> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| write(conn)))
        .unwrap_or_else(|_| Err(StoreError::internal("a write panicked")))
}

/// Runs a statement that returns nothing, prepared once per connection: a
/// savepoint's three statements run for every write and a transaction's two
/// for every batch, and parsing them each time cost more than running them.
pub(super) fn run_cached(conn: &Connection, sql: &str) -> rusqlite::Result<()> {
    conn.prepare_cached(sql)?.execute([])?;
    Ok(())
}
