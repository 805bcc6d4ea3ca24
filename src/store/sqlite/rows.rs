//! SQLite's side of row decoding: its errors, and [`Columns`] for its two drivers.
//!
//! Rows come from two places: the read pool (sqlx) and the writer's own
//! connection (rusqlite). [`Columns`] lets one decoder serve both.

use sqlx::sqlite::SqliteRow;
use sqlx::Row;

use crate::store::{StoreError, StoreResult};

impl From<rusqlite::Error> for StoreError {
    fn from(e: rusqlite::Error) -> Self {
        use rusqlite::ErrorCode::*;
        // The database was locked by another process, or the disk failed or
        // filled: nothing of this write happened, and it may work next time.
        match e.sqlite_error_code() {
            Some(DatabaseBusy | DatabaseLocked | SystemIoFailure | DiskFull | CannotOpen) => {
                StoreError::Unavailable(Box::new(e))
            }
            _ => StoreError::Internal(Box::new(e)),
        }
    }
}

impl Columns for SqliteRow {
    fn text(&self, col: &str) -> StoreResult<String> {
        Ok(self.try_get(col)?)
    }
    fn opt_text(&self, col: &str) -> StoreResult<Option<String>> {
        Ok(self.try_get(col)?)
    }
    fn int(&self, col: &str) -> StoreResult<i64> {
        Ok(self.try_get(col)?)
    }
    fn opt_int(&self, col: &str) -> StoreResult<Option<i64>> {
        Ok(self.try_get(col)?)
    }
}

impl Columns for rusqlite::Row<'_> {
    fn text(&self, col: &str) -> StoreResult<String> {
        Ok(self.get(col)?)
    }
    fn opt_text(&self, col: &str) -> StoreResult<Option<String>> {
        Ok(self.get(col)?)
    }
    fn int(&self, col: &str) -> StoreResult<i64> {
        Ok(self.get(col)?)
    }
    fn opt_int(&self, col: &str) -> StoreResult<Option<i64>> {
        Ok(self.get(col)?)
    }
}

/// Decodes every row a query on an in-thread connection returns.
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

/// A fleet's definition and whether one of its fleet runs is unfinished.
pub const FLEET_SELECT: &str = "SELECT body, EXISTS(SELECT 1 FROM fleet_runs INDEXED BY fleet_runs_open
     WHERE fleet_runs.fleet_id = fleets.id AND fleet_runs.status IN ('queued', 'running')) AS running FROM fleets";

pub use crate::store::rows::*;
