//! SQLite's side of row decoding: its errors, [`Columns`] for rusqlite's
//! rows (so the decoders shared with PostgreSQL read them), and helpers to
//! decode what a statement returns.

use std::cell::RefCell;
use std::collections::HashMap;

use crate::store::{StoreError, StoreResult};

impl From<rusqlite::Error> for StoreError {
    fn from(e: rusqlite::Error) -> Self {
        use rusqlite::ErrorCode::*;
        // The database was locked by another process, or the disk failed or
        // filled: nothing of this write happened, and it may work next time.
        match e.sqlite_error_code() {
            Some(DiskFull) => {
                crate::store::disk::noticed(false);
                StoreError::DiskFull(Box::new(e))
            }
            Some(DatabaseBusy | DatabaseLocked | SystemIoFailure | CannotOpen) => StoreError::Unavailable(Box::new(e)),
            _ => StoreError::Internal(Box::new(e)),
        }
    }
}

impl Columns for rusqlite::Row<'_> {
    fn text(&self, col: &str) -> StoreResult<String> {
        Ok(self.get(index(self, col)?)?)
    }
    fn opt_text(&self, col: &str) -> StoreResult<Option<String>> {
        Ok(self.get(index(self, col)?)?)
    }
    fn int(&self, col: &str) -> StoreResult<i64> {
        Ok(self.get(index(self, col)?)?)
    }
    fn opt_int(&self, col: &str) -> StoreResult<Option<i64>> {
        Ok(self.get(index(self, col)?)?)
    }
}

thread_local! {
    /// Where each column was found last on this thread, by name.
    static LAST_INDEX: RefCell<HashMap<Box<str>, usize>> = RefCell::new(HashMap::new());
}

/// The index of the column named `col` in `row`. rusqlite's lookup by name
/// compares it with the name of every column before it, each read through
/// `sqlite3_column_name` under the connection's mutex: decoding a run's row,
/// some thirty columns by name, was 6 % of a worker's instructions. So the
/// index where the name was found last on this thread is tried first, and
/// used only if the column there has that name; otherwise the search is
/// made as before. A select's columns are the same every time it runs, so
/// the guess is nearly always right.
pub fn index(row: &rusqlite::Row<'_>, col: &str) -> rusqlite::Result<usize> {
    let statement = row.as_ref();
    if let Some(i) = LAST_INDEX.with(|found| found.borrow().get(col).copied()) {
        if statement.column_name(i).is_ok_and(|name| name == col) {
            return Ok(i);
        }
    }
    let i = statement.column_index(col)?;
    LAST_INDEX.with(|found| found.borrow_mut().insert(col.into(), i));
    Ok(i)
}

/// Decodes every row a query returns.
pub fn all<T>(
    mut found: rusqlite::Rows<'_>,
    mut decode: impl FnMut(&rusqlite::Row<'_>) -> StoreResult<T>,
) -> StoreResult<Vec<T>> {
    let mut out = Vec::new();
    while let Some(row) = found.next()? {
        out.push(decode(row)?);
    }
    Ok(out)
}

/// Runs a (cached) statement and decodes every row it returns.
pub fn select_all<T>(
    conn: &rusqlite::Connection,
    sql: &str,
    params: impl rusqlite::Params,
    decode: impl FnMut(&rusqlite::Row<'_>) -> StoreResult<T>,
) -> StoreResult<Vec<T>> {
    let mut select = conn.prepare_cached(sql)?;
    let found = select.query(params)?;
    all(found, decode)
}

/// Runs a (cached) statement and decodes the first row it returns, if any.
pub fn select_first<T>(
    conn: &rusqlite::Connection,
    sql: &str,
    params: impl rusqlite::Params,
    decode: impl FnOnce(&rusqlite::Row<'_>) -> StoreResult<T>,
) -> StoreResult<Option<T>> {
    let mut select = conn.prepare_cached(sql)?;
    let mut found = select.query(params)?;
    found.next()?.map(decode).transpose()
}

/// A fleet's body, with `running` set while a fleet run of it is open.
pub const FLEET_SELECT: &str = "SELECT body, EXISTS(SELECT 1 FROM fleet_runs INDEXED BY fleet_runs_open
     WHERE fleet_runs.fleet_id = fleets.id AND fleet_runs.status IN ('queued', 'running')) AS running FROM fleets";

pub use crate::store::rows::*;

#[cfg(test)]
mod tests {
    use super::*;
    use rusqlite::ffi;

    fn classify(code: i32) -> StoreError {
        rusqlite::Error::SqliteFailure(ffi::Error::new(code), None).into()
    }

    #[test]
    fn a_busy_locked_or_failing_file_is_worth_retrying_and_the_rest_is_not() {
        for code in
            [ffi::SQLITE_BUSY, ffi::SQLITE_BUSY_SNAPSHOT, ffi::SQLITE_LOCKED, ffi::SQLITE_IOERR, ffi::SQLITE_FULL]
        {
            assert!(classify(code).is_retryable(), "{code}");
        }
        for code in [ffi::SQLITE_CONSTRAINT, ffi::SQLITE_ERROR, ffi::SQLITE_READONLY, ffi::SQLITE_CORRUPT] {
            assert!(matches!(classify(code), StoreError::Internal(_)), "{code}");
        }
        assert!(matches!(StoreError::from(rusqlite::Error::QueryReturnedNoRows), StoreError::Internal(_)));
    }

    /// The index of each name in the first row of `sql`.
    fn indexes(conn: &rusqlite::Connection, sql: &str, names: &[&str]) -> Vec<rusqlite::Result<usize>> {
        let mut statement = conn.prepare(sql).unwrap();
        let mut found = statement.query([]).unwrap();
        let row = found.next().unwrap().unwrap();
        names.iter().map(|name| index(row, name)).collect()
    }

    #[test]
    fn a_column_is_found_by_name_wherever_it_was_found_before() {
        let conn = rusqlite::Connection::open_in_memory().unwrap();
        let names = ["a", "b", "c"];
        let first = indexes(&conn, "SELECT 1 AS a, 2 AS b, 3 AS c", &names);
        assert_eq!(first.into_iter().collect::<Result<Vec<_>, _>>().unwrap(), [0, 1, 2]);
        let moved = indexes(&conn, "SELECT 3 AS c, 1 AS a, 2 AS b", &names);
        assert_eq!(moved.into_iter().collect::<Result<Vec<_>, _>>().unwrap(), [1, 2, 0], "a wrong guess is not used");
        let fewer = indexes(&conn, "SELECT 1 AS a", &names);
        assert_eq!(fewer[0].as_ref().ok(), Some(&0));
        assert!(fewer[1].is_err() && fewer[2].is_err(), "a missing column is an error, not another's value");
    }
}
