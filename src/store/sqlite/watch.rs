//! Cross-process change notification for a SQLite file, without polling
//! while nothing happens.
//!
//! In WAL mode every commit, by any process, writes to the `-wal` file, so
//! an inotify watch on it (`IN_MODIFY`) learns of every commit. That event
//! comes with the commit's first write, before the commit is visible: so a
//! thread of its own then checks SQLite's `data_version` every ~150 µs until
//! it moves (another connection committed), and only then bumps a counter
//! on a `watch` channel. Receivers wake, see only the newest value, and so
//! coalesce bursts by themselves. Workers and the event hub still poll as a
//! fallback; this only makes them prompt.
//!
//! When this process's own writer holds the write lock as the hint comes
//! ([`OwnWrites`]), the commit is its own (no other connection can write
//! meanwhile): the thread then waits for the writer to say it is done
//! instead of looking every 150 µs through its fsync, which measured with
//! one run at a time cost ~8 % of the process's CPU.
//!
//! A change no commit follows (a commit's last frames, written after the
//! watch was armed again; a checkpoint) would keep the check looking for
//! [`CHECK_FOR`]; it stops as soon as no other process holds the WAL's
//! write lock ([`WriteLock`]), since a commit in progress holds it until it
//! is visible; looking on for nothing cost the CPU of a process whose
//! neighbour commits all the time (a server during a burn-down).
//!
//! The watch is one-shot (`IN_ONESHOT`) and re-armed after each wake-up,
//! before the counter moves. A standing watch makes the kernel queue an
//! event on every `write` to the WAL (two per page of every commit, in every
//! writing process); measured during a burn-down, that was ~8 % of the
//! worker's CPU. Re-arming before the receivers read keeps every commit
//! covered: one made before the re-arm is visible to the reads the counter
//! triggers, one made after fires the new watch.

use std::ffi::CString;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use rusqlite::{Connection, OpenFlags};
use tokio::sync::watch;

use super::wal_lock::WriteLock;

/// How often the commit check looks at `data_version` after a hint.
const CHECK_EVERY: Duration = Duration::from_micros(150);
/// How long it looks before it passes the hint on anyway (a checkpoint also
/// writes the WAL without a commit; a slow fsync may take this long).
const CHECK_FOR: Duration = Duration::from_millis(20);

/// How long it waits for this process's writer to end a transaction: a
/// batch always ends, and the commit it waits for becomes visible only
/// then (passing the hint on before would wake receivers too early, with
/// no later hint to follow).
const OWN_COMMIT_FOR: Duration = Duration::from_secs(10);

/// What the log says when the watch stops and workers fall back to polling.
const STOPPED: &str = "change notifications stopped; polling only";

/// Whether this process's writer holds the write lock: set once its
/// `BEGIN IMMEDIATE` succeeded, cleared once its `COMMIT` (or `ROLLBACK`)
/// returned. While it is set no other connection can commit, so a change
/// to the `-wal` file seen then is the writer's own commit, visible once
/// the flag clears.
#[derive(Debug, Default)]
pub struct OwnWrites {
    holding: Mutex<bool>,
    released: Condvar,
}

impl OwnWrites {
    /// The writer took the write lock.
    pub fn took_lock(&self) {
        *self.holding.lock().unwrap_or_else(|e| e.into_inner()) = true;
    }

    /// The writer's transaction ended (committed or not).
    pub fn released_lock(&self) {
        *self.holding.lock().unwrap_or_else(|e| e.into_inner()) = false;
        self.released.notify_all();
    }

    /// Waits while the writer holds the lock, at most `limit`; whether it
    /// held it when asked.
    fn wait_while_held(&self, limit: Duration) -> bool {
        let holding = self.holding.lock().unwrap_or_else(|e| e.into_inner());
        if !*holding {
            return false;
        }
        let waited = self.released.wait_timeout_while(holding, limit, |held| *held);
        drop(waited.unwrap_or_else(|e| e.into_inner()));
        true
    }
}

/// Starts watching the database at `db` through its `wal` file and returns
/// a receiver whose value changes after every commit by another connection
/// (this process's writer, whose commits `own` tells of, included).
/// `None` (with a log line) if the kernel refuses the watch: callers then
/// rely on polling alone.
pub fn spawn(db: &Path, wal: &Path, own: Arc<OwnWrites>) -> Option<watch::Receiver<u64>> {
    match start(db, wal, own) {
        Ok(rx) => Some(rx),
        Err(e) => {
            tracing::warn!(error = %e, file = %wal.display(), "no change notifications; polling only");
            None
        }
    }
}

fn start(db: &Path, wal: &Path, own: Arc<OwnWrites>) -> io::Result<watch::Receiver<u64>> {
    let name = CString::new(wal.as_os_str().as_bytes()).map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
    // SAFETY: inotify_init1 takes flags only and returns a new descriptor or -1.
    let raw = unsafe { libc::inotify_init1(libc::IN_CLOEXEC) };
    if raw < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `raw` is a descriptor we just opened and own from here on.
    let fd = unsafe { OwnedFd::from_raw_fd(raw) };
    arm(fd.as_raw_fd(), &name)?;
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = Connection::open_with_flags(db, flags).map_err(io::Error::other)?;
    super::open::keep_wal_files(&conn).map_err(io::Error::other)?;
    let (tx, rx) = watch::channel(0u64);
    let mut shm = db.as_os_str().to_owned();
    shm.push("-shm");
    let shm = std::path::PathBuf::from(shm);
    let watching = Watching { fd, name, conn, shm };
    std::thread::Builder::new().name("wingman-watch".into()).spawn(move || forward(watching, tx, own))?;
    Ok(rx)
}

/// Adds (or re-adds) the one-shot watch on the file.
fn arm(fd: i32, name: &CString) -> io::Result<()> {
    // SAFETY: `fd` is a valid inotify descriptor and `name` a NUL-terminated path.
    let watch = unsafe { libc::inotify_add_watch(fd, name.as_ptr(), libc::IN_MODIFY | libc::IN_ONESHOT) };
    if watch < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Re-arms the watch. SQLite deletes the `-wal` file when the last
/// connection to the database closes (this thread's own connection keeps it
/// while the process runs) and creates it again with the next write; if it
/// is gone, this waits for it (polling covers the gap).
fn rearm(fd: i32, name: &CString, tx: &watch::Sender<u64>) -> io::Result<()> {
    loop {
        match arm(fd, name) {
            // Nobody listens any more: the caller stops after this round.
            Err(_) if tx.is_closed() => return Ok(()),
            Err(e) if e.kind() == io::ErrorKind::NotFound => std::thread::sleep(Duration::from_millis(100)),
            other => return other,
        }
    }
}

/// What the watch thread watches: the inotify descriptor and the `-wal`
/// file's name, and the database through a connection of its own and its
/// `-shm` file.
struct Watching {
    fd: OwnedFd,
    name: CString,
    conn: Connection,
    shm: std::path::PathBuf,
}

/// The watch thread: waits for inotify events, re-arms the watch, waits for
/// the commit to become visible, then bumps the counter. Ends when every
/// receiver is gone (noticed at the next event).
fn forward(watching: Watching, tx: watch::Sender<u64>, own: Arc<OwnWrites>) {
    let Watching { fd, name, conn, shm } = watching;
    let mut buf = [0u8; 4096];
    let mut seen = data_version(&conn).unwrap_or(0);
    // Looked for again until found: where `/proc/locks` never names the
    // file, the check looks as long as it always did.
    let mut lock = None;
    loop {
        // SAFETY: reading into a buffer we own, at most its length.
        let n = unsafe { libc::read(fd.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len()) };
        if n < 0 {
            let e = io::Error::last_os_error();
            if e.kind() == io::ErrorKind::Interrupted {
                continue;
            }
            tracing::warn!(error = %e, "{STOPPED}");
            return;
        }
        if tx.is_closed() {
            return;
        }
        if let Err(e) = rearm(fd.as_raw_fd(), &name, &tx) {
            tracing::warn!(error = %e, "{STOPPED}");
            return;
        }
        seen = if own.wait_while_held(OWN_COMMIT_FOR) {
            data_version(&conn).unwrap_or(seen)
        } else {
            if lock.is_none() {
                lock = WriteLock::find(&shm);
            }
            committed_after(&conn, seen, lock.as_ref(), CHECK_FOR)
        };
        tx.send_modify(|n| *n = n.wrapping_add(1));
    }
}

/// Waits until another connection's commit is visible (`data_version` moved
/// past `seen`), until no other process is writing (`lock`, where it can be
/// read), or for `limit`; returns the version now seen.
fn committed_after(conn: &Connection, seen: i64, lock: Option<&WriteLock>, limit: Duration) -> i64 {
    let deadline = Instant::now() + limit;
    let mut first = true;
    loop {
        let now = data_version(conn).unwrap_or(seen);
        if now != seen || Instant::now() >= deadline {
            return now;
        }
        // Nobody holds the write lock: a commit that made the change has
        // become visible (it held the lock until then), so a second look
        // sees it; or no commit made it. Not asked at the first look, which
        // nearly always finds a commit still writing.
        if !first && lock.is_some_and(|lock| !lock.held_elsewhere()) {
            return data_version(conn).unwrap_or(seen);
        }
        first = false;
        std::thread::sleep(CHECK_EVERY);
    }
}

fn data_version(conn: &Connection) -> rusqlite::Result<i64> {
    conn.prepare_cached("PRAGMA data_version")?.query_row([], |r| r.get(0))
}

#[cfg(test)]
mod tests {
    use std::io::Write;
    use std::sync::Arc;
    use std::time::Duration;

    use tokio::sync::watch;

    async fn changed(rx: &mut watch::Receiver<u64>) -> bool {
        tokio::time::timeout(Duration::from_secs(2), rx.changed()).await.is_ok()
    }

    fn append(path: &std::path::Path) {
        let mut file = std::fs::OpenOptions::new().create(true).append(true).open(path).unwrap();
        file.write_all(b"frame").unwrap();
    }

    /// A database and a stand-in for its WAL (SQLite would open a real
    /// `db-wal` itself), written once, watched; the directory holds both.
    fn watching(own: Arc<super::OwnWrites>) -> (tempfile::TempDir, std::path::PathBuf, watch::Receiver<u64>) {
        let dir = tempfile::tempdir().unwrap();
        let (db, wal) = (dir.path().join("db"), dir.path().join("watched"));
        rusqlite::Connection::open(&db).unwrap().execute_batch("CREATE TABLE t (x)").unwrap();
        append(&wal);
        let rx = super::spawn(&db, &wal, own).expect("inotify works here");
        (dir, wal, rx)
    }

    #[tokio::test]
    async fn every_write_is_seen_even_after_the_file_is_deleted_and_made_again() {
        let (_dir, wal, mut rx) = watching(Default::default());
        for _ in 0..3 {
            append(&wal);
            assert!(changed(&mut rx).await, "the one-shot watch was re-armed");
        }
        // What SQLite does when the last connection closes, then a new write.
        std::fs::remove_file(&wal).unwrap();
        tokio::time::sleep(Duration::from_millis(50)).await;
        append(&wal);
        assert!(changed(&mut rx).await, "the watch follows the new file");
        rx.borrow_and_update();
        append(&wal);
        assert!(changed(&mut rx).await);
    }

    #[tokio::test]
    async fn a_change_made_while_the_writer_holds_the_lock_is_passed_on_once_it_lets_go() {
        let own = Arc::new(super::OwnWrites::default());
        let (_dir, wal, mut rx) = watching(own.clone());
        own.took_lock();
        append(&wal);
        // Longer than the commit check would look (20 ms): it waits for the writer.
        tokio::time::sleep(Duration::from_millis(200)).await;
        assert!(!rx.has_changed().unwrap(), "nothing is passed on while the writer holds the lock");
        own.released_lock();
        assert!(changed(&mut rx).await, "passed on once the writer let go");
        append(&wal);
        assert!(changed(&mut rx).await, "and the next change as before");
    }

    /// A WAL database with a connection that writes it and one that reads
    /// it, and the version the reader has seen.
    fn written_and_read() -> (tempfile::TempDir, rusqlite::Connection, rusqlite::Connection, i64) {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("db");
        let writer = super::super::wal_lock::wal_database(&db);
        let reader = rusqlite::Connection::open(&db).unwrap();
        let seen = super::data_version(&reader).unwrap();
        (dir, writer, reader, seen)
    }

    #[test]
    fn the_commit_check_sees_other_connections_commits_and_gives_up_without_one() {
        let (_dir, writer, reader, seen) = written_and_read();
        let check = |seen| super::committed_after(&reader, seen, None, super::CHECK_FOR);
        assert_eq!(check(seen), seen, "nothing committed: it gives up");
        writer.execute("INSERT INTO t VALUES (1)", []).unwrap();
        let after = check(seen);
        assert_ne!(after, seen, "another connection committed");
        assert_eq!(check(after), after);
    }

    #[test]
    fn the_commit_check_stops_looking_once_no_other_process_is_writing() {
        let (dir, _writer, reader, seen) = written_and_read();
        let lock = super::super::wal_lock::found(&dir.path().join("db-shm"));
        // Far longer than the check can take when it knows nobody writes.
        let limit = Duration::from_secs(60);
        let started = std::time::Instant::now();
        assert_eq!(super::committed_after(&reader, seen, Some(&lock), limit), seen);
        assert!(started.elapsed() < limit / 2, "it stopped without waiting out its limit");
    }
}
