//! Whether another process is in the middle of writing a database: the
//! commit check's way to tell a commit in progress from a change to the
//! `-wal` file that no commit follows.
//!
//! SQLite's unix VFS holds the WAL's write lock, byte 120 of the `-shm`
//! file (the WAL-index format, <https://www.sqlite.org/walformat.html>), from
//! a write transaction's start until its commit has become visible. The
//! lock is read from `/proc/locks`, which names a file by its device and
//! inode, rather than tested with `fcntl` on a descriptor of the `-shm`
//! file: closing any descriptor of a file drops every POSIX lock this
//! process holds on it, the locks of SQLite's own connections included.

use std::os::unix::fs::MetadataExt;
use std::path::Path;

/// The byte of the `-shm` file a writer locks.
const WAL_WRITE_LOCK: u64 = 120;

/// Where `/proc/locks` names the database's `-shm` file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WriteLock {
    device: (u32, u32),
    inode: u64,
    pid: i64,
}

impl WriteLock {
    /// The write lock of the `-shm` file at `shm`, once `/proc/locks` is
    /// seen to name that file as this process's own connections lock it
    /// (each holds a read lock on it while open). A file system that names
    /// files otherwise there (an overlay may) gives `None`, and so does a
    /// system without `/proc/locks`: the commit check then looks as long as
    /// it always did.
    pub fn find(shm: &Path) -> Option<WriteLock> {
        let meta = std::fs::metadata(shm).ok()?;
        let device = (libc::major(meta.dev()), libc::minor(meta.dev()));
        let lock = WriteLock { device, inode: meta.ino(), pid: i64::from(std::process::id()) };
        let table = std::fs::read_to_string("/proc/locks").ok()?;
        let named = table.lines().filter_map(Held::parse).any(|held| lock.names(&held) && held.pid == lock.pid);
        named.then_some(lock)
    }

    /// Whether a process other than this one holds the write lock now. If
    /// `/proc/locks` cannot be read, it answers yes: the check goes on looking.
    pub fn held_elsewhere(&self) -> bool {
        let Ok(table) = std::fs::read_to_string("/proc/locks") else { return true };
        table.lines().filter_map(Held::parse).any(|held| {
            self.names(&held) && held.pid != self.pid && held.write && (held.start..=held.end).contains(&WAL_WRITE_LOCK)
        })
    }

    fn names(&self, held: &Held) -> bool {
        held.device == self.device && held.inode == self.inode
    }
}

/// A lock held, as a line of `/proc/locks` gives it:
/// `1: POSIX  ADVISORY  WRITE 1234 fd:00:5678 120 120` (device numbers in
/// hex; an open file description's lock, `OFDLCK`, has pid -1; the end may be
/// `EOF`). A waiter's line (`1: -> POSIX …`) holds nothing.
#[derive(Debug, PartialEq, Eq)]
struct Held {
    write: bool,
    pid: i64,
    device: (u32, u32),
    inode: u64,
    start: u64,
    end: u64,
}

impl Held {
    fn parse(line: &str) -> Option<Held> {
        let mut words = line.split_whitespace().skip(1);
        if !matches!(words.next()?, "POSIX" | "OFDLCK") {
            return None;
        }
        let _advisory = words.next()?;
        let write = words.next()? == "WRITE";
        let pid = words.next()?.parse().ok()?;
        let mut file = words.next()?.split(':');
        let major = u32::from_str_radix(file.next()?, 16).ok()?;
        let minor = u32::from_str_radix(file.next()?, 16).ok()?;
        let inode = file.next()?.parse().ok()?;
        let start = words.next()?.parse().ok()?;
        let end = match words.next()? {
            "EOF" => u64::MAX,
            end => end.parse().ok()?,
        };
        Some(Held { write, pid, device: (major, minor), inode, start, end })
    }
}

/// A test's database at `db` in WAL mode with a table `t`, and a
/// connection to it.
#[cfg(test)]
pub fn wal_database(db: &Path) -> rusqlite::Connection {
    let conn = rusqlite::Connection::open(db).unwrap();
    conn.execute_batch("PRAGMA journal_mode = WAL; CREATE TABLE t (x)").unwrap();
    conn
}

/// The write lock of `shm` for a test, looked for a few times (as the watch
/// looks again at each change), or a failure saying what `/proc/locks` held.
#[cfg(test)]
pub fn found(shm: &Path) -> WriteLock {
    for _ in 0..5 {
        if let Some(lock) = WriteLock::find(shm) {
            return lock;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let meta = std::fs::metadata(shm).map(|m| (libc::major(m.dev()), libc::minor(m.dev()), m.ino()));
    let table = std::fs::read_to_string("/proc/locks");
    panic!("/proc/locks does not name {} ({meta:?}) as locked by {}: {table:?}", shm.display(), std::process::id())
}

#[cfg(test)]
mod tests {
    use std::io::{BufRead, BufReader, Write};
    use std::process::{Command, Stdio};

    use super::*;

    #[test]
    fn lines_of_proc_locks_are_read_and_waiters_hold_nothing() {
        let held = Held::parse("1: POSIX  ADVISORY  WRITE 4242 fd:00:1234567 120 120").unwrap();
        assert_eq!(held, Held { write: true, pid: 4242, device: (0xfd, 0), inode: 1234567, start: 120, end: 120 });
        let ofd = Held::parse("2: OFDLCK ADVISORY  READ  -1 08:1a:99 128 EOF").unwrap();
        assert_eq!((ofd.write, ofd.pid, ofd.device, ofd.end), (false, -1, (8, 0x1a), u64::MAX));
        assert_eq!(Held::parse("1: -> POSIX  ADVISORY  WRITE 4243 fd:00:1234567 120 120"), None);
        assert_eq!(Held::parse("3: FLOCK  ADVISORY  WRITE 17 fd:00:12 0 EOF"), None);
        assert_eq!(Held::parse("garbage"), None);
    }

    /// Another process holding a write transaction open on `db` until it is
    /// told to commit (a line on its input), through Python's `sqlite3`.
    fn writer_elsewhere(db: &Path) -> Option<std::process::Child> {
        let script = "import sqlite3, sys\n\
            c = sqlite3.connect(sys.argv[1], isolation_level=None)\n\
            c.execute('BEGIN IMMEDIATE'); c.execute('INSERT INTO t VALUES (2)')\n\
            print('held', flush=True); sys.stdin.readline(); c.execute('COMMIT')\n";
        let spawned =
            Command::new("python3").arg("-c").arg(script).arg(db).stdin(Stdio::piped()).stdout(Stdio::piped()).spawn();
        let Ok(mut child) = spawned else {
            eprintln!("python3 is not here: the check of another process's lock is skipped");
            return None;
        };
        let mut line = String::new();
        BufReader::new(child.stdout.as_mut().unwrap()).read_line(&mut line).unwrap();
        assert_eq!(line.trim(), "held", "the other process began its write");
        Some(child)
    }

    #[test]
    fn another_processs_write_transaction_is_seen_and_so_is_its_end() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("db");
        let conn = wal_database(&db);
        let lock = found(&dir.path().join("db-shm"));
        conn.execute_batch("BEGIN IMMEDIATE; INSERT INTO t VALUES (3)").unwrap();
        assert!(!lock.held_elsewhere(), "this process's own write is not another's");
        conn.execute_batch("COMMIT").unwrap();
        let Some(mut other) = writer_elsewhere(&db) else { return };
        assert!(lock.held_elsewhere(), "another process is writing");
        writeln!(other.stdin.as_mut().unwrap()).unwrap();
        assert!(other.wait().unwrap().success());
        assert!(!lock.held_elsewhere(), "its commit ended the write");
    }
}
