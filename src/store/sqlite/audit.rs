//! The audit log in SQLite (`audit_log`): appended through the group-commit
//! writer, read a page at a time on a read connection.

use rusqlite::{params, Connection};

use super::rows::select_all;
use crate::domain::audit::AuditEntry;
use crate::store::rows::{self, ms};
use crate::store::{AuditFilter, StoreResult};

/// An entry as its row holds it, encoded before it reaches the writer
/// thread, which every write of the process waits on.
pub struct Row {
    id: String,
    owner: String,
    at: i64,
    body: String,
}

impl Row {
    /// `entry`'s row.
    pub fn of(entry: &AuditEntry) -> StoreResult<Row> {
        let body = serde_json::to_string(entry)?;
        Ok(Row { id: entry.id.clone(), owner: entry.by.owner.clone(), at: ms(entry.at), body })
    }
}

/// Appends `rows`; a second write of an entry is ignored.
pub fn record(conn: &Connection, rows: &[Row]) -> StoreResult<()> {
    let mut insert =
        conn.prepare_cached("INSERT OR IGNORE INTO audit_log (id, owner, at, body) VALUES (?1, ?2, ?3, ?4)")?;
    for row in rows {
        insert.execute(params![row.id, row.owner, row.at, row.body])?;
    }
    Ok(())
}

/// A page of entries, newest first, older than `filter.after`.
pub fn list(conn: &Connection, filter: &AuditFilter) -> StoreResult<Vec<AuditEntry>> {
    let sql = format!(
        "SELECT body FROM audit_log WHERE {} AND (?2 IS NULL OR id < ?2) ORDER BY id DESC LIMIT ?3",
        rows::owned_by(&filter.owner, "owner", "?1")
    );
    select_all(conn, &sql, params![filter.owner, filter.after, filter.limit], |row| rows::body(row))
}
