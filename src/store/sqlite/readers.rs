//! A few read-only connections, each driven in-thread on a blocking thread:
//! every read of the store goes through them, the hot ones (what a worker
//! loads to execute a run, whether there is work to claim, the event log the
//! hub and SSE replay follow) and the API's resource reads alike.
//!
//! A read runs through SQLite's C API (rusqlite) with cached prepared
//! statements. An async driver costs a round trip to its connection thread
//! per statement (~125 µs measured here); loading a run is seven statements,
//! and that round trip capped a worker near 4,500 runs/s before these reads
//! moved here.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use rusqlite::{Connection, OpenFlags};
use tokio::sync::Semaphore;

use super::open::BUSY_TIMEOUT;
use crate::store::{StoreError, StoreResult};

/// How many reads may run at once (each holds a connection and a blocking thread).
const MAX_READERS: usize = 8;

/// A pool of read-only connections, opened as they are first needed.
pub struct Readers {
    path: PathBuf,
    idle: Mutex<Vec<Connection>>,
    permits: Semaphore,
}

impl Readers {
    /// Readers for the (already migrated) database file at `path`.
    pub fn new(path: &Path) -> Readers {
        Readers { path: path.to_path_buf(), idle: Mutex::new(Vec::new()), permits: Semaphore::new(MAX_READERS) }
    }

    /// Runs `read` on a read connection, on a blocking thread.
    pub async fn read<T, F>(&self, read: F) -> StoreResult<T>
    where
        T: Send + 'static,
        F: FnOnce(&Connection) -> StoreResult<T> + Send + 'static,
    {
        let _permit = self.permits.acquire().await.map_err(|_| StoreError::unavailable("readers closed"))?;
        let idle = self.idle.lock().unwrap_or_else(|e| e.into_inner()).pop();
        let conn = match idle {
            Some(conn) => conn,
            None => open(&self.path)?,
        };
        let (conn, result) = tokio::task::spawn_blocking(move || {
            let result = read(&conn);
            (conn, result)
        })
        .await
        .map_err(|e| StoreError::internal(format!("a read task failed: {e}")))?;
        self.idle.lock().unwrap_or_else(|e| e.into_inner()).push(conn);
        result
    }
}

fn open(path: &Path) -> StoreResult<Connection> {
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = Connection::open_with_flags(path, flags)?;
    super::open::keep_wal_files(&conn)?;
    conn.busy_timeout(BUSY_TIMEOUT)?;
    // Room for every statement of every read (about two dozen), so none is
    // prepared again after another pushed it out.
    conn.set_prepared_statement_cache_capacity(64);
    // Lists of sessions or runs read more pages than the default 2 MB cache
    // keeps, and a sort that spills should not touch the disk.
    conn.execute_batch("PRAGMA cache_size = -32000; PRAGMA temp_store = memory;")?;
    Ok(conn)
}
