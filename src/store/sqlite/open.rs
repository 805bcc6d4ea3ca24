//! Finding and preparing the database file: the path a URL names, the file
//! created and switched to WAL, and the schema migrated, before the writer,
//! the readers and the change watch open their own connections.

use std::ffi::c_int;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use percent_encoding::percent_decode_str;
use rusqlite::{ffi, Connection};

use super::migrate;
use super::writer::is_busy;

/// How long a connection waits for another process's lock before it fails.
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(30);

/// The most a `-wal` file keeps after a checkpoint has moved its pages into
/// the database (see [`keep_wal_files`]).
const WAL_SIZE_LIMIT: u64 = 64 << 20;

/// The database file a URL names: a `sqlite:` or `sqlite://` URL (its path
/// percent-decoded, so it may hold a `?` or a `#`), or a plain file path.
/// The only query parameter understood is `mode=rw` or `mode=rwc`, which
/// changes nothing: the file is always created if missing.
pub fn database_path(url: &str) -> anyhow::Result<PathBuf> {
    let Some(rest) = url.strip_prefix("sqlite:") else { return named_file(url, url) };
    let rest = rest.strip_prefix("//").unwrap_or(rest);
    let (path, query) = match rest.split_once('?') {
        Some((path, query)) => (path, Some(query)),
        None => (rest, None),
    };
    for pair in query.into_iter().flat_map(|q| q.split('&')).filter(|p| !p.is_empty()) {
        if !matches!(pair, "mode=rw" | "mode=rwc") {
            bail!("unsupported parameter {pair:?} in the database URL {url:?}");
        }
    }
    let path = percent_decode_str(path).decode_utf8().with_context(|| format!("the database URL {url:?}"))?;
    named_file(&path, url)
}

fn named_file(path: &str, url: &str) -> anyhow::Result<PathBuf> {
    // Every connection of a process opens the file by name, so a private
    // in-memory database could not be shared between them.
    if path.is_empty() || path == ":memory:" {
        bail!("the database URL {url:?} names no file");
    }
    Ok(PathBuf::from(path))
}

/// Creates the file (and its directory) if missing, switches it to WAL and
/// brings its schema up to date. The `-wal` and `-shm` files are kept from
/// then on (see [`keep_wal_files`]), so the change watch can be set on the
/// `-wal`.
pub fn create_and_migrate(path: &Path, synchronous_full: bool) -> anyhow::Result<Connection> {
    if let Some(dir) = path.parent() {
        if !dir.as_os_str().is_empty() {
            std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        }
    }
    let conn = Connection::open(path).with_context(|| format!("opening {}", path.display()))?;
    prepare(&conn, synchronous_full).map_err(|e| explained(e, path))?;
    Ok(conn)
}

fn prepare(conn: &Connection, synchronous_full: bool) -> anyhow::Result<()> {
    keep_wal_files(conn)?;
    conn.busy_timeout(BUSY_TIMEOUT)?;
    switch_to_wal(conn)?;
    let synchronous = if synchronous_full { "FULL" } else { "NORMAL" };
    conn.execute_batch(&format!(
        "PRAGMA synchronous = {synchronous}; PRAGMA cache_size = -32000; PRAGMA temp_store = memory;"
    ))?;
    migrate::run(conn)
}

/// Says "the disk is full" of the errors a full disk gives while the file is
/// opened: SQLite cannot even read a WAL database without room for its
/// `-shm` file, and its own words for that name a method, not the cause.
fn explained(e: anyhow::Error, path: &Path) -> anyhow::Error {
    let code = match e.downcast_ref::<rusqlite::Error>() {
        Some(rusqlite::Error::SqliteFailure(failure, _)) => failure.extended_code,
        _ => 0,
    };
    let full = matches!(code, ffi::SQLITE_FULL | ffi::SQLITE_IOERR_SHMSIZE | ffi::SQLITE_IOERR_SHMMAP);
    let place = path.display();
    if full {
        e.context(format!(
            "the database's disk is full: {place} could not be opened (SQLite needs room for its -wal and -shm files); free some space and start again"
        ))
    } else {
        e.context(format!("preparing {place}"))
    }
}

/// Keeps the `-wal` and `-shm` files when this connection is the last to
/// close (SQLite's `SQLITE_FCNTL_PERSIST_WAL`; each connection decides for
/// its own close). Without it a clean stop removes both, and the next start
/// must make the `-shm` again: on a full disk that fails, and a server could
/// not start to say the disk is full. Kept, their pages stay allocated.
///
/// The kept `-wal` is emptied at that close (its pages are in the database
/// by then), as SQLite does when a journal size limit is set; the limit, 64
/// MB, also bounds what a WAL that grew behind a long read keeps after its
/// next checkpoint.
pub fn keep_wal_files(conn: &Connection) -> rusqlite::Result<()> {
    conn.execute_batch(&format!("PRAGMA journal_size_limit = {WAL_SIZE_LIMIT}"))?;
    let mut on: c_int = 1;
    // SAFETY: the handle is this open connection's and lives through the call;
    // "main" is NUL-terminated; this file control reads and writes one `int`
    // through the pointer, which points at `on`.
    let rc = unsafe {
        ffi::sqlite3_file_control(conn.handle(), c"main".as_ptr(), ffi::SQLITE_FCNTL_PERSIST_WAL, (&raw mut on).cast())
    };
    match rc {
        ffi::SQLITE_OK => Ok(()),
        rc => Err(rusqlite::Error::SqliteFailure(ffi::Error::new(rc), None)),
    }
}

/// Switches the file to WAL (a no-op once it is). On a new file the switch
/// needs a lock SQLite does not wait for, whatever the busy timeout: of four
/// processes started together on a new file, one sometimes failed at once
/// with "database is locked". So this retries every millisecond or so (with
/// jitter) for up to [`BUSY_TIMEOUT`].
fn switch_to_wal(conn: &Connection) -> rusqlite::Result<()> {
    let deadline = Instant::now() + BUSY_TIMEOUT;
    loop {
        match conn.execute_batch("PRAGMA journal_mode = WAL") {
            Err(e) if is_busy(&e) && Instant::now() < deadline => {
                std::thread::sleep(Duration::from_micros(500 + fastrand::u64(0..1500)));
            }
            done => return done,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_and_paths_name_the_same_files() {
        let path = |url: &str| database_path(url).unwrap();
        assert_eq!(path("data/w.db"), PathBuf::from("data/w.db"));
        assert_eq!(path("sqlite:data/w.db"), PathBuf::from("data/w.db"));
        assert_eq!(path("sqlite://data/w.db"), PathBuf::from("data/w.db"));
        assert_eq!(path("sqlite:///srv/w.db?mode=rwc"), PathBuf::from("/srv/w.db"));
        assert_eq!(path("sqlite:///srv/a%3Fb%20c.db"), PathBuf::from("/srv/a?b c.db"));
    }

    #[test]
    fn urls_that_name_no_usable_file_are_refused() {
        for url in [":memory:", "sqlite::memory:", "sqlite://", "sqlite:w.db?mode=ro", "sqlite:w.db?cache=shared"] {
            assert!(database_path(url).is_err(), "{url}");
        }
    }

    #[test]
    fn connections_starting_together_on_a_new_file_all_open_it() {
        for round in 0..25 {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("w.db");
            let starts: Vec<_> = (0..4)
                .map(|_| {
                    let path = path.clone();
                    std::thread::spawn(move || create_and_migrate(&path, true).map(|_| ()))
                })
                .collect();
            for start in starts {
                start.join().unwrap().unwrap_or_else(|e| panic!("round {round}: {e:#}"));
            }
        }
    }

    #[test]
    fn a_new_file_is_created_with_its_directory_in_wal_and_migrated() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("new/dir/w.db");
        let conn = create_and_migrate(&path, false).unwrap();
        let mode: String = conn.query_row("PRAGMA journal_mode", [], |r| r.get(0)).unwrap();
        assert_eq!(mode, "wal");
        let migrated: i64 = conn.query_row("SELECT COUNT(*) FROM wingman_migrations", [], |r| r.get(0)).unwrap();
        assert!(migrated >= 5);
    }

    #[test]
    fn the_wal_files_outlive_the_last_connection() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("w.db");
        drop(create_and_migrate(&path, true).unwrap());
        for file in ["w.db-wal", "w.db-shm"] {
            assert!(dir.path().join(file).exists(), "{file} was removed at the last close");
        }
        let wal = std::fs::metadata(dir.path().join("w.db-wal")).unwrap().len();
        assert_eq!(wal, 0, "the kept -wal is emptied once its pages are in the database");
        let plain = Connection::open(&path).unwrap();
        plain.query_row("SELECT COUNT(*) FROM wingman_migrations", [], |r| r.get::<_, i64>(0)).unwrap();
        drop(plain);
        assert!(!dir.path().join("w.db-shm").exists(), "a connection that does not keep them removes them");
    }
}
